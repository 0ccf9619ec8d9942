import type { PlannedReplay } from '../../src/index.js';
import type { Reporter } from './reporter.js';
import { dataText } from './terminal-output.js';

type Action = PlannedReplay['action'];

/** How each decision is shown: what would happen, and why a replay is skipped. */
const SHOWN: Readonly<Record<Action, string>> = {
  export: 'export',
  recheck: 'recheck (export if its files changed)',
  done: 'skip (done: recorded ok, output present)',
  settling: 'skip (settling: started less than --settle ago)',
  shard: 'skip (shard: another shard exports it)',
  forgotten: 'skip (forgotten: a tombstone of forget covers it)',
  quarantined: 'skip (quarantined: failed the same way in --quarantine-after runs; --retry-quarantined)',
};

/**
 * `archive --dry-run`: one line per listed replay on stdout (text: `<action>  <id>`, or one JSON object a line with
 * `--log-format json`), then the counts on stderr. Resolves with the counts.
 */
export async function printPlan(
  plan: AsyncIterable<PlannedReplay>,
  json: boolean,
  reporter: Reporter,
  out: NodeJS.WritableStream & { isTTY?: boolean | undefined },
): Promise<Record<Action, number>> {
  const counts = Object.fromEntries(Object.keys(SHOWN).map((a) => [a, 0])) as Record<Action, number>;
  for await (const p of plan) {
    counts[p.action]++;
    const line = json
      ? JSON.stringify({
          replay_id: p.replayId,
          action: p.action === 'export' || p.action === 'recheck' ? p.action : 'skip',
          reason: p.action === 'export' || p.action === 'recheck' ? undefined : p.action,
          start_time: p.start_time,
        })
      : `${p.replayId}  ${SHOWN[p.action]}`;
    const shown = dataText(out, json ? 'json' : 'text', `${line}\n`);
    if (!out.write(shown)) await new Promise((resolve) => out.once('drain', resolve));
  }
  const skipped = counts.done + counts.settling + counts.shard + counts.forgotten + counts.quarantined;
  const forgotten =
    (counts.forgotten > 0 ? `, ${counts.forgotten} forgotten` : '') +
    (counts.quarantined > 0 ? `, ${counts.quarantined} quarantined` : '');
  reporter.log(
    'info',
    `dry run: ${counts.export} would be exported, ${counts.recheck} re-checked, ${skipped} skipped ` +
      `(${counts.done} done, ${counts.settling} settling, ${counts.shard} other shards${forgotten}); nothing downloaded or written`,
    {
      event: 'dry_run',
      would_export: counts.export,
      recheck: counts.recheck,
      done: counts.done,
      settling: counts.settling,
      shard: counts.shard,
      forgotten: counts.forgotten,
      quarantined: counts.quarantined,
    },
  );
  return counts;
}
