import type { Command } from 'commander';
import { expiresAtIso } from '../../../src/pipeline/expiry.js';
import type { ListReplaysQuery } from '../../../src/clients/index.js';
import type { ReplayInfo, TimeRange } from '../../../src/index.js';
import { validatePlatformId } from '../../../src/replay/validation.js';
import { flagsOf, type CliContext, type Invocation } from '../context.js';
import { collect, deadlineOf, positiveInt, REQUEST_DEADLINE_HELP, usage, withDefault } from '../flags.js';
import { ListTable, printListRecord } from '../list-output.js';
import { checkReplayIdArg } from '../replay-ids.js';
import { noMatchMessage, queryBounds, TIME_FLAG_HELP, timeRangeOf } from '../time-flags.js';

interface ListFlags {
  user?: string;
  replay?: string[];
  sort?: string;
  pageSize?: number;
  max?: number;
  since?: string;
  until?: string;
  requestDeadline?: string;
  json?: boolean;
}

export function register(program: Command): Command {
  return program
    .command('list')
    .description('list replays as NDJSON on stdout, one record a line')
    .option('--user <platform_id>', withDefault('only this user (platform id, sent as amplitude_id)', 'all users'))
    .option('--replay <replay_id>', withDefault('only these replays (repeatable, up to 100)', 'all'), collect)
    .option('--sort <order>', withDefault('asc or desc', "the API's"))
    .option(
      '--page-size <n>',
      withDefault('listing page size (the spec states no maximum)', "the API's"),
      positiveInt('--page-size'),
    )
    .option('-n, --max <n>', withDefault('stop after n records', 'all'), positiveInt('--max'))
    .option('--since <time>', withDefault(TIME_FLAG_HELP.since, 'no bound'))
    .option('--until <time>', withDefault(TIME_FLAG_HELP.until, 'no bound'))
    .option('--request-deadline <duration>', REQUEST_DEADLINE_HELP)
    .option('--json', withDefault('NDJSON on stdout even on a terminal', 'a table on a terminal, NDJSON otherwise'));
}

/** The flags of `list` bound into the listing's query (`run.replays().listReplays(query)`). */
export function queryOf(f: Invocation<ListFlags>, range: TimeRange): ListReplaysQuery {
  const replayIds = f.replay ?? [];
  if (f.sort !== undefined && f.sort !== 'asc' && f.sort !== 'desc')
    usage(`--sort must be asc or desc (got ${f.sort})`);
  if (f.user !== undefined) validatePlatformId(f.user);
  for (const id of replayIds) checkReplayIdArg(id);
  const bounds = queryBounds(range);
  if (replayIds.length > 100) usage('at most 100 --replay values');
  if (f.user !== undefined && replayIds.length > 0) usage('--user and --replay cannot be used together');
  return {
    platformId: f.user,
    replayIds: replayIds.length > 0 ? replayIds : undefined,
    startTime: bounds.since,
    endTime: bounds.until,
    sortOrder: f.sort as 'asc' | 'desc' | undefined,
    pageSize: f.pageSize,
  };
}

/** A listed replay as `list` prints it: the record's fields, and when it expires. */
function lineOf(r: ReplayInfo): Record<string, unknown> {
  const rec = r as unknown as Record<string, unknown>;
  const line: Record<string, unknown> = {};
  for (const k of LINE_FIELDS) line[k] = rec[k];
  const expires = expiresAtIso(r.startMs, r.retention_in_days);
  if (expires !== undefined) line.expires_at = expires;
  return line;
}

const LINE_FIELDS = [
  'replay_id',
  'session_id',
  'device_id',
  'platform_id',
  'start_time',
  'end_time',
  'retention_in_days',
];

export async function run(context: CliContext): Promise<number> {
  const flags = flagsOf<ListFlags>(context);
  const range = timeRangeOf(flags);
  const query = queryOf(flags, range);
  const cli = await context.openRun(deadlineOf(flags.requestDeadline), { api: true });
  try {
    const replays = cli.connect().replays();
    const out = context.stdout;
    const table = flags.json !== true && out.isTTY === true ? new ListTable(out.columns ?? 80) : undefined;
    let n = 0;
    for await (const r of replays.listReplays(query, { signal: context.signal })) {
      if (!printListRecord(out, lineOf(r), table)) await new Promise((res) => out.once('drain', res));
      n++;
      if (flags.max !== undefined && n >= flags.max) break;
    }
    const none = n === 0 ? noMatchMessage(range) : undefined;
    if (none !== undefined) context.plainReporter().log('info', none, { event: 'no_match' });
  } finally {
    await cli.close();
  }
  return 0;
}
