/**
 * `verifyArchive`: reads an archive back and reports every way it differs from what its manifest says.
 *
 * The state of a replay is the last manifest entry for its id. Memory stays bounded whatever the archive's size: a
 * first pass over the manifest keeps, per replay id (in an `IdTable`), the position of its last entry, and the key of
 * every `ok` entry; a second pass verifies the entries that are last, a few objects at a time, each streamed (see
 * stored-object.ts); a last pass lists every stored object and reports what nothing names (outputs no `ok` entry
 * names, captured assets no `ok` entry maps, files replay-export never writes, at any depth), re-hashing each asset.
 *
 * Per replay whose state is `ok`: the entry names the layout's key for its id and format; the object exists; its size
 * and SHA-256 are the entry's; it decodes in its format; its event count and checks are the entry's. The checks are
 * per state: a replay tombstone (`forget`) must have no output left at any key of the layout; the captured assets an
 * `ok` entry maps must be stored.
 */
import { createHash } from 'node:crypto';
import { storedKind } from '../../sinks/layout.js';
import { replayKey } from '../../sinks/keys.js';
import { ASSETS_DIR, isAssetDigest } from '../../sinks/assets.js';
import type { ManifestChecks, OkEntry, OutputFormat } from '../../sinks/sink.js';
import { categoryOf, InternalError, InterruptedError, ReplayExportError } from '../errors.js';
import { entryRun, releaseRun, type EntryOptions, type EntryRun } from '../pipeline/run.js';
import { IdTable } from '../../sinks/id-table.js';
import { outputKeysOf } from '../../sinks/keys.js';
import type { Archive } from '../../sinks/archive.js';
import PQueue from 'p-queue';
import { type ObjectReading, readStoredObject, type ReadLimits } from './stored-object.js';

/** Every kind of problem `verifyArchive` reports. */
export const VERIFY_PROBLEM_KINDS = [
  /** An `ok` entry without what verifying needs (format, key, size, hash, event count), or not the layout's key. */
  'bad_entry',
  /** The object an `ok` entry names is not stored. */
  'missing',
  /** The object cannot be read: not a regular file, in a linked folder, or its read failed. */
  'unreadable',
  'size_mismatch',
  /** Same size, other bytes. */
  'sha256_mismatch',
  /** Its events cannot be read in its format (gzip, JSON, UTF-8, the page's blocks). */
  'undecodable',
  'event_count_mismatch',
  /** The checks recomputed over its events (has_meta, has_full_snapshot, max_gap_ms, timestamps_backwards) differ. */
  'checks_mismatch',
  /**
   * A stored object nothing names: an output no `ok` entry names, a captured asset no `ok` entry maps a URL to (left by
   * an export that failed or was cut short), or a file replay-export never writes (at any depth, `_x/` and `.x/` too).
   */
  'orphan',
  /** A captured asset whose bytes do not have the SHA-256 it is stored under (`_assets/<sha256>`). */
  'asset_corrupt',
  /** A captured asset the entry maps a URL to (`assets`, `--capture-assets`) is not stored, or the map is not one. */
  'asset_missing',
  /** An output of a replay whose last entry is a tombstone (`forget`) is still stored: run the same `forget` again. */
  'forgotten_present',
  /** The manifest changed between the passes (an archive run writing to it meanwhile): verify again once it ended. */
  'manifest_changed',
] as const;

export type VerifyProblemKind = (typeof VERIFY_PROBLEM_KINDS)[number];

export interface VerifyProblem {
  kind: VerifyProblemKind;
  /** What is wrong, for people. */
  message: string;
  replayId?: string;
  /** The stored object's key, relative to the archive. */
  key?: string;
  /** What the manifest says, and what the object holds (size, hash, count, the checks that differ). */
  expected?: string | number | Partial<ManifestChecks>;
  actual?: string | number | Partial<ManifestChecks>;
}

export interface VerifySummary {
  /** The archive: a resolved path, or `s3://bucket/prefix`. */
  target: string;
  /** Manifest entries read. */
  entries: number;
  /** Replay ids in the manifest. */
  replays: number;
  /** Replays whose state is `ok`: their object was verified. */
  verified: number;
  /** Of those, the ones without any problem. */
  intact: number;
  /** Replays in another state (failed, skipped, empty, not_found): nothing of theirs to verify. */
  notOk: number;
  /** Of those, the ones `quarantined` (failing for good: no longer tried by `archive`). */
  quarantined: number;
  /** Stored outputs listed. */
  stored: number;
  /** Problems in all, and per kind. */
  problems: number;
  byKind: Record<VerifyProblemKind, number>;
  /** Events and bytes read back. */
  events: number;
  bytes: number;
  seconds: number;
}

