/**
 * `runArchive`: runs a plan — each listed replay decided on (resume / recheck / settle, archive-decisions.ts) and
 * exported with bounded concurrency by one `ArchiveRun` (archive-run.ts), which owns the run's queue and state.
 */
import { ArchiveRun } from './archive-run.js';
import type { ArchiveEvent, ArchiveIo, ArchivePlan } from './archive-types.js';
import type { Settings } from './settings.js';

export type { ArchiveEvent, ArchiveIo, ArchiveOutcome, ArchivePlan, ListingBound } from './archive-types.js';
export { bounded, expiryOrder } from './archive-listing.js';
export { decideReplay, type ReplayDecision } from './archive-decisions.js';

/**
 * Runs a plan: each replay is decided (resume / recheck / settle) and exported with bounded concurrency; each
 * outcome is appended to the manifest as soon as it is known (after the sink committed the output), so a run killed
 * at any moment is picked up by the next one. Yields per-replay results and progress. An authentication failure (or
 * the caller's abort) stops the whole run and is thrown.
 */
export function runArchive(plan: ArchivePlan, settings: Settings, io: ArchiveIo): AsyncGenerator<ArchiveEvent> {
  return new ArchiveRun(plan, settings, io).events();
}
