import type { Command } from 'commander';
import { onRun } from '../../../src/pipeline/run.js';
import { BROWSER_ENV } from '../../../src/video/index.js';
import { startViewServer, type ViewServer, type ViewServerOptions } from '../../../src/view/index.js';
import { flagsOf, type CliContext, type Invocation } from '../context.js';
import {
  addLimitFlags,
  addS3AccessFlags,
  archiveOf,
  collect,
  durationFlag,
  limitsOf,
  portFlag,
  type LimitFlags,
  type S3ReadFlags,
  usage,
} from '../flags.js';
import { viewVideo } from '../view-video.js';

interface ViewFlags extends S3ReadFlags, LimitFlags {
  port?: number;
  host?: string;
  allowHost?: string[];
  browser?: string;
  renderLimit?: string;
}

export function register(program: Command): Command {
  return addLimitFlags(
    addS3AccessFlags(
      program
        .command('view')
        .description(
          'browse an archive (a folder or s3://bucket/prefix) in a browser: a web server (127.0.0.1 unless --host) with its index and a player; prints its URL',
        )
        .argument('<archive>', 'the archive: a folder (path or file:// URL) or s3://bucket/prefix')
        .option('--port <n>', 'port (default: any free port)', portFlag)
        .option(
          '--host <addr>',
          'address to listen on, e.g. 0.0.0.0 in a container (default 127.0.0.1); no authentication: anyone who can reach it reads the archive',
        )
        .option(
          '--allow-host <name>',
          'another name browsers may reach it by (a container service or DNS name; repeatable)',
          collect,
        )
        .option(
          '--browser <path>',
          `the Chromium that renders the index's video downloads (default: ${BROWSER_ENV}, else the npm package @sparticuz/chromium)`,
        )
        .option(
          '--render-limit <duration>',
          'the longest one video download may render (e.g. 90s, 20m; default 10m): then it is stopped, its render slot freed and the request answered 503',
        ),
    ),
    true,
  );
}

/** The flags of `view` bound into `startViewServer`'s options (the video renderer is added once the run is open). */
export function optionsOf(f: Invocation<ViewFlags>): ViewServerOptions {
  return { ...archiveOf(f.args[0]!, f), ...limitsOf(f), port: f.port, host: f.host, allowHosts: f.allowHost };
}

/** `--render-limit`'s milliseconds: a duration over 0 (a render given no time would fail every download). */
function renderLimitOf(value: string | undefined): number | undefined {
  const ms = durationFlag('--render-limit', value);
  if (ms === 0) usage('--render-limit: give a render some time, a duration over 0 (e.g. 90s or 20m)');
  return ms;
}

export async function run(context: CliContext): Promise<number> {
  context.releaseSignals();
  const flags = flagsOf<ViewFlags>(context);
  const options = optionsOf(flags);
  const cli = await context.openRun(options);
  try {
    const { run } = cli;
    const video = await viewVideo(
      { run },
      {
        browser: flags.browser,
        env: context.env,
        renderTimeLimitMs: renderLimitOf(flags.renderLimit),
      },
    );
    const warn = (message: string): void => cli.reporter.log('warn', message, { event: 'warning' });
    await serve(flags.args[0]!, { ...onRun(options, run), video }, context.signal, context, warn);
    return 0;
  } finally {
    await cli.close();
  }
}

/**
 * Serves the archive until SIGINT or SIGTERM (or `signal`, for a stop asked before this command took the signals
 * over); prints the URL on stdout, and `warn`s when the server is reachable beyond this machine.
 */
async function serve(
  archive: string,
  options: ViewServerOptions,
  signal: AbortSignal,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
  warn: (message: string) => void,
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
    server = await startViewServer(options);
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
    if (options.video?.available === false) io.stderr.write(`no video downloads: ${options.video.reason}\n`);
    await stopped;
  } finally {
    process.off('SIGINT', onStop);
    process.off('SIGTERM', onStop);
    signal.removeEventListener('abort', onStop);
    await server?.close();
  }
}
