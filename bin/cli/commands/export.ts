import type { Command } from 'commander';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exportReplays, type OutputFormat } from '../../../src/index.js';
import type { CliContext, Invocation } from '../context.js';
import { addLimitFlags } from '../flags.js';
import { checkReplayIdArg } from '../replay-ids.js';
import { addSinkFlags, drive, sinkSettingsOf, type SinkFlags } from '../sink-flags.js';
import { checkStdoutExport, exportToStdout, isStdoutTarget } from '../stdout-export.js';

export function register(program: Command): Command {
  return addLimitFlags(
    addSinkFlags(
      program
        .command('export')
        .description('export the named replays (always, whatever the manifest says)')
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
  const run = await context.openRun({
    settings: await sinkSettingsOf(opts, 'export'),
    ...(isStdoutTarget(opts.out) ? {} : { out: opts.out }),
    reporter: (settings) => ({ showKey: (key) => writtenPath(opts.out, key, settings.output.format) }),
  });
  try {
    if (isStdoutTarget(opts.out)) {
      checkStdoutExport(ids, run.settings);
      await exportToStdout(ids[0]!, await run.library(), context.stdout);
      return 0;
    }
    const library = await run.library();
    context.markResumable();
    return await drive(exportReplays(ids, { run: library }), run.reporter, opts.out, {});
  } finally {
    await run.close();
  }
}
