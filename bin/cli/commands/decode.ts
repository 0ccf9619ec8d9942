import type { Command } from 'commander';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { decodeEventBytes, ReplayBudget, type DecodeOptions, type FileVersion } from '../../../decoders/index.js';
import type { RunOptions, Settings } from '../../../src/index.js';
import { pathKind } from '../out-target.js';
import { flagsOf, type CliContext, type CliOutput, type Invocation } from '../context.js';
import { fileOutput, streamOutput } from '../file-output.js';
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

/** The flags of `decode` as a run's options: its limits (the run reads `REPLAY_EXPORT_WASM`, checks the ranges). */
export function optionsOf(f: Invocation<DecodeFlags>): Pick<RunOptions, 'maxEventBytes' | 'maxReplayBytes'> {
  if (f.version !== undefined && f.version !== '2' && f.version !== '3')
    usage(`--version must be 2 or 3 (got ${f.version})`);
  return limitsOf(f);
}

/** Refuses an input that is not a file and an `--out` that is a folder, before anything is written. */
async function checkPaths(f: Invocation<DecodeFlags>): Promise<void> {
  // Checked before anything is written: a missing input must not leave a `[` on stdout or a file half made.
  for (const file of f.args) {
    const kind = await pathKind(file);
    if (kind !== 'file')
      usage(`decode ${file}: ${kind === 'none' ? 'no such file' : 'not a file'}; give replay files (decode <file>...)`);
  }
  if (f.out !== undefined && (await pathKind(f.out)) === 'folder')
    usage(
      `--out ${f.out} is a folder; decode writes one file: give its name (e.g. --out ${join(f.out, 'replay.json')}) or leave --out out for stdout`,
    );
}

export async function run(context: CliContext): Promise<number> {
  const flags = flagsOf<DecodeFlags>(context);
  const cli = await context.openRun(optionsOf(flags));
  try {
    await checkPaths(flags);
    const { settings } = cli.run;
    const version: FileVersion | 'auto' = flags.version === undefined ? 'auto' : (Number(flags.version) as FileVersion);
    const decoding = { version, maxEventBytes: settings.maxEventBytes, fastPath: settings.fastPath };
    await decodeFiles(flags.args, flags.out, decoding, settings, context.stdout);
    return 0;
  } finally {
    await cli.close();
  }
}

/**
 * `decode <file>...`: decodes local replay files (version 2 or 3, gzip or not; sniffed unless forced), in the order
 * given, into one JSON array. Streams: one file at a time, batches of events, never the whole array in memory. The
 * files are taken as one replay's: `maxReplayBytes` counts their inflated bytes together.
 */
async function decodeFiles(
  files: readonly string[],
  out: string | undefined,
  decoding: Pick<DecodeOptions, 'version' | 'maxEventBytes' | 'fastPath'>,
  settings: Settings,
  stdout: CliOutput,
): Promise<number> {
  const replayBudget = new ReplayBudget(settings.maxReplayBytes);
  const output = out !== undefined ? await fileOutput(out) : streamOutput(stdout);
  let count = 0;
  try {
    await output.write(OPEN);
    for (const file of files) {
      const source = createReadStream(file);
      for await (const batch of decodeEventBytes(source, { ...decoding, file, replayBudget })) {
        if (batch.length === 0) continue;
        const parts: Buffer[] = [];
        for (const ev of batch) {
          if (count > 0) parts.push(COMMA);
          parts.push(ev);
          count++;
        }
        await output.write(Buffer.concat(parts));
      }
    }
    await output.write(CLOSE);
    await output.done();
    return count;
  } catch (err) {
    await output.fail();
    throw err;
  }
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']\n');
