import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import {
  DEFAULT_FORGET_REASON,
  forgetReplays,
  type ForgetOptions,
  type ForgetReport,
  type ForgottenReplay,
} from '../../../src/archive.js';
import { onRun } from '../../../src/pipeline/run.js';
import { validatePlatformId } from '../../../src/replay/validation.js';
import { flagsOf, type CliContext, type Invocation } from '../context.js';
import { addS3AccessFlags, archiveOf, collect, usage, withDefault, type S3ReadFlags } from '../flags.js';
import { counted } from '../progress.js';
import { checkReplayIdArg } from '../replay-ids.js';
import type { Reporter } from '../reporter.js';
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

/** The flags of `forget` bound into `forgetReplays`' options. */
export async function optionsOf(f: Invocation<ForgetFlags>): Promise<ForgetOptions> {
  const replayIds = f.replay ?? [];
  if (f.user === undefined && replayIds.length === 0)
    usage('forget needs what to forget: --user <platform_id> (a user) or --replay <replay_id> (repeatable)');
  if (f.user !== undefined && replayIds.length > 0)
    usage('forget takes --user <platform_id> or --replay <replay_id>, not both');
  if (f.user !== undefined) validatePlatformId(f.user);
  for (const id of replayIds) checkReplayIdArg(id);
  if (f.out.trim() === '' || (await outTarget(f.out, 'forget', false)).kind === 'stdout')
    usage('--out must be the archive: a folder or s3://bucket/prefix');
  return {
    ...archiveOf(f.out, f),
    platformId: f.user,
    replayIds,
    reason: f.reason,
    dryRun: f.dryRun === true,
    runId: randomUUID(),
  };
}

export async function run(context: CliContext): Promise<number> {
  const options = await optionsOf(flagsOf<ForgetFlags>(context));
  const cli = await context.openRun(options);
  try {
    // Interrupted, the same command finishes the job (tombstones already written are not written twice).
    context.markResumable();
    const report = await runForget(onRun(options, cli.run), cli.reporter, context.plainReporter());
    return report.replays.some((r) => r.error !== undefined) ? 1 : 0;
  } finally {
    await cli.close();
  }
}

/**
 * `forget`: runs `forgetReplays` and reports each replay on stderr (text, or one JSON object a line), then a summary
 * (`summary` reports it even with --quiet). Resolves with the report; a replay whose outputs could not be deleted
 * is an error line (exit 1 from the caller). With `dryRun`, each line says what would be done (`dry_run: true`).
 */
async function runForget(options: ForgetOptions, reporter: Reporter, summary: Reporter): Promise<ForgetReport> {
  const report = await forgetReplays(options);
  const dry = report.dryRun;
  const dryRun = dry ? true : undefined;
  if (report.user !== undefined) {
    const { platformId, entry } = report.user;
    const done = dry ? 'would record its tombstone' : 'tombstone recorded, later runs skip every replay of this user';
    reporter.log(
      'info',
      entry !== undefined
        ? `${dry ? 'would forget' : 'forgot'} user ${platformId}: ${done}`
        : `user ${platformId} already forgotten (its tombstone is recorded)`,
      { event: 'forgotten_user', dry_run: dryRun, platform_id: platformId, tombstone: entry !== undefined },
    );
  }
  for (const r of report.replays) reportReplay(r, dry, reporter);
  const removed = report.replays.reduce((n, r) => n + r.removed.length, 0);
  const assets = report.replays.reduce((n, r) => n + r.removedAssets.length, 0);
  const failed = report.replays.filter((r) => r.error !== undefined).length;
  const forgotten = counted(report.replays.length, 'replay');
  summary.log(
    !dry && failed > 0 ? 'error' : 'info',
    dry
      ? `Dry run (${report.target}): ${forgotten} would be forgotten, ${counted(removed, 'output')} and ${counted(assets, 'captured asset')} removed; nothing was written`
      : `Summary (${report.target}): ${forgotten} forgotten, ${counted(removed, 'output')} removed, ${assets > 0 ? `${counted(assets, 'captured asset')} removed, ` : ''}${failed} failed`,
    {
      event: 'summary',
      dry_run: dryRun,
      target: report.target,
      forgotten: report.replays.length,
      removed,
      removed_assets: assets,
      failed: dry ? undefined : failed,
      platform_id: report.user?.platformId,
    },
  );
  return report;
}

/** One replay's line: what was (or, `dry`, would be) recorded and removed, or why its removal failed. */
function reportReplay(r: ForgottenReplay, dry: boolean, reporter: Reporter): void {
  const fields = {
    event: 'forgotten',
    dry_run: dry ? true : undefined,
    replay_id: r.replayId,
    tombstone: r.entry !== undefined,
    removed: r.removed,
    removed_assets: r.removedAssets,
  };
  if (r.error !== undefined && !dry) {
    const state = r.tombstoned ? 'tombstone recorded' : 'no tombstone recorded';
    const text = `failed ${r.replayId}: ${r.error.message} (${state}; run the same forget again to finish)`;
    reporter.log('error', text, { ...fields, error: r.error });
    return;
  }
  const outputs =
    r.removed.length > 0 ? `${dry ? 'would remove' : 'removed'} ${r.removed.join(', ')}` : 'no output stored';
  const what =
    r.removedAssets.length > 0
      ? `${outputs} and ${counted(r.removedAssets.length, 'captured asset')} no other replay uses`
      : outputs;
  const tombstone = r.entry === undefined ? ' (tombstone already recorded)' : dry ? ', would record its tombstone' : '';
  reporter.log('info', `${dry ? 'would forget' : 'forgot'} ${r.replayId}: ${what}${tombstone}`, fields);
}
