import type { Command } from 'commander';
import { validatePlatformId } from '../../../src/cli/flags.js';
import { expiresAtIso } from '../../../src/archive-tools.js';
import type { CliContext, Invocation } from '../context.js';
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

export async function run(flags: Invocation<ListFlags>, context: CliContext): Promise<number> {
  const opts = { ...flags, replay: flags.replay ?? [] };
  if (opts.sort !== undefined && opts.sort !== 'asc' && opts.sort !== 'desc')
    usage(`--sort must be asc or desc (got ${opts.sort})`);
  if (opts.user !== undefined) validatePlatformId(opts.user);
  for (const id of opts.replay) checkReplayIdArg(id);
  const range = timeRangeOf(opts);
  const bounds = queryBounds(range);
  if (opts.replay.length > 100) usage('at most 100 --replay values');
  if (opts.user !== undefined && opts.replay.length > 0) usage('--user and --replay cannot be used together');
  const run = await context.openRun({ settings: deadlineOf(opts.requestDeadline) });
  try {
    const replays = (await run.library()).replays();
    const out = context.stdout;
    const table = opts.json !== true && out.isTTY === true ? new ListTable(out.columns ?? 80) : undefined;
    let n = 0;
    for await (const r of replays.listReplays(
      {
        ...(opts.user !== undefined ? { platformId: opts.user } : {}),
        ...(opts.replay.length > 0 ? { replayIds: opts.replay } : {}),
        ...(bounds.since !== undefined ? { startTime: bounds.since } : {}),
        ...(bounds.until !== undefined ? { endTime: bounds.until } : {}),
        ...(opts.sort !== undefined ? { sortOrder: opts.sort as 'asc' | 'desc' } : {}),
        ...(opts.pageSize !== undefined ? { pageSize: opts.pageSize } : {}),
      },
      { signal: context.signal },
    )) {
      const rec = r as unknown as Record<string, unknown>;
      const line: Record<string, unknown> = {};
      for (const k of [
        'replay_id',
        'session_id',
        'device_id',
        'platform_id',
        'start_time',
        'end_time',
        'retention_in_days',
      ])
        line[k] = rec[k];
      const expires = expiresAtIso(r.startMs, r.retention_in_days);
      if (expires !== undefined) line.expires_at = expires;
      if (!printListRecord(out, line, table)) await new Promise((res) => out.once('drain', res));
      n++;
      if (opts.max !== undefined && n >= opts.max) break;
    }
    const none = n === 0 ? noMatchMessage(range) : undefined;
    if (none !== undefined) context.plainReporter().log('info', none, { event: 'no_match' });
  } finally {
    await run.close();
  }
  return 0;
}
