/**
 * The contract between the pipeline and wherever replays are kept.
 *
 * A sink receives each replay's events as already-serialised JSON (one Buffer per event, no raw newlines),
 * frames them in the requested format, and makes the result appear at its final key only when it is complete.
 * Sinks know nothing about HTTP or decoding.
 */

import type { Readable } from 'node:stream';
import type { CommitOptions } from './assets.js';
import type { PlayerOptions } from './player-page.js';

export type OutputFormat = 'json' | 'ndjson' | 'html';

export interface OutputSpec {
  /**
   * `json`: one JSON array of the replay's events. `ndjson`: one event a line. `html`: one self-contained page that
   * plays the replay offline with rrweb's Replayer (the events inside it as a JSON array).
   */
  format: OutputFormat;
  /** Gzip the output (`.gz` appended to the key). */
  gzip: boolean;
  /** `html`: the player's options (size, speed, autoplay, controls, skip inactivity); the page's URL overrides them. */
  player?: PlayerOptions | undefined;
}

export interface CommitResult {
  /** Final key relative to the target, with `/` separators. */
  key: string;
  /** Bytes of the stored object (after gzip, when gzip is on). */
  bytes: number;
  /** Hex SHA-256 of the stored bytes. */
  sha256: string;
  eventCount: number;
}

/**
 * Consecutive events in one buffer, joined by single `,` bytes: exactly the inside of a JSON array of them (each event
 * compact JSON, valid UTF-8, no raw CR/LF). The decoders hand a compact version 3 file's events over this way (views
 * into the inflated data), so a sink can write a whole run as one slice instead of framing every event.
 */
export interface EventRun {
  /** The events' bytes joined by `,`. */
  readonly bytes: Buffer;
  /** Exclusive end offset of each event in `bytes` (one entry per event); `bytes[ends[k]]` is the `,` after event k. */
  readonly ends: Int32Array;
}

/** One replay being written. Exactly one of `commit` or `abort` ends it. */
export interface ReplayWriter {
  /** Final key this replay will have (relative to the target). */
  readonly key: string;
  /** Appends events in order; resolves when the sink can take more (backpressure). */
  write(events: readonly Buffer[]): Promise<void>;
  /**
   * Optional fast path: appends the events of `runs` in order, with the same result as `write` of those events one
   * Buffer each (the pipeline uses it when present and falls back to `write` otherwise). A run that is not well
   * formed (ends not ascending, last end ≠ `bytes.length`, a byte other than `,` between events) or that holds a raw
   * CR/LF is refused with `SinkError` `SINK_BAD_EVENT`. The sink may read the runs' bytes until `commit` or `abort`
   * settles, so they must not be modified meanwhile.
   */
  writeRuns?(runs: readonly EventRun[]): Promise<void>;
  /**
   * Finishes the output durably and moves it to its final key. With `assets`, the `html` format embeds the replay's
   * captured assets, read back from the sink (stored with `putAsset` before).
   */
  commit(options?: CommitOptions): Promise<CommitResult>;
  /** Drops everything written so far; nothing appears at the final key. Safe to call more than once. */
  abort(reason?: unknown): Promise<void>;
}

/** `forgotten`: a tombstone written by `forget` (see `ForgottenEntry`); final: no later run exports the replay. */
export type ReplayStatus = 'ok' | 'failed' | 'quarantined' | 'skipped' | 'empty' | 'not_found' | 'forgotten';

export interface ManifestChecks {
  has_meta: boolean;
  has_full_snapshot: boolean;
  /** Longest gap between consecutive event timestamps, in ms (0 with fewer than two timestamps). */
  max_gap_ms: number;
  /** Whether any event's timestamp is lower than the one before it. */
  timestamps_backwards: boolean;
  /** The first Meta event's `href` (the page the recording starts on); absent when there is none. */
  first_url?: string | undefined;
  /** Console errors (rrweb's `rrweb/console@1` plugin events of level `error`); absent when none. */
  console_errors?: number | undefined;
}

/**
 * What happened in a replay, read from its events at export (src/pipeline/facts.ts; docs/VIEW.md "Facts" defines
 * each). Bounded whatever the recording: at most 16 URLs of 400 bytes and one message of 400 bytes; the rest counted.
 */
