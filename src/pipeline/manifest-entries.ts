/**
 * Every manifest line the pipeline writes is built here, one builder per status, each giving exactly the fields of
 * its status (`ManifestEntry` in sinks/sink.ts): what an archive run, an export and `forget` record.
 */
import type {
  EmptyEntry,
  FailedEntry,
  ForgottenEntry,
  ManifestEntry,
  ManifestError,
  NotFoundEntry,
  OkEntry,
  SkippedEntry,
} from '../../sinks/sink.js';
import { MORE_URLS_KEY } from '../assets/missing.js';
import { createHash } from 'node:crypto';
import { MAX_MANIFEST_RECORD_BYTES } from '../../sinks/manifest-lines.js';
import { expiresAtIso, startOf } from './expiry.js';
import type { Settings } from './settings.js';
import type { ReplayInfo } from './types.js';
import { formatShard } from './shard.js';
import { stripUndefined } from '../http/options.js';

/** The run's fields an entry records. */
export type EntrySettings = Pick<Settings, 'runId' | 'shard' | 'redaction'>;

type Common = Pick<
  OkEntry,
  'replay_id' | 'start_time' | 'end_time' | 'platform_id' | 'expires_at' | 'run_id' | 'shard' | 'redaction'
>;

const now = (): string => new Date().toISOString();

function runFields(settings: Pick<Settings, 'runId' | 'shard'>): Pick<Common, 'run_id' | 'shard'> {
  return stripUndefined({
    run_id: settings.runId,
    shard: settings.shard === undefined ? undefined : formatShard(settings.shard),
  });
}

/** Longest listed time a line records as it is: a timestamp, not whatever text an API may send in its place. */
const MAX_TIME_CHARS = 64;

const recordedTime = (time: string | undefined): string | undefined =>
  typeof time === 'string' && time.length <= MAX_TIME_CHARS ? time : undefined;

function listingFields(replay: ReplayInfo): Pick<Common, 'start_time' | 'end_time' | 'platform_id'> {
  return stripUndefined({
    start_time: recordedTime(replay.start_time),
    end_time: recordedTime(replay.end_time),
    platform_id: Number.isSafeInteger(replay.platform_id) ? replay.platform_id : undefined,
  });
}

/** The fields of an exported replay's line (`ok`, `empty`, `failed`): its listing, expiry, run, shard and policy. */
export function exportedFields(replay: ReplayInfo, settings: EntrySettings): Common {
  const fields: Common = { replay_id: replay.replay_id, ...listingFields(replay) };
  const expires = expiresAtIso(startOf(replay), replay.retention_in_days);
  if (expires !== undefined) fields.expires_at = expires;
  Object.assign(fields, runFields(settings));
  if (settings.redaction !== undefined) fields.redaction = settings.redaction.digest;
  return fields;
}

/**
 * File keys (with their versions) a line lists up to this many bytes of JSON; beyond, it records their count and
 * digest instead (`fileKeyFields`). A sixteenth of a record: whatever else a line holds (the assets of
 * `--capture-assets`: at most `maxUrls` URLs of at most 4 kB) stays within `MAX_MANIFEST_RECORD_BYTES`.
 */
export const MAX_INLINE_FILE_KEYS_BYTES = MAX_MANIFEST_RECORD_BYTES / 16;

