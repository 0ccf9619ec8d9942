import type { Command } from 'commander';
import { DEFAULTS } from '../../../src/cli/flags.js';
import type { CliContext, Invocation } from '../context.js';
import {
  addLimitFlags,
  addS3AccessFlags,
  limitsOf,
  positiveInt,
  s3ReadOptions,
  withDefault,
  type LimitFlags,
  type S3ReadFlags,
} from '../flags.js';
import { runVerifyCommand } from '../verify-command.js';

interface VerifyFlags extends S3ReadFlags, LimitFlags {
  concurrency?: number;
}

export function register(program: Command): Command {
  return addLimitFlags(
    addS3AccessFlags(
      program
        .command('verify')
        .description(
          "re-read an archive (a folder or s3://bucket/prefix) against its manifest: each archived replay's object, size, SHA-256, " +
            'events and checks, and stored outputs no entry names; exit 1 on any problem',
        )
        .argument('<archive>', 'the archive: a folder (path or file:// URL) or s3://bucket/prefix')
        .option(
          '--concurrency <n>',
          withDefault('objects read at once', DEFAULTS.concurrency),
          positiveInt('--concurrency'),
        ),
    ),
    true,
  );
}

export async function run(opts: Invocation<VerifyFlags>, context: CliContext): Promise<number> {
  const run = await context.openRun({
    settings: {
      ...limitsOf(opts),
      ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
      sinkOptions: { s3: s3ReadOptions(opts) },
    },
  });
  try {
    const { settings } = run;
    return await runVerifyCommand(
      opts.args[0]!,
      {
        s3: settings.sinkOptions.s3,
        concurrency: settings.concurrency,
        maxEventBytes: settings.maxEventBytes,
        maxReplayBytes: settings.maxReplayBytes,
        fastPath: settings.fastPath,
        signal: context.signal,
      },
      run.reporter,
    );
  } finally {
    await run.close();
  }
}