/**
 * The archive to verify and how: a run's options — the archive `out` (a folder, a `file://` URL or
 * `s3://bucket/prefix`, with `sinkOptions.s3`: endpoint, path style, region, credentials, checksums) or a `sink`;
 * `concurrency` (objects read at once); `maxEventBytes` and `maxReplayBytes` (an archive made with larger limits needs
 * as much); `fastPath`; `signal` — or an open `run`.
 */
export type VerifyOptions = EntryOptions;

/** The problems of an archive, as they are found (iterate once), and its summary once the iteration has ended. */
export interface ArchiveVerification extends AsyncIterable<VerifyProblem> {
  /**
   * Resolves when the iteration has ended; rejects with what stopped it (the archive cannot be read, an interrupt,
   * or `InterruptedError` when the caller stopped iterating early).
   */
  readonly summary: Promise<VerifySummary>;
}

/**
 * Verifies the run's archive (`out`: a folder, a `file://` URL or `s3://bucket/prefix`). Problems come one by one;
 * errors that stop the whole check (the archive or its manifest cannot be read, refused credentials) are thrown by
 * the iteration; a bad option (`concurrency`) is a `ConfigError` thrown here.
 */
export function verifyArchive(options: VerifyOptions): ArchiveVerification {
  const entry = entryRun(options);
  let settle!: { resolve: (s: VerifySummary) => void; reject: (err: unknown) => void };
  const summary = new Promise<VerifySummary>((resolve, reject) => (settle = { resolve, reject }));
  summary.catch(() => undefined); // a caller may only iterate
  let iterated = false;
  return {
    summary,
    [Symbol.asyncIterator](): AsyncIterator<VerifyProblem> {
      if (iterated) throw new InternalError('an archive verification is iterated once');
      iterated = true;
      return run(entry, settle)[Symbol.asyncIterator]();
    },
  };
}

/** Per replay id, the position of its last manifest entry. */
class LastPositions {
  #ids = new IdTable();
  #last = new Float64Array(1024);

  set(id: string, position: number): void {
    const index = this.#ids.set(id, 0);
    if (index >= this.#last.length) {
      const grown = new Float64Array(this.#last.length * 2);
      grown.set(this.#last);
      this.#last = grown;
    }
    this.#last[index] = position;
  }

  /** The position of the last entry of `id`; -1 for an id the first pass did not see. */
  lastOf(id: string): number {
    const index = this.#ids.indexOf(id);
    return index < 0 ? -1 : this.#last[index]!;
  }

  get size(): number {
    return this.#ids.size;
  }
}

/** The counts a verification keeps as it goes, its problems counted by kind among them. */
class Tally {
  readonly totals = {
    entries: 0,
    verified: 0,
    intact: 0,
    notOk: 0,
    quarantined: 0,
    stored: 0,
    problems: 0,
    byKind: Object.fromEntries(VERIFY_PROBLEM_KINDS.map((k) => [k, 0])) as Record<VerifyProblemKind, number>,
    events: 0,
    bytes: 0,
  };

  counted(p: VerifyProblem): VerifyProblem {
    this.totals.problems++;
    this.totals.byKind[p.kind]++;
    return p;
  }

  summary(target: string, replays: number, started: number): VerifySummary {
    const { entries, ...rest } = this.totals;
    return { target, entries, replays, ...rest, seconds: Math.round((Date.now() - started) / 100) / 10 };
  }
}

/**
 * Checks run `concurrency` at a time (p-queue), their problems handed out in the order they are found. The first check
 * that fails stops the verification: its error is thrown by the next `add` or `drain`.
 */
class Checks {
  readonly #queue: PQueue;
  readonly #ready: VerifyProblem[] = [];
  #failure: { error: unknown } | undefined;

  constructor(concurrency: number) {
    this.#queue = new PQueue({ concurrency });
  }

  /** Queues a check once fewer than `concurrency` run; resolves the problems found so far (taken). */
  async add(check: () => Promise<VerifyProblem[]>): Promise<VerifyProblem[]> {
    await this.#queue.onSizeLessThan(1);
    this.#throwIfFailed();
    void this.#queue.add(async () => {
      try {
        this.#ready.push(...(await check()));
      } catch (error) {
        this.#failure ??= { error };
      }
    });
    return this.#take();
  }

  /** Waits for every check queued; resolves their problems. */
  async drain(): Promise<VerifyProblem[]> {
    await this.#queue.onIdle();
    return this.#take();
  }

