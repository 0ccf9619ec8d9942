/**
 * The library's entry functions. Each goes through one `Run` (run.ts): the caller's (`run`), or one opened here from
 * the options and closed when the entry finishes — so an entry and the CLI command of the same name resolve the
 * same configuration, reach the same parts and give the same answers.
 */
import type { ManifestEntry } from '../../sinks/sink.js';
import type { ReplayEvent } from '../events.js';
import { validateReplayId } from '../replay/validation.js';
import { runArchive, type ArchiveEvent, type ArchiveIo, type ListingBound } from './archive.js';
import { ByteBudget } from './byte-budget.js';
import { DEFAULTS } from './defaults.js';
import { planReplays, type PlannedReplay } from './dry-run.js';
import { ConfigError, ReplayNotFoundError } from './errors.js';
import type { ReplayInfo } from './export-replay.js';
import { replayEventBatches } from './replay-stream.js';
import { entryRun, releaseRun, type EntryOptions, type ReplayApi, type Run } from './run.js';
import type { Settings } from './settings.js';

export type { EntryOptions } from './run.js';

export type ReplayEventsOptions = EntryOptions;
export type ExportReplayOptions = EntryOptions;
export interface ExportReplaysOptions extends EntryOptions {
  /**
   * Leave alone a named replay this target holds already — recorded `ok` at the key of this format, under this
   * redaction policy, its output present — when its files are still the ones recorded (listed again to tell): a rerun
   * of an interrupted export takes up where it stopped. Default false: every named replay is exported.
   */
  skipUnchanged?: boolean | undefined;
}

/** `archiveReplays`: what to list, besides the run's options. */
export interface ArchiveOptions extends EntryOptions {
  /** Only this user's replays (platform id, sent as `amplitude_id`). */
  platformId?: number | string | undefined;
  /** Replays that started at or after this time (ISO 8601; sent as `start_time`). */
  since?: string | undefined;
  /** Replays that started at or before this time (sent as `end_time`). */
  until?: string | undefined;
  /** Replays per listing page (1–200; default `DEFAULTS.archiveListPageSize`, 200). */
  listPageSize?: number | undefined;
  /** Export at most this many replays in this run (the rest wait for the next run). Default: no limit. */
  max?: number | undefined;
}

/**
 * Every event of one replay as parsed objects, in order (files fetched ahead, URLs refreshed, transient failures
 * retried without duplicates). For a player or your own processing; nothing is written anywhere. A malformed id
 * throws `ValidationError` before any request; a replay the API does not list throws `ReplayNotFoundError` (code
 * `REPLAY_NOT_FOUND`) before any file is asked for.
 */
export async function* replayEvents(replayId: string, options: ReplayEventsOptions = {}): AsyncGenerator<ReplayEvent> {
  for await (const batch of replayEventBytes(replayId, options)) {
    for (const event of batch) yield JSON.parse(event.toString('utf8')) as ReplayEvent;
  }
}

/** Like `replayEvents`, as batches of serialised events (one Buffer of JSON per event; the fast path). */
export async function* replayEventBytes(replayId: string, options: ReplayEventsOptions = {}): AsyncGenerator<Buffer[]> {
  validateReplayId(replayId);
  const entry = entryRun(options);
  const { run } = entry;
  try {
    const api = run.replays();
    // One listing request by id says whether the replay exists (a files listing of an unknown id is just empty).
    const { value: info } = await recordsFor([replayId], api, run.signal).next();
    if (info?.notFound !== false) throw new ReplayNotFoundError(replayId);
    yield* replayEventBatches(replayId, run.settings, {
      api,
      download: run.download,
      budget: new ByteBudget(run.settings.prefetchBytes),
      clock: run.clock,
      signal: run.signal,
      onNotice: run.onNotice,
    });
  } finally {
    await releaseRun(entry);
  }
}

/** The named replays' listing records (100 ids a request), in the order given; an id the API does not list is `notFound`. */
async function* recordsFor(
  ids: readonly string[],
  api: ReplayApi,
  signal: AbortSignal | undefined,
): AsyncGenerator<ReplayInfo & { notFound: boolean }> {
  for (let i = 0; i < ids.length; i += 100) {
    const chunk = ids.slice(i, i + 100);
    const found = new Map<string, ReplayInfo>();
    for await (const r of api.listReplays({ replayIds: chunk }, { signal })) found.set(r.replay_id, r);
    for (const id of chunk) {
      const r = found.get(id);
      yield r === undefined ? { replay_id: id, notFound: true } : { ...r, notFound: false };
    }
  }
}

async function* given(replays: readonly ReplayInfo[]): AsyncGenerator<ReplayInfo> {
  yield* replays;
}

/** The settings of named exports: every named replay, in the order given, whatever its start or shard. */
function forNamedReplays(settings: Settings): Settings {
  return Object.freeze({ ...settings, order: 'start', settleMs: 0, recheckMs: undefined, shard: undefined });
}

/**
 * Exports replays (ids looked up, or records given) through `runArchive` without resume: each is exported now, but
 * those of `skipUnchanged` whose recorded output is there and whose files did not change.
 */
