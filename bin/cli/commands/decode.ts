import type { Command } from 'commander';
import { join } from 'node:path';
import { pathKind } from '../out-target.js';
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
      .description(
        'decode local replay files (v2/v3, auto-detected) into one JSON array, in the order given (the files of one replay)',
      )
      .argument('<file...>', 'replay files')
      .option('-o, --out <file>', withDefault('write to this file instead of stdout', 'stdout'))
      .option('--version <n>', withDefault('force the file version (2 or 3)', 'sniffed from each file')),
  );
}

export async function run(opts: Invocation<DecodeFlags>, context: CliContext): Promise<number> {
  if (opts.version !== undefined && opts.version !== '2' && opts.version !== '3')
    usage(`--version must be 2 or 3 (got ${opts.version})`);
  const run = await context.openRun({ settings: limitsOf(opts) });
  try {
    // Checked before anything is written: a missing input must not leave a `[` on stdout or a file half made.
    for (const file of opts.args) {
      const kind = await pathKind(file);
      if (kind !== 'file')
        usage(
          `decode ${file}: ${kind === 'none' ? 'no such file' : 'not a file'}; give replay files (decode <file>...)`,
        );
    }
    if (opts.out !== undefined && (await pathKind(opts.out)) === 'folder')
      usage(
        `--out ${opts.out} is a folder; decode writes one file: give its name (e.g. --out ${join(opts.out, 'replay.json')}) or leave --out out for stdout`,
      );
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
