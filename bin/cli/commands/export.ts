import type { Command } from 'commander';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exportReplays, type OutputFormat } from '../../../src/index.js';
import type { CliContext, Invocation } from '../context.js';
import { addLimitFlags } from '../flags.js';
import { checkReplayIdArg } from '../replay-ids.js';
import { addSinkFlags, drive, sinkSettingsOf, type SinkFlags } from '../sink-flags.js';
import { fileOutput, streamOutput } from '../file-output.js';
import { checkOneReplayExport, exportOneReplay } from '../one-replay-export.js';
import { outTarget } from '../out-target.js';

export function register(program: Command): Command {
  return addLimitFlags(
    addSinkFlags(
      program
        .command('export')
        .description('export the named replays (one already in --out, its files unchanged, is left alone)')
        .argument('<replay_id...>', 'replay ids (device_id/session_id)'),
    ),
  );
}

/** Where a one-off export wrote `key`, as a user opens it: a full path, or a `file://` link for an html page. */
function writtenPath(out: string, key: string, format: OutputFormat): string {
  if (/^s3:\/\//i.test(out)) return `${out.replace(/\/+$/, '')}/${key}`;
  const path = resolvePath(out, key);
  return format === 'html' ? pathToFileURL(path).href : path;
}

export async function run(opts: Invocation<SinkFlags>, context: CliContext): Promise<number> {
  const ids = opts.args;
  for (const id of ids) checkReplayIdArg(id);
  const target = await outTarget(opts.out, 'export', ids.length === 1);
  const settings = await sinkSettingsOf(opts, 'export');
  const oneReplay = target.kind === 'stdout' || target.kind === 'file';
  const run = await context.openRun({
    // A file's name says its format and compression.
    settings: target.kind === 'file' ? { ...settings, format: target.format, gzip: target.gzip } : settings,
    ...(oneReplay ? {} : { out: opts.out }),
    reporter: (s) => ({ showKey: (key) => writtenPath(opts.out, key, s.output.format) }),
  });
  try {
    if (target.kind === 'stdout' || target.kind === 'file') {
      checkOneReplayExport(ids, run.settings, target, opts.format);
      const library = await run.library();
      await exportOneReplay(
        ids[0]!,
        library,
        target.kind === 'file' ? await fileOutput(target.path) : streamOutput(context.stdout, 'json'),
      );
      if (target.kind === 'file') run.reporter.log('info', `ok ${ids[0]} → ${resolvePath(target.path)}`);
      return 0;
    }
    const library = await run.library();
    // A rerun leaves alone the replays already exported, their files unchanged: it takes up where this one stopped.
    context.markResumable();
    return await drive(exportReplays(ids, { run: library, skipUnchanged: true }), run.reporter, opts.out, {});
  } finally {
    await run.close();
  }
}
