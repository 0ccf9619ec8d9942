/**
 * A recording relay for the `api` tests: a loopback server in front of the sandbox that forwards every request as it
 * is and records both sides (what went over the wire: method, URL, headers, body bytes; the answer).
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Exchange {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  requestBody: string;
  requestBytes: Buffer;
  status: number;
  responseBody: Buffer;
}

/** Forwards every request to `target` as it is and pushes each exchange onto `seen`. */
export function startRelay(target: URL, seen: Exchange[]): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const requestBytes = Buffer.concat(chunks);
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (up) => {
          const body: Buffer[] = [];
          up.on('data', (c: Buffer) => body.push(c));
          up.on('end', () => {
            const responseBody = Buffer.concat(body);
            seen.push({
              method: req.method ?? '',
              url: req.url ?? '',
              headers: req.headers,
              requestBody: requestBytes.toString('utf8'),
              requestBytes,
              status: up.statusCode ?? 0,
              responseBody,
            });
            res.writeHead(up.statusCode ?? 502, up.headers);
            res.end(responseBody);
          });
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(requestBytes);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
