import { replayIdFromKey } from '../../sinks/keys.js';
import type { ManifestStore, OutputStore } from '../../sinks/archive.js';
import type { ManifestEntry, OkEntry } from '../../sinks/sink.js';
import { IdTable } from '../../sinks/id-table.js';
import { plausibleStart } from './expiry.js';
import { inShard } from './shard.js';
import { parseTimestamp } from '../replay/timestamps.js';
import { forgottenUser, isUserTombstoneId, platformKey } from './tombstone.js';
import type { RecordedFileKeys } from './manifest.js';
import { recordedFailure, type RecordedFailure } from './quarantine.js';

/** The values kept per id: last entry of another status, `ok` at this run's key (and policy), `skipped` (settling). */
const OTHER = 0;
const DONE = 1;
const SETTLING = 2;
/** Done, and its output was seen in a listing of the target (`markStored`). */
const DONE_STORED = 3;
/** Last recorded `forgotten` (a tombstone). Like every state, a later entry of the id replaces it (as a fold keeps it). */
const FORGOTTEN = 4;
/** Last recorded `failed` with a permanent cause (`attempts`), or `quarantined`: its failure is kept (`failure`). */
const FAILED = 5;
const QUARANTINED = 6;

/** What a run needs to know of the manifest, per replay id: only what its decisions read, in bounded memory. */
export interface ResumeStateOptions {
  /** The key this run would write a replay to: an `ok` entry counts only at that key. */
  keyFor(replayId: string): string;
  /** Only ids of this shard are kept. */
  shard?: { index: number; count: number } | undefined;
  /** With a recheck window: the file keys of `ok` entries that started within it are kept (absent: none). */
  recheckMs?: number | undefined;
  now: number;
  /**
   * The digest of this run's redaction policy (undefined: none). An `ok` entry counts only when it was written under
   * the same policy (its `redaction` equals this): a policy added, changed or taken away exports the replay again.
   */
  redaction?: string | undefined;
  /**
   * This run captures assets: an `ok` entry whose capture met a failure that may pass (`assets_retry`) does not count,
   * so the replay is exported again (while the platform still lists it) until its assets are captured.
   */
  captureAssets?: boolean | undefined;
  /** Ids whose recorded file keys are kept whatever their start (`ArchivePlan.skipUnchanged`). */
  fileKeysOf?: ((replayId: string) => boolean) | undefined;
  /** Only the lines of these ids are read (a balanced shard confirming what others exported). */
  only?: ((replayId: string) => boolean) | undefined;
}

/**
 * The last manifest entry of each replay reduced to what the archive's decisions read: whether it is recorded `ok`
 * at this run's key or still settling, its permanent failure (quarantine.ts), and (inside the recheck window only) its
 * file keys. Only ids ever recorded `ok`, last recorded settling or failing for a permanent cause, or ever forgotten
 * take memory, in an {@link IdTable}: resuming a million archived replays holds tens of MiB, not the parsed entries (see
 * docs/PERFORMANCE.md, "Resume state"). `readManifestState` still gives whole entries, for tools that want them.
 */
export class ResumeState {
  readonly #ids = new IdTable();
  /** Per id, its recorded file keys, or their digest when the line records that instead (`file_keys_sha256`). */
  readonly #fileKeys = new Map<number, RecordedFileKeys>();
  /** Per id last recorded failing for a permanent cause (or quarantined), that failure. */
  readonly #failures = new Map<number, RecordedFailure>();
  /** Users (canonical platform ids) with a tombstone: one short string per forgotten user. */
  readonly #forgottenUsers = new Set<string>();
  #anyDone = false;
  #entries = 0;

  /** Entries of this shard read (the manifest's size, as far as this run is concerned). */
  get entries(): number {
    return this.#entries;
  }

