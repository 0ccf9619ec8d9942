import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

export interface StaticServer {
  /** Origin, e.g. `http://127.0.0.1:47613`. */
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * Serves the files of one folder (no listing, no parent escapes) on 127.0.0.1.
 * Tries `preferredPort` first so that recorded URLs stay the same from one recording to the next,
 * and falls back to a free port when it is taken.
 */
export async function serveFolder(root: string, preferredPort: number): Promise<StaticServer> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    const file = normalize(join(root, path));
    if (!file.startsWith(root + sep) || req.method !== 'GET') {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => {
        res.writeHead(200, {
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'cache-control': 'no-store',
        });
        res.end(body);
      },
      () => res.writeHead(404).end(),
    );
  });
  const port = await listen(server, preferredPort).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') return listen(server, 0);
    throw err;
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr !== null ? addr.port : port);
    });
  });
}
