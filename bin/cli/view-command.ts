import type { S3SinkOptions } from '../../sinks/index.js';
import { startViewServer, type ViewServer, type ViewVideo } from '../../src/view/index.js';

export interface ViewCommandOptions {
  port?: number;
  host?: string;
  allowHosts?: readonly string[];
  s3?: S3SinkOptions;
  video?: ViewVideo;
  maxEventBytes?: number;
  maxReplayBytes?: number;
}

/**
 * Serves the archive until SIGINT or SIGTERM (or `signal`, for a stop asked before this command took the signals
 * over); prints the URL on stdout, and `warn`s when the server is reachable beyond this machine.
 */
export async function runViewCommand(
  archive: string,
  opts: ViewCommandOptions,
  signal: AbortSignal,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream } = process,
  warn: (message: string) => void = (message) => io.stderr.write(`warning: ${message}\n`),
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
    server = await startViewServer({
      archive,
      ...(opts.port !== undefined ? { port: opts.port } : {}),
      ...(opts.host !== undefined ? { host: opts.host } : {}),
      ...(opts.allowHosts ? { allowHosts: opts.allowHosts } : {}),
      ...(opts.s3 ? { s3: opts.s3 } : {}),
      ...(opts.video ? { video: opts.video } : {}),
      ...(opts.maxEventBytes !== undefined ? { maxEventBytes: opts.maxEventBytes } : {}),
      ...(opts.maxReplayBytes !== undefined ? { maxReplayBytes: opts.maxReplayBytes } : {}),
    });
    io.stdout.write(`${server.url}\n`);
    if (server.loopback) {
      io.stderr.write(`serving ${server.replays} replays of ${archive} on ${server.address} only; Ctrl-C stops\n`);
    } else {
      warn(
        `view has no authentication: anyone who can reach ${server.address} port ${server.port} reads every replay of ${archive}`,
      );
      io.stderr.write(
        `serving ${server.replays} replays of ${archive} on ${server.address} port ${server.port} as ${server.hosts.join(', ')}; Ctrl-C stops\n`,
      );
    }
    if (opts.video?.available === false) io.stderr.write(`no video downloads: ${opts.video.reason}\n`);
    await stopped;
  } finally {
    process.off('SIGINT', onStop);
    process.off('SIGTERM', onStop);
    signal.removeEventListener('abort', onStop);
    await server?.close();
  }
}