export interface ManifestFacts {
  /** Page loads (rrweb Meta events). */
  pages: number;
  /** The distinct page URLs, in the order first visited (at most 16, each cut to 400 bytes). */
  urls: string[];
  /** Page loads whose URL is not in `urls` (the list was full, or the Meta event unreadable). */
  urls_more?: number;
  clicks: number;
  rage_clicks: number;
  dead_clicks: number;
  /** Console errors (`rrweb/console@1` events of level `error`). */
  errors: number;
  /** The first console error's message (its arguments joined, cut to 400 bytes). */
  first_error?: string;
  /** When the first console error happened, in ms from the first event. */
  first_error_ms?: number;
  /** Requests in the recording's `rrweb/network@1` events; absent when it holds none. */
  network_requests?: number;
  /** Of those, the ones that failed (HTTP status ≥ 400, or 0: no answer). */
  network_failed?: number;
  /** From the first event's timestamp to the last's. */
  duration_ms: number;
  /** Time with user interaction (gaps of at most 5 s between interactions). */
  active_ms: number;
  /** The first Meta event's width and height. */
  viewport?: { width: number; height: number };
}

export interface ManifestError {
  code: string;
  message: string;
  file_key?: string;
  status?: number;
  index?: number;
}

/** The fields every manifest line may have, whatever its status. */
interface ManifestEntryBase {
  replay_id: string;
  /** ISO 8601 UTC time the line was written. */
  recorded_at: string;
  run_id?: string;
  shard?: string;
  /** The user (platform id) the replay belongs to, as the listing gave it; absent when unknown. */
  platform_id?: number;
  start_time?: string;
  end_time?: string;
  /** start_time + retention_in_days, ISO 8601 UTC; absent when start_time cannot be read. */
  expires_at?: string;
  /** Hex SHA-256 digest of the redaction policy the output was written under; absent: none. */
  redaction?: string;
}

/** Exported: the output is stored at `key`, whole. */
export interface OkEntry extends ManifestEntryBase {
  status: 'ok';
  /** Output key relative to the target. */
  key: string;
  event_count: number;
  bytes: number;
  sha256: string;
  format: OutputFormat;
  gzip: boolean;
  /** Version of each file, in key order (absent when the keys are too long to list: see `file_keys_sha256`). */
  file_versions?: number[];
  /** Keys of the replay's files in key order, to notice late data on recheck (absent: see `file_keys_sha256`). */
  file_keys?: string[];
  /** How many files the replay has: with `file_keys_sha256`, in place of keys too long to list in one record. */
  file_count?: number;
  /**
   * Hex SHA-256 of the JSON array of the file keys (in key order), written in place of `file_keys` and
   * `file_versions` when listing them would take more than a record should (`MAX_INLINE_FILE_KEYS_BYTES`).
   */
  file_keys_sha256?: string;
  checks: ManifestChecks;
  /** What happened in the replay (absent in lines written before facts were recorded). */
  facts?: ManifestFacts;
  /** Captured assets (`--capture-assets`): each URL the replay references that was stored, → its SHA-256 (`_assets/<sha256>`). */
  assets?: Record<string, string>;
  /** The content type of each captured asset of `assets`, by SHA-256. */
  asset_types?: Record<string, string>;
  /**
   * In place of `assets` and `asset_types` when listing them would pass the record limit: how many URLs were captured,
   * and the hex SHA-256 of the JSON of their map (URL → SHA-256).
   */
  assets_count?: number;
  assets_sha256?: string;
  /** URLs the replay references that were not captured, → why (`origin not allowed`, `HTTP 404`, `too large`, ...). */
  assets_missing?: Record<string, string>;
  /**
   * Some of `assets_missing` failed for a reason that may pass (a timeout, 408, 429, 5xx, a reset): a later `archive`
   * run with asset capture exports the replay again, until they are captured or fail for good.
   */
  assets_retry?: true;
}

/** A permanent failure of this replay in this run; `error` names the file key and the reason. */
export interface FailedEntry extends ManifestEntryBase, Pick<OkEntry, 'file_keys' | 'file_count' | 'file_keys_sha256'> {
  status: 'failed';
  error: ManifestError;
  /**
   * A permanent cause (bad data: a corrupt file, an undecodable event, an oversized entry or id): the runs in a row
   * this replay failed with this same cause (code and file key), this one included. Absent for a cause that may pass.
   */
  attempts?: number;
}

