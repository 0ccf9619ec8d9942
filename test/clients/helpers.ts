/**
 * Shared setup of the client tests: a real loopback server (test/http/helpers/test-server.ts), a Transport aimed
 * at it with `endpoint`, and a dispatcher that keeps the real host of each request (for region routing) while
 * sending it to the loopback server.
 */
import { Agent, Dispatcher } from 'undici';
import { expect } from 'vitest';
import { Transport, ValidationError, type TransportOptions } from '../../src/http/index.js';
import {
  FAST_RETRY,
  json,
  startTestServer,
  type Handler,
  type SeenRequest,
  type TestServer,
} from '../http/helpers/test-server.js';

export const CREDS = {
  apiKey: 'the-api-key',
  secretKey: 'the-secret-key',
  managementKey: 'the-management-key',
} as const;
export const BASIC = `Basic ${Buffer.from(`${CREDS.apiKey}:${CREDS.secretKey}`).toString('base64')}`;
export const BEARER = `Bearer ${CREDS.managementKey}`;

export interface Rig {
  server: TestServer;
  transport: Transport;
  /** The one request the server saw (fails when there were more or none). */
  only(): SeenRequest;
  close(): Promise<void>;
}

export async function rig(
  handler: Handler = (_req, res) => json(res, 200, {}),
  opts: TransportOptions = {},
): Promise<Rig> {
  const server = await startTestServer(handler);
  // These tests check each client's requests and family caps; the host cap and cost budgets are tested in test/http/limits.test.ts.
  const transport = new Transport({
    endpoint: server.url,
    credentials: { ...CREDS },
    retry: FAST_RETRY,
    hostConcurrency: 100,
    budgets: { dashboard: [] },
    ...opts,
  });
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

/** Runs `call` and returns the one request it sent (fails when it sent none, or more than one). */
export async function requestOf(r: Rig, call: () => Promise<unknown>): Promise<SeenRequest> {
  const before = r.server.requests.length;
  await call();
  expect(r.server.requests.length).toBe(before + 1);
  return r.server.requests[before]!;
}

/** Checks that `p` rejects with a ValidationError naming `field`. */
export async function refused(p: Promise<unknown>, field: string): Promise<void> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, field).toBeInstanceOf(ValidationError);
  expect((err as ValidationError).field).toBe(field);
}

/** Checks that every call is refused with a ValidationError naming its field, and that none of them sent anything. */
export async function expectRefused(
  r: Rig,
  bad: readonly (readonly [() => Promise<unknown>, string])[],
): Promise<void> {
  for (const [call, field] of bad) await refused(call(), field);
  expect(r.server.requests).toHaveLength(0);
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