async function* exportNamed(
  run: Run,
  replays: AsyncIterable<ReplayInfo>,
  skipUnchanged?: ReadonlySet<string>,
): AsyncGenerator<ArchiveEvent> {
  yield* runArchive({ replays, resume: false, skipUnchanged }, forNamedReplays(run.settings), await archiveIo(run));
}

/** What `runArchive` is handed: the run's parts, its archive opened for writing. */
async function archiveIo(run: Run): Promise<ArchiveIo> {
  return {
    api: run.replays(),
    download: run.download,
    archive: await run.archive({ create: true }),
    room: (signal) => run.room(signal),
    assets: await run.assets(),
    clock: run.clock,
    signal: run.signal,
  };
}

/**
 * Exports one replay into the target and records the outcome in its manifest, exactly as `exportReplays` and the
 * CLI's `export` do. Resolves with the manifest entry: `ok`, `empty`, `failed` (a failed replay does not throw), or
 * `not_found` (the API does not list the id); a replay `forget` covers is not exported and resolves `skipped` with
 * reason `forgotten` (nothing recorded). A malformed id throws `ValidationError` before any request, and nothing is
 * written; authentication errors and aborts throw.
 */
export async function exportReplay(replay: string | ReplayInfo, options: ExportReplayOptions): Promise<ManifestEntry> {
  const id = validateReplayId(typeof replay === 'string' ? replay : replay?.replay_id);
  const entry = entryRun(options);
  const { run } = entry;
  try {
    const source = typeof replay === 'string' ? recordsFor([id], run.replays(), run.signal) : given([replay]);
    for await (const e of exportNamed(run, source)) {
      if (e.type !== 'result' || e.replayId !== id) continue;
      return (
        e.entry ?? {
          replay_id: id,
          status: 'skipped',
          reason: e.reason ?? 'forgotten',
          recorded_at: new Date(run.now()).toISOString(),
        }
      );
    }
    throw new ReplayNotFoundError(id);
  } finally {
    await releaseRun(entry);
  }
}

/**
 * Exports the named replays (always, whatever the manifest says), a few at a time; yields per-replay results. Every
 * id is checked first (a malformed one throws `ValidationError` before any request); ids the API does not list are
 * `not_found`.
 */
export async function* exportReplays(
  replayIds: readonly string[],
  options: ExportReplaysOptions,
): AsyncGenerator<ArchiveEvent> {
  for (const id of replayIds) validateReplayId(id);
  const entry = entryRun(options);
  const { run } = entry;
  try {
    yield* exportNamed(
      run,
      recordsFor(replayIds, run.replays(), run.signal),
      options.skipUnchanged === true ? new Set(replayIds) : undefined,
    );
  } finally {
    await releaseRun(entry);
  }
}

/** The listing an archive run goes through. */
function listingOf(options: ArchiveOptions, run: Run): AsyncIterable<ReplayInfo> {
  const query = {
    platformId: options.platformId,
    startTime: options.since,
    endTime: options.until,
    pageSize: options.listPageSize ?? DEFAULTS.archiveListPageSize,
  };
  // The next page is read while this one's replays are exported.
  return run.replays().listReplays(query, { readAhead: true, signal: run.signal });
}

function checkMax(max: number | undefined): void {
  if (max !== undefined && !(Number.isSafeInteger(max) && max >= 1))
    throw new ConfigError(`max must be a positive integer (got ${String(max)})`, 'INVALID_MAX');
}

/** The upper time bound of an archive run (or of its dry run) that starts at `nowMs`. */
function runBound(options: ArchiveOptions, nowMs: number): ListingBound {
  return { untilMs: nowMs, stallAfter: options.listPageSize ?? DEFAULTS.archiveListPageSize };
}

/**
 * What `archiveReplays` with the same options would do with each listed replay (export, recheck, or skip as done,
 * settling or of another shard), without doing it: the listing and the target's manifest are read; nothing is
 * downloaded and nothing is written (not even the manifest or the target folder).
 */
export async function* planArchive(options: ArchiveOptions): AsyncGenerator<PlannedReplay> {
  const entry = entryRun(options);
  const { run } = entry;
  try {
    // Opened as a writer would (a target without a manifest is one to be made): opening writes nothing.
    checkMax(options.max);
    const bound = runBound(options, run.now());
    yield* planReplays(listingOf(options, run), await run.archive({ create: true }), run.settings, run.now, {
      bound,
      max: options.max,
    });
  } finally {
    await releaseRun(entry);
  }
}

/**
 * Archives every replay the listing returns into a target, resumably: replays already recorded `ok` with their
 * output present are left alone, the rest are exported (bounded concurrency), recent ones are skipped while they
 * settle, and replays recorded within `recheckMs` are re-exported when their files changed. Yields per-replay
 * results and progress; throws on authentication failure or abort.
 */
export async function* archiveReplays(options: ArchiveOptions): AsyncGenerator<ArchiveEvent> {
  const entry = entryRun(options);
  const { run } = entry;
  try {
    checkMax(options.max);
    // The run's upper time bound is fixed now: replays that start while it pages wait for the next run.
    const bound = runBound(options, run.now());
    yield* runArchive(
      { replays: listingOf(options, run), resume: true, bound, max: options.max },
      run.settings,
      await archiveIo(run),
    );
  } finally {
    await releaseRun(entry);
  }
}
