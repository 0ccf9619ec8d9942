import type { Command } from 'commander';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { locateArchive } from '../../../sinks/archive.js';
import { exportReplays, type ExportReplaysOptions, type OutputFormat } from '../../../src/index.js';
import { onRun } from '../../../src/pipeline/run.js';
import { flagsOf, type CliContext, type Invocation } from '../context.js';
import { checkReplayIdArg } from '../replay-ids.js';
import { addSinkFlags, drive, writeOptionsOf, type SinkFlags } from '../sink-flags.js';
import { fileOutput, streamOutput } from '../file-output.js';
import { checkOneReplayExport, exportOneReplay } from '../one-replay-export.js';
import { outTarget, type OutTarget } from '../out-target.js';

export function register(program: Command): Command {
  return addSinkFlags(
    program
      .command('export')
      .description('export the named replays (one already in --out, its files unchanged, is left alone)')
      .argument('<replay_id...>', 'replay ids (device_id/session_id)'),
  );
}

/** Where a one-off export wrote `key`, as a user opens it: a full path, or a `file://` link for an html page. */
function writtenPath(out: string, key: string, format: OutputFormat): string {
  const at = locateArchive(out);
  if (at.kind === 's3') return `${at.target.replace(/\/+$/, '')}/${key}`;
  const path = resolvePath(at.target, key);
  return format === 'html' ? pathToFileURL(path).href : path;
}

/**
 * The flags of `export` bound into `exportReplays`' options: a rerun leaves alone the replays already exported, their
 * files unchanged. One replay to stdout or a file: no archive (`out`), the format and compression the file's name says.
 */
export async function optionsOf(f: Invocation<SinkFlags>, target: OutTarget): Promise<ExportReplaysOptions> {
  const options = { ...(await writeOptionsOf(f)), skipUnchanged: true };
  if (target.kind === 'stdout') return { ...options, out: undefined };
  if (target.kind === 'file') return { ...options, out: undefined, format: target.format, gzip: target.gzip };
  return options;
}

export async function run(context: CliContext): Promise<number> {
  const flags = flagsOf<SinkFlags>(context);
  const ids = flags.args;
  for (const id of ids) checkReplayIdArg(id);
  const target = await outTarget(flags.out, 'export', ids.length === 1);
  const options = await optionsOf(flags, target);
  const cli = await context.openRun(options, {
    api: true,
    reporter: (s) => ({ showKey: (key) => writtenPath(flags.out, key, s.output.format) }),
  });
  try {
    if (target.kind === 'stdout' || target.kind === 'file') {
      checkOneReplayExport(ids, cli.run.settings, target, flags.format);
      await exportOneReplay(
        ids[0]!,
        cli.connect(),
        target.kind === 'file' ? await fileOutput(target.path) : streamOutput(context.stdout),
      );
      if (target.kind === 'file') cli.reporter.log('info', `ok ${ids[0]} → ${resolvePath(target.path)}`);
      return 0;
    }
    const run = cli.connect();
    // A rerun leaves alone the replays already exported, their files unchanged: it takes up where this one stopped.
    context.markResumable();
    return await drive(exportReplays(ids, onRun(options, run)), cli.reporter, flags.out, {});
  } finally {
    await cli.close();
  }
}
