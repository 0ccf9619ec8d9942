/** What an archive run is given and what it tells its caller (`runArchive`, archive-run.ts). */
import type { Archive } from '../../sinks/archive.js';
import type { ManifestCompactionResult, ManifestEntry } from '../../sinks/sink.js';
import type { AssetCapture } from '../assets/capture.js';
import type { ReplayInfo } from './export-replay.js';
import type { ReplayIo, ReplayNotice } from './replay-stream.js';

/** What happened to one replay in this run. */
export type ArchiveOutcome =
  | 'ok' // exported now
  | 'failed' // failure, recorded
  | 'quarantined' // failed with the same permanent cause in `quarantineAfter` runs: recorded so now, or left alone
  | 'empty' // no files yet, recorded; tried again next run
  | 'skipped' // recorded `skipped` (settling), or forgotten (a tombstone covers it: nothing written)
  | 'not_found' // a named replay the API does not list, recorded; nothing written
  | 'done-before' // already `ok` in the manifest with its output present: left alone (resume)
  | 'unchanged' // re-checked: same files as recorded, left alone
  | 'taken'; // a balanced run: another shard claimed it and wrote its line (settings.balance)

export type ArchiveEvent =
  | { type: 'listed'; count: number; complete: boolean }
  | { type: 'started'; replayId: string }
  /**
   * `entry`: the manifest line this run wrote for the replay; `done-before` and `unchanged` write none (a run keeps
   * no more of old lines than its decisions need, to resume large archives in bounded memory). `key`: the output's
   * key, for `ok`, `done-before` and `unchanged`. A replay still settling that an earlier run recorded so is
   * `skipped` with `reason` and no new entry; so is a replay a tombstone covers (`forget`), with reason `forgotten`.
   */
  | {
      type: 'result';
      replayId: string;
      outcome: ArchiveOutcome;
      entry?: ManifestEntry;
      key?: string;
      reason?: string;
      rechecked?: boolean;
    }
  | { type: 'notice'; notice: ReplayNotice }
  | { type: 'progress'; events: number }
  /** The manifest was folded into a snapshot (see `Sink.compactManifest`). */
  | { type: 'compacted'; result: ManifestCompactionResult }
  /** Folding the manifest failed: it stays as it was (nothing lost); the run goes on. */
  | { type: 'compaction-failed'; error: unknown }
  /** The archive's catalogue (found in the cache) was brought up to the manifest after a fold: its rows, the time. */
  | { type: 'catalogued'; rows: number; ms: number }
  /** It could not be: it stays as it was and is built again when next opened; the run goes on. */
  | { type: 'catalogue-failed'; error: unknown }
  /** A balanced run's shard 0 removed earlier runs' claims (`runs` of them), or could not: they stay; nothing else changes. */
  | { type: 'claims-cleared'; runs: number }
  | { type: 'claims-clear-failed'; error: unknown };

/** What a run goes through; how (order, settling, re-checks, shard, concurrency) is in its `Settings`. */
export interface ArchivePlan {
  /** Replays to consider, in the order they arrive (a listing, or records made from ids). */
  replays: AsyncIterable<ReplayInfo>;
  /** Skip replays recorded `ok` whose output exists (resume). `false` re-exports them. */
  resume: boolean;
  /** The listing's bound, fixed when the run starts (see `ListingBound`). */
  bound?: ListingBound | undefined;
  /** Export at most this many replays in this run; the rest wait for the next run. */
  max?: number | undefined;
  /**
   * Named replays (`export`): one of these recorded `ok` at this run's key under its policy, its output present, has
   * its files listed again and is left alone when they are the ones recorded (a rerun of an interrupted export takes
   * up where it stopped; a replay whose files changed is exported again). Without `resume` nothing folds.
   */
  skipUnchanged?: ReadonlySet<string> | undefined;
}

/**
 * The upper time bound of a run's listing, fixed at its start: a replay that started after `untilMs` waits for the
 * next run. A listing that keeps growing (replays arriving while the run pages) ends once `stallAfter` records in a
 * row (a full page) bring nothing new within the bound, whatever the API does with its own `end_time`.
 */
export interface ListingBound {
  untilMs: number;
  stallAfter: number;
}

/** What a run is handed besides its settings: the API, the downloader, the archive and the caller's hooks. */
export interface ArchiveIo extends Pick<ReplayIo, 'api' | 'download' | 'clock' | 'signal'> {
  archive: Archive;
  /**
   * Resolves once no request of the replay family waits for a slot of its adaptive window. A replay to export or
   * re-check starts only then, so the replays in progress follow what the API allows (the window kept full, not
   * overfilled), up to `settings.concurrency`. Absent: replays start as soon as a worker is free.
   */
  room?: ((signal: AbortSignal) => Promise<void>) | undefined;
  /** The run's asset capture; required when `settings.captureAssets` is on (each URL fetched once per run). */
  assets?: AssetCapture | undefined;
}
