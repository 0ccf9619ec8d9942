/**
 * A small real HTTP server on 127.0.0.1 for transport and client tests: records every request, counts
 * requests in flight (and the most seen at once), and lets each test answer as it likes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (
  req: IncomingMessage & { bodyText: string },
  res: ServerResponse,
  n: number,
) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  /** Requests currently being handled. */
  readonly inFlight: number;
  /** Most requests handled at the same time. */
  readonly maxInFlight: number;
  setHandler(h: Handler): void;
  close(): Promise<void>;
}

export async function startTestServer(handler: Handler): Promise<TestServer> {
  let current = handler;
  let inFlight = 0;
  let maxInFlight = 0;
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        inFlight--;
      }
    };
    res.once('close', finish);
    res.once('finish', finish);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bodyText = Buffer.concat(chunks).toString('utf8');
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        path: u.pathname,
        query: u.searchParams,
        headers: req.headers,
        body: bodyText,
      });
      const n = requests.length;
      Promise.resolve(current(Object.assign(req, { bodyText }), res, n)).catch((err: unknown) => {
        if (!res.headersSent) {
          res.statusCode = 500;
          res.end(String(err));
        } else res.destroy();
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    setHandler(h) {
      current = h;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Transport options that keep tests fast: tiny backoff, short timeouts. */
export const FAST_RETRY = { baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 50, retries: 3 } as const;