/** The hex SHA-256 a line records in place of file keys too long to list (`file_keys_sha256`). */
export function fileKeysDigest(keys: readonly string[]): string {
  return sha256(JSON.stringify(keys));
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

type FileKeyFields = Pick<OkEntry, 'file_keys' | 'file_versions' | 'file_count' | 'file_keys_sha256'>;

/**
 * What a line records of a replay's files: their keys (and versions) when they fit in `MAX_INLINE_FILE_KEYS_BYTES`,
 * else their count and `fileKeysDigest` (a re-check compares the digest: late data still changes it).
 */
export function fileKeyFields(keys: readonly string[], versions?: readonly number[]): FileKeyFields {
  const json = JSON.stringify(keys);
  const bytes = Buffer.byteLength(json, 'utf8') + JSON.stringify(versions ?? []).length;
  if (bytes > MAX_INLINE_FILE_KEYS_BYTES) return { file_count: keys.length, file_keys_sha256: sha256(json) };
  return versions === undefined ? { file_keys: [...keys] } : { file_keys: [...keys], file_versions: [...versions] };
}

/** What an `ok` line records of the stored output besides the common fields and the file keys. */
export type OkFields = Omit<OkEntry, keyof Common | keyof FileKeyFields | 'status' | 'recorded_at'>;

export function okEntry(
  common: Common,
  files: { keys: readonly string[]; versions: readonly number[] },
  fields: OkFields,
): OkEntry {
  return { ...common, status: 'ok', ...fields, ...fileKeyFields(files.keys, files.versions), recorded_at: now() };
}

export function emptyEntry(common: Common): EmptyEntry {
  return { ...common, status: 'empty', reason: 'no files yet', file_keys: [], recorded_at: now() };
}

/**
 * A replay that failed in this run: its error, the file keys it listed. `permanent`: the cause would recur with the
 * same bytes (bad data); the line then counts its runs (`attempts`, from 1: quarantine.ts counts on).
 */
export function failedEntry(
  common: Common,
  error: ManifestError,
  fileKeys: readonly string[],
  permanent = false,
): FailedEntry {
  const attempts = permanent ? { attempts: 1 } : {};
  return {
    ...common,
    status: 'failed',
    error: boundedError(error),
    ...fileKeyFields(fileKeys),
    ...attempts,
    recorded_at: now(),
  };
}

/**
 * The longest replay id a line records, in UTF-8 bytes; a longer one is recorded by its stand-in. Its files listing
 * could not be asked for anyway: 16 KiB is all the request line and headers of a common server (Node's) may take.
 */
export const MAX_REPLAY_ID_BYTES = 16 * 1024;
/** Characters of a too-long id its stand-in keeps. */
const STAND_IN_PREFIX = 64;

/**
 * The id a line records for `replayId`: itself when it takes at most `MAX_REPLAY_ID_BYTES`, else a stand-in made of
 * its first characters, its length and its SHA-256, the same in every run (`idBytes`: its length in bytes).
 */
export function standInReplayId(replayId: string): { replay_id: string; idBytes?: number } {
  if (replayId.length * 3 <= MAX_REPLAY_ID_BYTES) return { replay_id: replayId };
  const bytes = Buffer.byteLength(replayId, 'utf8');
  if (bytes <= MAX_REPLAY_ID_BYTES) return { replay_id: replayId };
  const digest = createHash('sha256').update(replayId, 'utf16le').digest('hex');
  return { replay_id: `${replayId.slice(0, STAND_IN_PREFIX)}…(${bytes} bytes, sha256 ${digest})`, idBytes: bytes };
}

/** Longest error message, and file key, a line records (in characters); beyond, cut with a mark. */
const MAX_ERROR_CHARS = 4096;
const MAX_ERROR_KEY_CHARS = 1024;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** An error as a line records it: its message and file key cut to a bounded length. */
function boundedError(error: ManifestError): ManifestError {
  if (error.message.length <= MAX_ERROR_CHARS && (error.file_key?.length ?? 0) <= MAX_ERROR_KEY_CHARS) return error;
  const out: ManifestError = { ...error, message: cut(error.message, MAX_ERROR_CHARS) };
  if (error.file_key !== undefined) out.file_key = cut(error.file_key, MAX_ERROR_KEY_CHARS);
  return out;
}

const recordBytes = (entry: ManifestEntry): number => Buffer.byteLength(JSON.stringify(entry), 'utf8');

/**
 * An entry as a manifest record can hold it (`MAX_MANIFEST_RECORD_BYTES`): itself when it fits, else without the
 * part that overflows — an `ok` line's URLs not captured summed up under `*`, then its captured assets recorded by
 * their count and digest (`assets_count`, `assets_sha256`) as file keys are. Undefined when even that does not fit.
 */
export function fitEntry(entry: ManifestEntry): ManifestEntry | undefined {
  if (recordBytes(entry) <= MAX_MANIFEST_RECORD_BYTES) return entry;
  if (entry.status !== 'ok') return undefined;
  const fitted: OkEntry = { ...entry };
  const missing = entry.assets_missing;
  if (missing !== undefined) {
    const count = Object.keys(missing).length;
    fitted.assets_missing = {
      [MORE_URLS_KEY]: `${count} URL(s) not captured, not listed: the list would pass the manifest's record limit`,
    };
    if (recordBytes(fitted) <= MAX_MANIFEST_RECORD_BYTES) return fitted;
  }
  if (entry.assets !== undefined) {
    fitted.assets_count = Object.keys(entry.assets).length;
    fitted.assets_sha256 = sha256(JSON.stringify(entry.assets));
    delete fitted.assets;
    delete fitted.asset_types;
  }
  return recordBytes(fitted) <= MAX_MANIFEST_RECORD_BYTES ? fitted : undefined;
}

/**
 * The line of a replay whose entry no record can hold even fitted (`fitEntry`): `failed`, naming the limit. Its
 * output, if one was stored, is then named by no line (`verify` reports it).
 */
export function tooLargeEntry(entry: ManifestEntry): FailedEntry {
  const error: ManifestError = {
    code: 'MANIFEST_TOO_LARGE',
    message: `replay ${entry.replay_id}: its manifest line would pass the ${MAX_MANIFEST_RECORD_BYTES} bytes a record may take; not recorded whole`,
  };
  return { replay_id: entry.replay_id, status: 'failed', error, attempts: 1, recorded_at: now() };
}

/** A replay the API does not list: its id, the error and the run. */
export function notFoundEntry(replayId: string, error: ManifestError, settings: EntrySettings): NotFoundEntry {
  const entry: NotFoundEntry = {
    replay_id: replayId,
    status: 'not_found',
    error: boundedError(error),
    recorded_at: now(),
  };
  if (settings.runId !== undefined) entry.run_id = settings.runId;
  return entry;
}

/** A replay too recent to export (`settling`): its listing, the run and the shard. */
export function settlingEntry(replay: ReplayInfo, settings: EntrySettings): SkippedEntry {
  return {
    replay_id: replay.replay_id,
    status: 'skipped',
    reason: 'settling',
    recorded_at: now(),
    ...listingFields(replay),
    ...runFields(settings),
  };
}

/** What a tombstone records besides its scope: why, when, the run, and what it removes. */
export interface TombstoneFields {
  reason: string;
  /** ms since the epoch. */
  at: number;
  runId?: string | undefined;
  platformId?: number | undefined;
  removedKeys?: string[];
  removedAssets?: string[];
}

/** A `forget` tombstone of one replay (`scope: replay`) or of a user (`scope: user`, under its reserved id). */
export function forgottenEntry(replayId: string, scope: ForgottenEntry['scope'], f: TombstoneFields): ForgottenEntry {
  const entry: ForgottenEntry = { status: 'forgotten', replay_id: replayId, scope } as ForgottenEntry;
  if (f.platformId !== undefined) entry.platform_id = f.platformId;
  if (f.removedKeys !== undefined) entry.removed_keys = f.removedKeys;
  if (f.removedAssets !== undefined && f.removedAssets.length > 0) entry.removed_assets = f.removedAssets;
  entry.reason = f.reason;
  entry.recorded_at = new Date(f.at).toISOString();
  if (f.runId !== undefined) entry.run_id = f.runId;
  return entry;
}
