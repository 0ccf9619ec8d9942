import type { Command } from 'commander';
import type { CliContext, Invocation } from '../context.js';
import {
  addLimitFlags,
  addS3AccessFlags,
  collect,
  limitsOf,
  portFlag,
  s3ReadOptions,
  type LimitFlags,
  type S3ReadFlags,
} from '../flags.js';
import { BROWSER_ENV } from '../../../src/video/index.js';
import { runViewCommand } from '../view-command.js';
import { viewVideo } from '../view-video.js';

interface ViewFlags extends S3ReadFlags, LimitFlags {
  port?: number;
  host?: string;
  allowHost?: string[];
  browser?: string;
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
        ),
    ),
    true,
  );
}

export async function run(opts: Invocation<ViewFlags>, context: CliContext): Promise<number> {
  context.releaseSignals();
  const run = await context.openRun({ settings: { ...limitsOf(opts), sinkOptions: { s3: s3ReadOptions(opts) } } });
  try {
    const s3 = run.settings.sinkOptions.s3;
    const video = await viewVideo(opts.args[0]!, { s3, browser: opts.browser, env: context.env });
    const { maxEventBytes, maxReplayBytes } = run.settings;
    const options = {
      port: opts.port,
      host: opts.host,
      allowHosts: opts.allowHost,
      s3,
      video,
      maxEventBytes,
      maxReplayBytes,
    };
    const warn = (message: string): void => run.reporter.log('warn', message, { event: 'warning' });
    await runViewCommand(opts.args[0]!, options, context.signal, context, warn);
    return 0;
  } finally {
    await run.close();
  }
}
