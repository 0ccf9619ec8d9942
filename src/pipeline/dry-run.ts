import type { Archive } from '../../sinks/archive.js';
import { bounded, decideReplay, expiryOrder, type ArchivePlan, type ReplayDecision } from './archive.js';
import type { ReplayInfo } from './export-replay.js';
import { IdTable } from '../../sinks/id-table.js';
import { markStoredOutputs, readResumeState } from './resume-state.js';
import type { Settings } from './settings.js';
import { inShard } from './shard.js';

/**
 * What an archive run would do with one listed replay: `export` it, `recheck` it (list its files again and export
 * if they changed), or skip it because it is `done` (recorded `ok`, output present), `settling`, of another
 * `shard`, `forgotten` (a tombstone of `forget` covers it or its user), or `quarantined` (quarantine.ts).
 */
export interface PlannedReplay {
  replayId: string;
  action: ReplayDecision | 'shard' | 'forgotten' | 'quarantined';
  start_time?: string | undefined;
}

/** What bounds the run being planned: its listing's upper time bound and `max` (see `ArchivePlan`). */
export type PlanBounds = Pick<ArchivePlan, 'bound' | 'max'>;

/**
 * The decisions of an archive run without running it: reads the target's manifest and checks whether recorded
 * outputs exist, and nothing else — no files listing, no download, no write (not even the manifest or the target
 * folder). Replays listed twice are taken once, as a run takes them; the run's upper time bound, order and `max` hold
 * as they would: the plan ends where the run would (at the replay after its `max`-th export).
 */
export async function* planReplays(
  replays: AsyncIterable<ReplayInfo>,
  archive: Archive,
  settings: Settings,
  now: () => number,
  limits: PlanBounds = {},
): AsyncGenerator<PlannedReplay> {
  const keyFor = (id: string): string => archive.outputs.keyFor(id, settings.output);
  const state = await readResumeState(archive.manifest, {
    keyFor,
    now: now(),
    redaction: settings.redaction?.digest,
    captureAssets: settings.captureAssets !== undefined,
  });
  const listed = await markStoredOutputs(archive.outputs, state, keyFor);
  const seen = new IdTable();
  let exports = 0;
  for await (const replay of ordered(bounded(replays, limits.bound), settings)) {
    const id = replay.replay_id;
    if (seen.has(id)) continue;
    seen.set(id, 1);
    const base = { replayId: id, start_time: replay.start_time };
    if (!inShard(id, settings.shard)) {
      yield { ...base, action: 'shard' };
      continue;
    }
    if (state.forgotten(replay)) {
      yield { ...base, action: 'forgotten' };
      continue;
    }
    if (state.quarantined(id) && !settings.retryQuarantined) {
      yield { ...base, action: 'quarantined' };
      continue;
    }
    const present = state.doneAtKey(id) && (listed ? state.stored(id) : await archive.outputs.exists(keyFor(id)));
    const action = replay.notFound ? 'export' : decideReplay(replay, present, settings, now());
    // The run takes no replay to export after its `max`-th: it and the rest of the listing wait for the next run.
    if (action === 'export' && !replay.notFound && limits.max !== undefined && exports++ >= limits.max) return;
    yield { ...base, action };
  }
}

/** The listing in the order the run takes it (`--order expiry`: all of it, closest to deletion first). */
async function* ordered(replays: AsyncIterable<ReplayInfo>, settings: Settings): AsyncIterable<ReplayInfo> {
  if (settings.order !== 'expiry') return yield* replays;
  const all: ReplayInfo[] = [];
  for await (const r of replays) all.push(r);
  yield* expiryOrder(all);
}