/**
 * A replay that failed with the same permanent cause in `attempts` runs in a row (`quarantineAfter`): no longer
 * tried by `archive` (until `--retry-quarantined`), no longer failing its runs. `error` is the cause.
 */
export interface QuarantinedEntry extends Omit<FailedEntry, 'status' | 'attempts'> {
  status: 'quarantined';
  attempts: number;
}

/** Not exported in this run, for `reason` (e.g. `settling`). */
export interface SkippedEntry extends ManifestEntryBase {
  status: 'skipped';
  reason: string;
}

/** The files listing had no files yet (tried again by the next run); nothing written. */
export interface EmptyEntry extends ManifestEntryBase {
  status: 'empty';
  reason: string;
  file_keys: string[];
}

/** The API does not know the replay. */
export interface NotFoundEntry extends ManifestEntryBase {
  status: 'not_found';
  error: ManifestError;
}

/** A tombstone written by `forget`; final: no later run exports the replay (or the user's replays) into this target. */
export interface ForgottenEntry extends ManifestEntryBase {
  status: 'forgotten';
  /**
   * `replay` (this replay is forgotten) or `user` (every replay of `platform_id`, listed now or later, is forgotten;
   * `replay_id` is then a reserved id no replay has, see `userTombstoneId`).
   */
  scope: 'replay' | 'user';
  reason: string;
  /** The outputs it removes (recorded before they are deleted). */
  removed_keys?: string[];
  /** The captured assets (SHA-256) it removes, used by no other replay (recorded first). */
  removed_assets?: string[];
}

/**
 * One line of the manifest: one replay outcome in one run, each status with exactly its fields. The last line for a
 * replay_id is its state. Lines are written by the builders of `src/pipeline/manifest-entries.ts` only; a manifest is
 * input when read (written by older versions, or by hand): readers check what they use.
 */
export type ManifestEntry =
  | OkEntry
  | FailedEntry
  | QuarantinedEntry
  | SkippedEntry
  | EmptyEntry
  | NotFoundEntry
  | ForgottenEntry;

export interface ManifestCompaction {
  /**
   * The snapshot's name: `all`, or the shard as `<index>-of-<count>`. A compaction replaces the snapshots of its own
   * layout (`all`: every snapshot). The local sink keeps one snapshot of the whole target and ignores it.
   */
  layout: string;
  /** With a shard layout: the replays of the shard (S3 folds only their entries). */
  keep?: ((replayId: string) => boolean) | undefined;
  /**
   * Stops the fold (it rejects with the signal's reason): what it leaves reads the same, as after a kill, and the next
   * fold finishes the job. A run that is interrupted does not wait for its fold.
   */
  signal?: AbortSignal | undefined;
}

export interface ManifestCompactionResult {
  /** Whether a new snapshot was written. */
  compacted: boolean;
  /** Entries in the new snapshot (one per replay). */
  entries: number;
  /** Log entries (lines or objects) folded into it. */
  folded: number;
  /** Objects or files removed after it was written (folded log objects, replaced snapshots). */
  removed: number;
}

/** The work claims of one balanced run in one target (sinks/work-claims.ts says what they are). */
export interface WorkClaims {
  /**
   * Claims `replayId` for `holder` unless it is claimed: resolves `undefined` when this call made the claim, else the
   * holder named by the claim that was there.
   */
  take(replayId: string, holder: string): Promise<string | undefined>;
  /** Claims `replayId` for `holder` whatever is there (a shard taking back what an earlier process of its own held). */
  retake(replayId: string, holder: string): Promise<void>;
  /** Records that the holder of `replayId`'s claim has written its manifest line. */
  finish(replayId: string): Promise<void>;
  /** When the holder of `replayId`'s claim recorded its line written (ms since the epoch, the store's clock); undefined: not yet. */
  finishedAt(replayId: string): Promise<number | undefined>;
  /** Removes the claims of every other run in the target; resolves how many runs' claims were removed. */
  clearOtherRuns(): Promise<number>;
}

/**
 * What a target implements to receive replays: the built-in local and S3 sinks, or your own (the library's `sink`
 * option). The pipeline itself works on an `Archive` (sinks/archive.ts): `openArchive` wraps the built-in sinks, and
 * `archiveOfSink` adapts yours, checking once the optional members an entry needs.
 */