  /** Drops what has not started, and waits for what runs (its signal stops it). */
  async stop(): Promise<void> {
    this.#queue.clear();
    await this.#queue.onIdle();
  }

  #take(): VerifyProblem[] {
    this.#throwIfFailed();
    return this.#ready.splice(0);
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw this.#failure.error;
  }
}

/** What the first pass over the manifest keeps: each replay's last entry, the keys and assets `ok` entries name. */
interface Named {
  last: LastPositions;
  keys: IdTable;
  assets: IdTable;
}

async function* run(
  entry: EntryRun,
  settle: { resolve: (s: VerifySummary) => void; reject: (err: unknown) => void },
): AsyncGenerator<VerifyProblem> {
  const started = Date.now();
  const stop = new AbortController();
  const { settings, signal: given } = entry.run;
  const signal = given === undefined ? stop.signal : AbortSignal.any([given, stop.signal]);
  const limits: ReadLimits = {
    maxEventBytes: settings.maxEventBytes,
    maxReplayBytes: settings.maxReplayBytes,
    fastPath: settings.fastPath,
    signal,
  };
  const checks = new Checks(settings.concurrency);
  const tally = new Tally();
  let finished = false;
  let store: Archive | undefined;
  try {
    signal.throwIfAborted();
    // Read as it is: no temporary files to sweep, no output written (hence no hashing worker).
    store = await entry.run.archive({ create: false, readOnly: true });
    const named = await namedInManifest(store, tally, signal);
    for await (const p of lastEntries(store, named, limits, checks, tally)) yield tally.counted(p);
    for await (const p of storedObjects(store, named, checks, tally, signal)) yield tally.counted(p);
    finished = true;
    settle.resolve(tally.summary(store.target, named.last.size, started));
  } catch (err) {
    finished = true;
    settle.reject(err);
    throw err;
  } finally {
    // Stopped early (by the caller, or an error): objects being read stop too.
    stop.abort(new InterruptedError('the verification was stopped'));
    await checks.stop();
    await releaseRun(entry);
    if (!finished) settle.reject(new InterruptedError('the verification was stopped before its end'));
  }
}

/** Pass 1: the last entry of each replay id, and the keys and assets `ok` entries name. */
async function namedInManifest(store: Archive, tally: Tally, signal: AbortSignal): Promise<Named> {
  const named: Named = { last: new LastPositions(), keys: new IdTable(), assets: new IdTable() };
  for await (const entry of store.manifest.read()) {
    named.last.set(entry.replay_id, tally.totals.entries++);
    if (entry.status === 'ok' && typeof entry.key === 'string') named.keys.set(entry.key, 0);
    if (entry.status === 'ok') for (const digest of mappedDigests(entry)) named.assets.set(digest, 0);
    // A line too long to list its assets (`assets_sha256`) names them through the replay's asset claims.
    if (entry.status === 'ok' && entry.assets === undefined && typeof entry.assets_sha256 === 'string')
      for await (const digest of store.assets.claims(entry.replay_id))
        if (isAssetDigest(digest)) named.assets.set(digest, 0);
    if ((tally.totals.entries & 1023) === 0) signal.throwIfAborted();
  }
  return named;
}

/** Pass 2: each replay's state; those `ok` verified (through `checks`), tombstones checked to have no output left. */
async function* lastEntries(
  store: Archive,
  named: Named,
  limits: ReadLimits,
  checks: Checks,
  tally: Tally,
): AsyncGenerator<VerifyProblem> {
  const { totals } = tally;
  const assetsSeen = new Map<string, Promise<boolean>>();
  let position = 0;
  let changed = false;
  for await (const entry of store.manifest.read()) {
    const at = position++;
    const lastAt = named.last.lastOf(entry.replay_id);
    if (lastAt < 0 || at >= totals.entries) changed = true;
    if (lastAt !== at) continue;
    if (entry.status !== 'ok') {
      totals.notOk++;
      if (entry.status === 'quarantined') totals.quarantined++;
      if (entry.status === 'forgotten' && entry.scope !== 'user')
        yield* forgottenLeft(store, entry.replay_id, entry.recorded_at);
      continue;
    }
    totals.verified++;
    yield* await checks.add(async () => {
      const result = await verifyEntry(entry, store, limits);
      result.problems.push(...(await assetProblems(entry, store, assetsSeen)));
      totals.bytes += result.bytes;
      totals.events += result.events;
      if (result.problems.length === 0) totals.intact++;
      return result.problems;
    });
  }
  yield* await checks.drain();
  if (changed || position !== totals.entries) {
    yield {
      kind: 'manifest_changed',
      message: `the manifest changed while it was verified (${totals.entries} entries, then ${position}): verify again once no run writes to the archive`,
      expected: totals.entries,
      actual: position,
    };
  }
}

