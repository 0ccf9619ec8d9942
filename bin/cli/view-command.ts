import { startViewServer } from '../../src/view/index.js';

/** Serves the archive until SIGINT or SIGTERM; prints the URL on stdout. */
export async function runViewCommand(archive: string, opts: { port?: number }): Promise<void> {
  const server = await startViewServer({ archive, ...(opts.port !== undefined ? { port: opts.port } : {}) });
  process.stdout.write(`${server.url}\n`);
  process.stderr.write(`serving ${server.replays} replays of ${archive} on 127.0.0.1 only; Ctrl-C stops\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
}
