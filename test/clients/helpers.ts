/**
 * Shared setup of the client tests: a real loopback server (test/http/helpers/test-server.ts), a Transport aimed
 * at it with `endpoint`, and a dispatcher that keeps the real host of each request (for region routing) while
 * sending it to the loopback server.
 */
import { Agent, Dispatcher } from 'undici';
import { Transport, type TransportOptions } from '../../src/http/index.js';
import { FAST_RETRY, json, startTestServer, type Handler, type SeenRequest, type TestServer } from '../http/helpers/test-server.js';

export const CREDS = { apiKey: 'the-api-key', secretKey: 'the-secret-key', managementKey: 'the-management-key' } as const;
export const BASIC = `Basic ${Buffer.from(`${CREDS.apiKey}:${CREDS.secretKey}`).toString('base64')}`;
export const BEARER = `Bearer ${CREDS.managementKey}`;

export interface Rig {
  server: TestServer;
  transport: Transport;
  /** The one request the server saw (fails when there were more or none). */
  only(): SeenRequest;
  close(): Promise<void>;
}

export async function rig(handler: Handler = (_req, res) => json(res, 200, {}), opts: TransportOptions = {}): Promise<Rig> {
  const server = await startTestServer(handler);
  const transport = new Transport({ endpoint: server.url, credentials: { ...CREDS }, retry: FAST_RETRY, ...opts });
  return {
    server,
    transport,
    only() {
      if (server.requests.length !== 1) throw new Error(`expected exactly 1 request, saw ${server.requests.length}`);
      return server.requests[0]!;
    },
    async close() {
      await transport.close();
      await server.close();
    },
  };
}

/** Plain text answer. */
export function text(res: Parameters<Handler>[1], status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(body);
}

/** Form body of a request as a map. */
export function form(r: SeenRequest): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(r.body));
}

/** Sends every request to `target` over real HTTP, recording the origin (scheme + host) it was meant for. */
export class RedirectingDispatcher extends Dispatcher {
  readonly origins: string[] = [];
  readonly #agent = new Agent();
  readonly #target: string;
  constructor(target: string) {
    super();
    this.#target = target;
  }
  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.origins.push(String(opts.origin));
    return this.#agent.dispatch({ ...opts, origin: this.#target }, handler);
  }
  override close(): Promise<void> {
    return this.#agent.close();
  }
  override destroy(): Promise<void> {
    return this.#agent.destroy();
  }
}

export { json };
