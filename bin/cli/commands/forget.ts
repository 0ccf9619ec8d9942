import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { validatePlatformId } from '../../../src/cli/flags.js';
import { DEFAULT_FORGET_REASON } from '../../../src/archive-tools.js';
import type { CliContext, Invocation } from '../context.js';
import { addS3AccessFlags, collect, s3ReadOptions, usage, withDefault, type S3ReadFlags } from '../flags.js';
import { runForget } from '../forget-command.js';
import { checkReplayIdArg } from '../replay-ids.js';
import { outTarget } from '../out-target.js';

interface ForgetFlags extends S3ReadFlags {
  out: string;
  user?: string;
  replay?: string[];
  reason?: string;
  dryRun?: boolean;
}

export function register(program: Command): Command {
  return addS3AccessFlags(
    program
      .command('forget')
      .description(
        "remove a user's or replays' outputs from an archive and record tombstones: no later run exports them again",
      )
      .requiredOption('-o, --out <archive>', 'the archive: a folder or s3://bucket/prefix (required)')
      .option(
        '--user <platform_id>',
        "forget this user: every replay its manifest entries name, and the user's replays listed later",
      )
      .option('--replay <replay_id>', 'forget this replay (repeatable)', collect)
      .option('--reason <text>', withDefault('why, recorded in each tombstone', DEFAULT_FORGET_REASON))
      .option(
        '--dry-run',
        withDefault(
          'show the tombstones, outputs and captured assets it would record and remove; write nothing',
          'off',
        ),
      ),
  );
}

export async function run(opts: Invocation<ForgetFlags>, context: CliContext): Promise<number> {
  const replayIds = opts.replay ?? [];
  if (opts.user === undefined && replayIds.length === 0)
    usage('forget needs what to forget: --user <platform_id> (a user) or --replay <replay_id> (repeatable)');
  if (opts.user !== undefined && replayIds.length > 0)
    usage('forget takes --user <platform_id> or --replay <replay_id>, not both');
  if (opts.user !== undefined) validatePlatformId(opts.user);
  for (const id of replayIds) checkReplayIdArg(id);
  if (opts.out.trim() === '' || (await outTarget(opts.out, 'forget', false)).kind === 'stdout')
    usage('--out must be the archive: a folder or s3://bucket/prefix');
  const run = await context.openRun({ settings: { sinkOptions: { s3: s3ReadOptions(opts) } } });
  try {
    // Interrupted, the same command finishes the job (tombstones already written are not written twice).
    context.markResumable();
    const report = await runForget(
      {
        out: opts.out,
        settings: run.settings,
        ...(opts.user !== undefined ? { platformId: opts.user } : { replayIds }),
        ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
        dryRun: opts.dryRun === true,
        runId: randomUUID(),
        signal: context.signal,
      },
      run.reporter,
      context.plainReporter(),
    );
    return report.replays.some((r) => r.error !== undefined) ? 1 : 0;
  } finally {
    await run.close();
  }
}