export interface Sink {
  /** Human-readable target, e.g. `/abs/path` or `s3://bucket/prefix`. Never contains credentials. */
  readonly target: string;
  /** Final key for a replay id in this layout (pure; same result as `open(...).key`). */
  keyFor(replayId: string, output: OutputSpec): string;
  /** Starts writing one replay to a temporary place. */
  open(replayId: string, output: OutputSpec): Promise<ReplayWriter>;
  /** Whether a complete output exists at the final key (for resume). */
  exists(key: string): Promise<boolean>;
  /**
   * Optional: the key of every replay output stored now (not the manifest, not staging objects), for a sink that
   * lists them far cheaper than it answers `exists` one key at a time (S3: 1,000 keys a request against a HEAD each).
   * A resume then lists once instead of asking per archived replay.
   */
  storedKeys?(): AsyncIterable<string>;
  /** Records one outcome durably; safe with several processes writing to the same target. */
  appendManifest(entry: ManifestEntry): Promise<void>;
  /**
   * Every manifest entry recorded so far (snapshots and the log since). Entries of one replay_id come oldest first
   * (the last is its state); local: the snapshot, then file order; S3: grouped by replay key, each replay's entries
   * in time order. With `keep`, entries of replays it refuses may be left out (S3 then fetches less); callers still
   * check, it is a hint.
   */
  readManifest(keep?: (replayId: string) => boolean): AsyncIterable<ManifestEntry>;
  /**
   * Optional: folds the manifest into a snapshot (the latest entry of each replay) written atomically, and removes
   * what it folded from the log; readers see the same final state before, during and after, and a crash at any
   * point loses nothing. Returns `compacted: false` when there was nothing to fold (or another process is folding).
   */
  /**
   * Optional (what a catalogue needs to know it is current): a string that changes whenever what `readManifest` reads
   * may have changed (an append, a fold), cheap to get (local: the manifest files' sizes and times; S3: one listing
   * of `_manifest/`).
   */
  manifestStamp?(): Promise<string | undefined>;
  compactManifest?(options: ManifestCompaction): Promise<ManifestCompactionResult>;
  /**
   * Optional (what `forget` needs): deletes the output at `key` and resolves whether one was there. Only a replay
   * output key of the layout (`<device>/<session>.<ext>`, see `isOutputKey`) is taken: anything else (the manifest,
   * staging, a path leaving the target) is refused with `SinkError` `SINK_PATH_ESCAPE`. A symbolic link is never
   * followed: a link at the key is removed itself, a linked folder on the way refuses the key.
   */
  remove?(key: string): Promise<boolean>;
  /**
   * Optional (what `--capture-assets` needs): stores an asset at `_assets/<digest>` (`digest`: the hex SHA-256 of
   * `body`, checked) unless it is there already; it appears whole or not at all (local: temporary file renamed into
   * place; S3: one PutObject, with `type` as its ContentType). Concurrent stores of one digest are harmless. With
   * `owner` (a replay id), an asset not stored yet is first claimed by it, durably (`_assets/_claims/<device>/<session>/
   * <sha256>`, see `assetClaims`): an export killed right after still leaves its assets known to `forget`.
   */
  putAsset?(digest: string, type: string, body: Buffer, owner?: string): Promise<void>;
  /** Optional: the stored asset of `digest`, streamed; undefined when there is none. */
  readAsset?(digest: string): Promise<Readable | undefined>;
  /** Optional (for `forget`): deletes the asset of `digest` (never through a link); true when it was there. */
  removeAsset?(digest: string): Promise<boolean>;
  /** Optional: the digests `replayId` claimed (see `putAsset`). */
  assetClaims?(replayId: string): AsyncIterable<string>;
  /** Optional: removes every claim of `replayId` (`forget`, once its assets are gone). */
  removeAssetClaims?(replayId: string): Promise<void>;
  /**
   * Optional (what `verify` lists): the key of every object under the target, the sink's own (manifest, assets,
   * claims, temporary and staging objects) included; links are listed, never followed.
   */
  storedObjects?(): AsyncIterable<string>;
  /**
   * Optional (what a balanced archive run needs): the work claims of the run named `run` in this target, under
   * `_balance/<run>/` (see sinks/work-claims.ts). Creating a claim must be atomic for any number of processes.
   */
  workClaims?(run: string): WorkClaims;
  close(): Promise<void>;
}
