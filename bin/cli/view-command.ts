import type { S3SinkOptions } from '../../sinks/index.js';
import { startViewServer, type ViewServer } from '../../src/view/index.js';

/**
 * Serves the archive until SIGINT or SIGTERM (or `signal`, for a stop asked before this command took the signals
 * over); prints the URL on stdout.
 */
export async function runViewCommand(
  archive: string,
  opts: { port?: number; s3?: S3SinkOptions },
  signal: AbortSignal,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream } = process,
): Promise<void> {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const onStop = (): void => stop();
  process.on('SIGINT', onStop);
  process.on('SIGTERM', onStop);
  signal.addEventListener('abort', onStop, { once: true });
  if (signal.aborted) stop();
  let server: ViewServer | undefined;
  try {
    server = await startViewServer({ archive, ...(opts.port !== undefined ? { port: opts.port } : {}), ...(opts.s3 ? { s3: opts.s3 } : {}) });
    io.stdout.write(`${server.url}\n`);
    io.stderr.write(`serving ${server.replays} replays of ${archive} on 127.0.0.1 only; Ctrl-C stops\n`);
    await stopped;
  } finally {
    process.off('SIGINT', onStop);
    process.off('SIGTERM', onStop);
    signal.removeEventListener('abort', onStop);
    await server?.close();
  }
}
