/**
 * What a run does with a listed replay, decided without any request or write: pure functions of the replay, what the
 * manifest says of it and the run's settings.
 */
import { startOf } from './expiry.js';
import type { ReplayInfo } from './export-replay.js';
import type { Settings } from './settings.js';

/**
 * What a run does with a listed replay, before any request about it: `done` (recorded `ok`, output present: left
 * alone), `recheck` (the same, but started within `recheckMs`: its files are listed again and compared), `settling`
 * (started less than `settleMs` ago: recorded `skipped`), or `export`. `present` says whether the manifest records
 * it `ok` with its output at the key it would be written to (and the run resumes).
 */
export type ReplayDecision = 'done' | 'recheck' | 'settling' | 'export';

export function decideReplay(replay: ReplayInfo, present: boolean, settings: Settings, now: number): ReplayDecision {
  const start = startOf(replay, now);
  if (present)
    return settings.recheckMs !== undefined && start !== null && start >= now - settings.recheckMs ? 'recheck' : 'done';
  return settings.settleMs > 0 && start !== null && start > now - settings.settleMs ? 'settling' : 'export';
}

/** What the run knows of a listed replay before deciding on it. */
export interface ListedFacts {
  /** A named replay (`export`) the API does not list. */
  notFound: boolean;
  /** Named by the caller (`ArchivePlan.skipUnchanged`). */
  named: boolean;
  /** Recorded `ok` at this run's key with its output there. */
  present: boolean;
  /** Recorded `quarantined`, and the run leaves quarantined replays alone (an archive without `retryQuarantined`). */
  quarantined: boolean;
}

/** A run's decision on a listed replay: `decideReplay`'s, or one that comes before it. */
export type ListedDecision = 'not-found' | 'quarantined' | ReplayDecision;

export function decideListed(replay: ReplayInfo, facts: ListedFacts, settings: Settings, now: number): ListedDecision {
  if (facts.notFound) return 'not-found';
  if (facts.quarantined) return 'quarantined';
  if (facts.named && facts.present) return 'recheck';
  return decideReplay(replay, facts.present, settings, now);
}
