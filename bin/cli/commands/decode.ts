import type { Command } from 'commander';
import type { CliContext, Invocation } from '../context.js';
import { decodeFiles } from '../decode-command.js';
import { addLimitFlags, limitsOf, usage, withDefault, type LimitFlags } from '../flags.js';

interface DecodeFlags extends LimitFlags {
  out?: string;
  version?: string;
}

export function register(program: Command): Command {
  return addLimitFlags(
    program
      .command('decode')
      .description('decode local replay files (v2/v3, auto-detected) into one JSON array, in the order given (the files of one replay)')
      .argument('<file...>', 'replay files')
      .option('--out <file>', withDefault('write to this file instead of stdout', 'stdout'))
      .option('--version <n>', withDefault('force the file version (2 or 3)', 'sniffed from each file')),
  );
}

export async function run(opts: Invocation<DecodeFlags>, context: CliContext): Promise<number> {
  if (opts.version !== undefined && opts.version !== '2' && opts.version !== '3') usage(`--version must be 2 or 3 (got ${opts.version})`);
  const run = await context.openRun({ settings: limitsOf(opts) });
  try {
    const { settings } = run;
    await decodeFiles(
      opts.args,
      {
        ...(opts.out !== undefined ? { out: opts.out } : {}),
        ...(opts.version !== undefined ? { version: Number(opts.version) as 2 | 3 } : {}),
        maxEventBytes: settings.maxEventBytes,
        maxReplayBytes: settings.maxReplayBytes,
        fastPath: settings.fastPath,
      },
      context.stdout,
    );
    return 0;
  } finally {
    await run.close();
  }
}
