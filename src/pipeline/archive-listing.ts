/** The replays a run goes through, in the order it takes them: listed once each, this shard's, within the bound. */
import type { IdTable } from '../../sinks/id-table.js';
import type { ArchivePlan, ListingBound } from './archive-types.js';
import type { ReplayInfo } from './export-replay.js';
import { expiresAtMs, startOf } from './expiry.js';
import type { Settings } from './settings.js';
import { standInReplayId } from './manifest-entries.js';
import { inShard } from './shard.js';

/**
 * Replays listed several times (overlapping pages) are taken once; other shards' replays are left out (given to
 * `other` once each, when the run is balanced).
 */
export async function* candidates(
  plan: ArchivePlan,
  settings: Settings,
  seen: IdTable,
  onListed: (n: number, complete: boolean) => void,
  other?: (replay: ReplayInfo) => void,
): AsyncGenerator<ReplayInfo> {
  const { shard } = settings;
  const keep = (r: ReplayInfo): boolean => {
    if (seen.has(r.replay_id)) return false;
    if (!inShard(r.replay_id, shard)) {
      if (other === undefined) return false;
      seen.set(r.replay_id, 1);
      other(r);
      return false;
    }
    seen.set(r.replay_id, 1);
    return true;
  };
  if (settings.order === 'expiry') {
    const all: ReplayInfo[] = [];
    for await (const r of bounded(plan.replays, plan.bound)) if (keep(r)) all.push(r);
    onListed(all.length, true);
    yield* expiryOrder(all);
    return;
  }
  let n = 0;
  for await (const r of bounded(plan.replays, plan.bound)) {
    if (!keep(r)) continue;
    onListed(++n, false);
    yield r;
  }
  onListed(n, true);
}

/** Replays closest to deletion first (`--order expiry`). Stable: equal expiries keep listing order; unknown go last. */
export function expiryOrder(all: readonly ReplayInfo[]): ReplayInfo[] {
  const at = (r: ReplayInfo): number => expiresAtMs(startOf(r), r.retention_in_days) ?? Number.POSITIVE_INFINITY;
  return all
    .map((r, i) => ({ r, i, at: at(r) }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map((x) => x.r);
}

/**
 * The records of `replays` that started by the bound, each id within what a record may name (a longer one replaced by
 * its stand-in). A record whose start is unreadable or absurd (a client clock in
 * 2120) is kept: the run decides on it as before. Ends the listing once `stallAfter` records in a row were past it.
 */
export async function* bounded(
  replays: AsyncIterable<ReplayInfo>,
  bound: ListingBound | undefined,
): AsyncGenerator<ReplayInfo> {
  let past = 0;
  for await (const listed of replays) {
    const r = withRecordedId(listed);
    if (bound === undefined) {
      yield r;
      continue;
    }
    const start = startOf(r, bound.untilMs);
    if (start !== null && start > bound.untilMs) {
      if (++past >= bound.stallAfter) return;
      continue;
    }
    past = 0;
    yield r;
  }
}

/** A record whose id is too long to record goes on under its stand-in (`standInReplayId`), marked `idBytes`. */
function withRecordedId(r: ReplayInfo): ReplayInfo {
  const recorded = standInReplayId(r.replay_id);
  return recorded.idBytes === undefined ? r : { ...r, ...recorded };
}