/** The outputs of a forgotten replay still stored. */
async function* forgottenLeft(store: Archive, replayId: string, recordedAt: string): AsyncGenerator<VerifyProblem> {
  for (const key of outputKeysOf(replayId)) {
    if (!(await store.outputs.exists(key))) continue;
    yield {
      kind: 'forgotten_present',
      message: `${key} (replay ${replayId}): forgotten (${recordedAt}) but still stored; run the same forget again`,
      replayId,
      key,
    };
  }
}

/**
 * Pass 3: every stored object: what nothing names, and the captured assets' bytes (re-hashed through `checks`). A
 * caller's sink that lists no more than its outputs gives those.
 */
async function* storedObjects(
  store: Archive,
  named: Named,
  checks: Checks,
  tally: Tally,
  signal: AbortSignal,
): AsyncGenerator<VerifyProblem> {
  let listed = 0;
  for await (const key of store.objects()) {
    if ((++listed & 1023) === 0) signal.throwIfAborted();
    const kind = storedKind(key);
    if (kind === 'output') {
      tally.totals.stored++;
      if (!named.keys.has(key))
        yield { kind: 'orphan', key, message: `${key} is stored but no entry of the manifest names it` };
    } else if (kind === 'asset') {
      const digest = key.slice(ASSETS_DIR.length + 1);
      if (!named.assets.has(digest)) {
        yield {
          kind: 'orphan',
          key,
          message: `${key} is stored but no ok entry maps a URL to it (captured by an export that failed or was cut short; forget of its replay removes it)`,
        };
      }
      yield* await checks.add(async () => {
        const problem = await rehashAsset(store, digest);
        return problem === undefined ? [] : [problem];
      });
    } else if (kind === 'foreign') {
      yield {
        kind: 'orphan',
        key,
        message: `${key} is stored but no entry of the manifest names it, and replay-export writes no such file`,
      };
    }
  }
  yield* await checks.drain();
}

interface EntryResult {
  problems: VerifyProblem[];
  bytes: number;
  events: number;
}

const FORMATS: readonly OutputFormat[] = ['json', 'ndjson', 'html'];
const CHECK_FIELDS = ['has_meta', 'has_full_snapshot', 'max_gap_ms', 'timestamps_backwards'] as const;

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * An error met while reading one object that stops the whole check: refused credentials, an interrupt, a bug. Any
 * other (a storage error, a file system error of this object) is that object's `unreadable` problem.
 */
