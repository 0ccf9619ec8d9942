import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { archiveReplays, planArchive, type ArchiveOptions } from '../../../src/index.js';
import { onRun } from '../../../src/pipeline/run.js';
import { formatShard, resolveShard } from '../../../src/pipeline/shard.js';
import { DEFAULTS } from '../../../src/pipeline/defaults.js';
import { formatDuration } from '../../../src/pipeline/duration.js';
import { ENV } from '../../../src/pipeline/settings.js';
import { SHARD_ENV } from '../../../src/pipeline/shard.js';
import { validatePlatformId } from '../../../src/replay/validation.js';
import { flagsOf, type CliContext, type Invocation } from '../context.js';
import { printPlan } from '../dry-run.js';
import { durationFlag, positiveInt, usage, withDefault } from '../flags.js';
import { addSinkFlags, drive, writeOptionsOf, type SinkFlags } from '../sink-flags.js';
import { outTarget } from '../out-target.js';
import { countListed, noMatchMessage, queryBounds, TIME_FLAG_HELP, timeRangeOf } from '../time-flags.js';

interface ArchiveFlags extends SinkFlags {
  settle?: string;
  recheck?: string;
  order?: string;
  /** `false` with `--no-compact`. */
  compact?: boolean;
  quarantineAfter?: number;
  retryQuarantined?: boolean;
  user?: string;
  since?: string;
  until?: string;
  shard?: string;
  balance?: string;
  pageSize?: number;
  max?: number;
  dryRun?: boolean;
}

export function register(program: Command): Command {
  return addSinkFlags(
    program
      .command('archive')
      .description('export every listed replay; resumable (re-run with the same --out to continue)')
      .option('--user <platform_id>', withDefault('only this user (platform id, sent as amplitude_id)', 'all users'))
      .option('--since <time>', withDefault(TIME_FLAG_HELP.since, 'no bound'))
      .option('--until <time>', withDefault(TIME_FLAG_HELP.until, 'no bound'))
      .option(
        '--settle <duration>',
        withDefault(
          'skip replays that started less than this long ago',
          `${formatDuration(DEFAULTS.settleMs)}; ${formatDuration(DEFAULTS.sandboxSettleMs)} with --sandbox`,
        ),
      )
      .option(
        '--recheck <duration>',
        withDefault('re-list files of replays archived within this window; re-export if changed', 'off'),
      )
      .option(
        '--order <order>',
        withDefault('start (as listed) or expiry (closest to deletion first; lists everything first)', DEFAULTS.order),
      )
      .option(
        '-n, --max <n>',
        withDefault('export at most n replays in this run; the rest wait for the next run', 'no limit'),
        positiveInt('--max'),
      )
      .option(
        '--page-size <n>',
        withDefault(
          'replays per listing page (the spec states no maximum); the next page is read while one is exported',
          String(DEFAULTS.archiveListPageSize),
        ),
        positiveInt('--page-size'),
      )
      .option(
        '--shard <i/n>',
        withDefault(
          `only replays of shard i of n (or ${SHARD_ENV.kubernetesIndex} + ${SHARD_ENV.count}, or ${SHARD_ENV.batchIndex} + ${SHARD_ENV.batchSize})`,
          'all',
        ),
      )
      .option(
        '--balance <run>',
        withDefault(
          `shards sharing this --out share out the work, so they end together: <run> names the run, alike for its shards, new each run (or ${ENV.balance})`,
          'off',
        ),
      )
      .option(
        '--no-compact',
        withDefault(
          `do not fold the manifest into a snapshot (done at the end and every ${DEFAULTS.compactEvery.toLocaleString('en-US')}+ entries)`,
          'fold',
        ),
      )
      .option(
        '--quarantine-after <n>',
        withDefault(
          'quarantine a replay that failed with the same permanent cause (bad data) in n runs in a row: no longer tried, no longer failing the run',
          String(DEFAULTS.quarantineAfter),
        ),
        positiveInt('--quarantine-after'),
      )
      .option('--retry-quarantined', withDefault('try the quarantined replays again', 'off'))
      .option(
        '--dry-run',
        withDefault('list what would be exported and why others are skipped; no download, no write', 'off'),
      ),
  );
}

/** The flags of `archive` bound into `archiveReplays`' options (each flag's syntax checked; values by the run). */
export async function optionsOf(f: Invocation<ArchiveFlags>, range = timeRangeOf(f)): Promise<ArchiveOptions> {
  if (f.user !== undefined) validatePlatformId(f.user);
  if ((await outTarget(f.out, 'archive', false)).kind === 'stdout')
    usage('archive writes to a folder or s3://bucket/prefix; --out - is for `export <one replay id>`');
  const { since, until } = queryBounds(range);
  return {
    ...(await writeOptionsOf(f)),
    settleMs: durationFlag('--settle', f.settle),
    recheckMs: durationFlag('--recheck', f.recheck),
    order: f.order as ArchiveOptions['order'],
    compactManifest: f.compact,
    quarantineAfter: f.quarantineAfter,
    retryQuarantined: f.retryQuarantined,
    runId: randomUUID(),
    shard: f.shard === undefined ? undefined : resolveShard(f.shard, {}),
    balance: f.balance === undefined ? undefined : { run: f.balance },
    platformId: f.user,
    since,
    until,
    listPageSize: f.pageSize,
    max: f.max,
  };
}

export async function run(context: CliContext): Promise<number> {
  const flags = flagsOf<ArchiveFlags>(context);
  const range = timeRangeOf(flags);
  const options = await optionsOf(flags, range);
  const cli = await context.openRun(options, {
    api: true,
    job: true,
    // On a terminal the per-replay lines of a large archive would bury the failures: those and the progress line.
    reporter: { replayLines: context.format === 'text' && context.stderr.isTTY === true ? 'failures' : 'all' },
  });
  try {
    const { reporter } = cli;
    const { settings } = cli.run;
    const archive = onRun(options, cli.connect());
    if (flags.dryRun) {
      await printPlan(planArchive(archive), context.format === 'json', reporter, context.stdout);
      return 0;
    }
    context.markResumable();
    if (settings.order === 'expiry') reporter.log('info', 'order expiry: listing every replay before the first export');
    const counter = { listed: 0 };
    const code = await drive(
      countListed(archiveReplays(archive), counter),
      reporter,
      flags.out,
      settings.shard ? { shard: formatShard(settings.shard) } : {},
    );
    const none = counter.listed === 0 ? noMatchMessage(range) : undefined;
    if (none !== undefined) reporter.log('info', none, { event: 'no_match' });
    return code;
  } finally {
    await cli.close();
  }
}