  /**
   * Whether a tombstone covers the replay: its own (`forget --replay`), or its user's (`forget --user`, which also
   * covers replays of that user listed only later). A forgotten replay is never exported into this target again.
   */
  forgotten(replay: { replay_id: string; platform_id?: number | undefined }): boolean {
    if (this.#ids.get(replay.replay_id) === FORGOTTEN) return true;
    if (this.#forgottenUsers.size === 0) return false;
    const user = platformKey(replay.platform_id);
    return user !== undefined && this.#forgottenUsers.has(user);
  }

  /** Whether the last entry of `replayId` is `ok` at this run's key, under this run's redaction policy. */
  doneAtKey(replayId: string): boolean {
    const value = this.#ids.get(replayId);
    return value === DONE || value === DONE_STORED;
  }

  /** Whether any replay is done at this run's key (a resume has outputs to look for). */
  get anyDone(): boolean {
    return this.#anyDone;
  }

  /** Records that the output of `replayId`, done at this run's key, is in the target (seen in a listing of it). */
  markStored(replayId: string): void {
    if (this.#ids.get(replayId) === DONE) this.#ids.set(replayId, DONE_STORED);
  }

  /** Whether `markStored` saw the output of `replayId`. */
  stored(replayId: string): boolean {
    return this.#ids.get(replayId) === DONE_STORED;
  }

  /** Whether the last entry of `replayId` is `skipped` (settling): a run that skips it again has nothing to record. */
  settling(replayId: string): boolean {
    return this.#ids.get(replayId) === SETTLING;
  }

  /** The recorded file keys (or their digest) of a replay done at this run's key, when it started within the recheck window. */
  fileKeys(replayId: string): RecordedFileKeys | undefined {
    const i = this.#ids.indexOf(replayId);
    return i >= 0 ? this.#fileKeys.get(i) : undefined;
  }

  /** The permanent failure the last line of `replayId` records (`failed` with `attempts`, or `quarantined`). */
  failure(replayId: string): RecordedFailure | undefined {
    const i = this.#ids.indexOf(replayId);
    return i >= 0 ? this.#failures.get(i) : undefined;
  }

  /** Whether the last line of `replayId` is `quarantined`. */
  quarantined(replayId: string): boolean {
    return this.#ids.get(replayId) === QUARANTINED;
  }

  /** Takes one manifest entry (entries of one id in the order written: the last one counts). */
  add(entry: ManifestEntry, options: ResumeStateOptions): void {
    const id = entry.replay_id;
    // A user's tombstone counts in every shard (its replays are anywhere); read before the shard filter.
    const user = forgottenUser(entry);
    if (user !== undefined) this.#forgottenUsers.add(user);
    if (!inShard(id, options.shard)) return;
    this.#entries++;
    if (entry.status === 'forgotten') {
      const i = this.#ids.set(id, FORGOTTEN);
      this.#fileKeys.delete(i);
      this.#failures.delete(i);
      return;
    }
    const done =
      entry.status === 'ok' &&
      typeof entry.key === 'string' &&
      entry.key === options.keyFor(id) &&
      entry.redaction === options.redaction &&
      !(options.captureAssets === true && entry.assets_retry === true);
    if (!done) {
      const failure = recordedFailure(entry);
      if (failure !== undefined) {
        const i = this.#ids.set(id, failure.quarantined ? QUARANTINED : FAILED);
        this.#fileKeys.delete(i);
        this.#failures.set(i, failure);
        return;
      }
      const settling = entry.status === 'skipped' && entry.reason === 'settling';
      // Only ids once recorded `ok` or last recorded settling are in the table; a later entry of another status undoes that.
      const i = settling ? this.#ids.set(id, SETTLING) : this.#ids.indexOf(id);
      if (i >= 0) {
        if (!settling) this.#ids.set(id, OTHER);
        this.#fileKeys.delete(i);
        this.#failures.delete(i);
      }
      return;
    }
    const i = this.#ids.set(id, DONE);
    this.#failures.delete(i);
    this.#anyDone = true;
    const recorded = keepsFileKeys(entry, options);
    if (recorded !== undefined) this.#fileKeys.set(i, recorded);
    else this.#fileKeys.delete(i);
  }
}

function keepsFileKeys(entry: OkEntry, options: ResumeStateOptions): RecordedFileKeys | undefined {
  const recorded = Array.isArray(entry.file_keys)
    ? entry.file_keys
    : typeof entry.file_keys_sha256 === 'string'
      ? entry.file_keys_sha256
      : undefined;
  if (recorded === undefined) return undefined;
  if (options.fileKeysOf?.(entry.replay_id) === true) return recorded;
  if (options.recheckMs === undefined) return undefined;
  // An unreadable start cannot be placed outside the window: kept, so a recheck compares rather than re-exports.
  const start = entry.start_time !== undefined ? plausibleStart(parseTimestamp(entry.start_time), options.now) : null;
  return start === null || start >= options.now - options.recheckMs ? recorded : undefined;
}

/** Reads a target's manifest, streaming, into a {@link ResumeState}. */
export async function readResumeState(manifest: ManifestStore, options: ResumeStateOptions): Promise<ResumeState> {
  const state = new ResumeState();
  const { shard, only } = options;
  // Users' tombstones are read by every shard (their replays are in all of them).
  const keep =
    only ?? (shard === undefined ? undefined : (id: string): boolean => inShard(id, shard) || isUserTombstoneId(id));
  for await (const entry of manifest.read(keep)) {
    if (entry && typeof entry.replay_id === 'string') state.add(entry, options);
  }
  return state;
}

/**
 * Where the sink lists its outputs cheaply (S3: 1,000 keys a request), marks in `state` every done replay whose output
 * is stored, with one listing, and returns true: `state.stored(id)` then answers what `exists` would, with no request
 * per replay (and none taking an export slot). Returns false, listing nothing, for a sink that cannot list (a local
 * folder: an `lstat` per replay is cheap) or when nothing is done yet.
 */
export async function markStoredOutputs(
  outputs: OutputStore,
  state: ResumeState,
  keyFor: (replayId: string) => string,
): Promise<boolean> {
  if (!state.anyDone || !outputs.listsInBulk) return false;
  for await (const key of outputs.list()) {
    const id = replayIdFromKey(key);
    if (id !== undefined && keyFor(id) === key) state.markStored(id);
  }
  return true;
}