function stopsTheCheck(err: unknown): boolean {
  const category = categoryOf(err);
  if (category === 'auth' || category === 'interrupted') return true;
  return !(err instanceof ReplayExportError) && typeof (err as { code?: unknown } | undefined)?.code !== 'string';
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The problems of one replay whose state is `ok`. */
/** Digests whose presence a run remembers (each asked once, however many replays map to it); beyond, asked again. */
const MAX_ASSETS_SEEN = 100_000;

/** The captured assets of an `ok` entry (`assets`) that are not stored; a map that is not URL → digest is bad. */
async function assetProblems(
  entry: OkEntry,
  store: Archive,
  seen: Map<string, Promise<boolean>>,
): Promise<VerifyProblem[]> {
  const assets: unknown = entry.assets;
  if (assets === undefined) return [];
  const replayId = entry.replay_id;
  const where = { replayId, ...(typeof entry.key === 'string' ? { key: entry.key } : {}) };
  if (assets === null || typeof assets !== 'object' || !Object.values(assets).every(isAssetDigest)) {
    return [{ kind: 'asset_missing', message: `replay ${replayId}: its assets map is not URL → SHA-256`, ...where }];
  }
  const problems: VerifyProblem[] = [];
  for (const digest of new Set(Object.values(assets as Record<string, string>))) {
    let present = seen.get(digest);
    if (present === undefined) {
      if (seen.size >= MAX_ASSETS_SEEN) seen.clear();
      present = store.assets.has(digest);
      seen.set(digest, present);
    }
    if (!(await present)) {
      const key = `${ASSETS_DIR}/${digest}`;
      problems.push({
        kind: 'asset_missing',
        message: `replay ${replayId}: captured asset ${key} is not stored`,
        replayId,
        key,
        expected: digest,
      });
    }
  }
  return problems;
}

/** The digests an `ok` entry maps URLs to (a manifest is input: only digests count). */
function mappedDigests(entry: OkEntry): string[] {
  const assets: unknown = entry.assets;
  return assets !== null && typeof assets === 'object' ? Object.values(assets).filter(isAssetDigest) : [];
}

/** Reads a stored asset back: a problem when its bytes do not hash to its name, or it cannot be read. */
async function rehashAsset(store: Archive, digest: string): Promise<VerifyProblem | undefined> {
  const key = `${ASSETS_DIR}/${digest}`;
  const hash = createHash('sha256');
  try {
    const body = await store.assets.read(digest);
    if (body === undefined) return { kind: 'unreadable', key, message: `${key} is not a regular file` };
    for await (const chunk of body as AsyncIterable<Buffer>) hash.update(chunk);
  } catch (err) {
    if (stopsTheCheck(err)) throw err;
    return { kind: 'unreadable', key, message: `${key}: ${messageOf(err)}` };
  }
  const actual = hash.digest('hex');
  if (actual === digest) return undefined;
  return {
    kind: 'asset_corrupt',
    key,
    message: `${key}: its bytes' SHA-256 is ${actual}, not the digest it is stored under`,
    expected: digest,
    actual,
  };
}

async function verifyEntry(entry: OkEntry, store: Archive, limits: ReadLimits): Promise<EntryResult> {
  const replayId = entry.replay_id;
  const problems: VerifyProblem[] = [];
  const result: EntryResult = { problems, bytes: 0, events: 0 };
  const where = typeof entry.key === 'string' ? { replayId, key: entry.key } : { replayId };
  const problem = (kind: VerifyProblemKind, message: string, more: Partial<VerifyProblem> = {}): void => {
    problems.push({ kind, message: `${where.key ?? 'no key'} (replay ${replayId}): ${message}`, ...where, ...more });
  };
  const format = entry.format;
  if (!FORMATS.includes(format as OutputFormat) || (entry.gzip !== undefined && typeof entry.gzip !== 'boolean')) {
    problem('bad_entry', `the entry's format is not json, ndjson or html, gzip or not`);
    return result;
  }
  const key = replayKey(replayId, { format: format!, gzip: entry.gzip === true });
  if (entry.key !== key) {
    problem('bad_entry', `the entry's key is not the layout's key for its id and format (${key})`, { expected: key });
    return result;
  }
  for (const [field, ok] of [
    ['bytes', isCount(entry.bytes)],
    ['sha256', typeof entry.sha256 === 'string' && /^[0-9a-f]{64}$/.test(entry.sha256)],
    ['event_count', isCount(entry.event_count)],
  ] as const) {
    if (!ok) problem('bad_entry', `the entry has no valid ${field}`);
  }
  let reading: ObjectReading;
  try {
    const body = await store.outputs.read(key);
    if (body === undefined) {
      problem('missing', `the object is not stored`);
      return result;
    }
    reading = await readStoredObject(body, format!, key, limits);
  } catch (err) {
    if (stopsTheCheck(err)) throw err;
    problem('unreadable', `${messageOf(err)}`);
    return result;
  }
  result.bytes = reading.bytes;
  if (isCount(entry.bytes) && reading.bytes !== entry.bytes) {
    problem('size_mismatch', `${reading.bytes} bytes stored, ${entry.bytes} in the manifest`, {
      expected: entry.bytes,
      actual: reading.bytes,
    });
  } else if (typeof entry.sha256 === 'string' && reading.sha256 !== entry.sha256) {
    problem('sha256_mismatch', `the stored bytes' SHA-256 is not the manifest's`, {
      expected: entry.sha256,
      actual: reading.sha256,
    });
  }
  if (reading.decodeError !== undefined) {
    problem('undecodable', `${reading.decodeError.message}`);
    return result;
  }
  const { eventCount, checks } = reading.decoded!;
  result.events = eventCount;
  if (isCount(entry.event_count) && eventCount !== entry.event_count) {
    problem('event_count_mismatch', `${eventCount} events stored, ${entry.event_count} in the manifest`, {
      expected: entry.event_count,
      actual: eventCount,
    });
  }
  // An entry without checks (written before there were any) has nothing to compare.
  const recorded = entry.checks;
  if (recorded !== undefined && recorded !== null && typeof recorded === 'object') {
    const differ = CHECK_FIELDS.filter((f) => recorded[f] !== checks[f]);
    if (differ.length > 0) {
      const pick = (c: ManifestChecks | Record<string, unknown>): Partial<ManifestChecks> =>
        Object.fromEntries(differ.map((f) => [f, c[f]]));
      problem(
        'checks_mismatch',
        `the checks over the stored events differ from the manifest's (${differ.join(', ')})`,
        {
          expected: pick(recorded),
          actual: pick(checks),
        },
      );
    }
  }
  return result;
}
