import { setMaxListeners } from 'node:events';
import type { Archive } from '../../sinks/archive.js';
import type { ManifestCompactionResult, ManifestEntry, ManifestError } from '../../sinks/sink.js';
import { ByteBudget } from './byte-budget.js';
import { Channel } from './channel.js';
import { exportReplayToSink, type ReplayInfo } from './export-replay.js';
import { notFoundEntry, settlingEntry } from './manifest-entries.js';
import { isFatal, ReplayNotFoundError } from './errors.js';
import { expiresAtMs, plausibleStart } from './expiry.js';
import { parseTimestamp } from '../replay/timestamps.js';
import { listFilesInKeyOrder } from './file-listing.js';
import { sameFileKeys } from './manifest.js';
import { IdTable } from '../../sinks/id-table.js';
import { ManifestCompactor } from './compaction.js';
import type { AssetCapture } from '../assets/capture.js';
import { InternalError } from '../errors.js';
import { markStoredOutputs, readResumeState } from './resume-state.js';
import type { ReplayNotice } from './replay-stream.js';
import type { Settings } from './settings.js';
import { formatShard, inShard } from './shard.js';
import { awaitClaimed, Balancer } from './balance.js';
import type { Downloader, ReplayFilesApi } from './types.js';
import { refreshCatalogue } from '../catalogue/index.js';

/** What happened to one replay in this run. */
export type ArchiveOutcome =
  | 'ok' // exported now
  | 'failed' // permanent failure, recorded
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
export interface ArchiveIo {
  api: ReplayFilesApi;
  download: Downloader;
  archive: Archive;
  /**
   * Resolves once no request of the replay family waits for a slot of its adaptive window. A replay to export or
   * re-check starts only then, so the replays in progress follow what the API allows (the window kept full, not
   * overfilled), up to `settings.concurrency`. Absent: replays start as soon as a worker is free.
   */
  room?: ((signal: AbortSignal) => Promise<void>) | undefined;
  /** The run's asset capture; required when `settings.captureAssets` is on (each URL fetched once per run). */
  assets?: AssetCapture | undefined;
  /** Clock (tests). */
  now?: (() => number) | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Replays listed several times (overlapping pages) are taken once; other shards' replays are left out (given to
 * `other` once each, when the run is balanced).
 */
async function* candidates(
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
 * The records of `replays` that started by the bound. A record whose start is unreadable or absurd (a client clock in
 * 2120) is kept: the run decides on it as before. Ends the listing once `stallAfter` records in a row were past it.
 */
export async function* bounded(
  replays: AsyncIterable<ReplayInfo>,
  bound: ListingBound | undefined,
): AsyncGenerator<ReplayInfo> {
  if (bound === undefined) return yield* replays;
  let past = 0;
  for await (const r of replays) {
    const start = startOf(r, bound.untilMs);
    if (start !== null && start > bound.untilMs) {
      if (++past >= bound.stallAfter) return;
      continue;
    }
    past = 0;
    yield r;
  }
}

/** The replay's start in ms when it is readable and plausible, else null (never settling, never re-checked). */
function startOf(r: ReplayInfo, now = Date.now()): number | null {
  const ms = r.startMs !== undefined ? r.startMs : r.start_time !== undefined ? parseTimestamp(r.start_time) : null;
  return plausibleStart(ms, now);
}

/** The replay's file keys as an export records them (key order, each once), to compare with the manifest. */
async function listFileKeys(
  api: ReplayFilesApi,
  replayId: string,
  settings: Settings,
  signal: AbortSignal,
): Promise<string[]> {
  const files = await listFilesInKeyOrder(api, replayId, settings, { signal });
  return files.map((f) => f.key);
}

function notFoundError(id: string): ManifestError {
  const err = new ReplayNotFoundError(id);
  return { code: err.code, message: err.message };
}

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

/**
 * Runs a plan: each replay is decided (resume / recheck / settle) and exported with bounded concurrency; each
 * outcome is appended to the manifest as soon as it is known (after the sink committed the output), so a run killed
 * at any moment is picked up by the next one. Yields per-replay results and progress. An authentication failure (or
 * the caller's abort) stops the whole run and is thrown.
 */
export async function* runArchive(plan: ArchivePlan, settings: Settings, io: ArchiveIo): AsyncGenerator<ArchiveEvent> {
  const now = io.now ?? Date.now;
  const controller = new AbortController();
  const outer = io.signal;
  const onOuterAbort = (): void => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  const signal = controller.signal;
  // Every download and request of the run listens to this one signal.
  setMaxListeners(0, signal);
  const channel = new Channel<ArchiveEvent>();
  const budget = new ByteBudget(settings.prefetchBytes);
  let pendingEvents = 0;
  let lastProgress = 0;
  const onEvents = (n: number): void => {
    pendingEvents += n;
    const t = Date.now();
    if (t - lastProgress >= 200) {
      lastProgress = t;
      channel.push({ type: 'progress', events: pendingEvents });
      pendingEvents = 0;
    }
  };
  const flushProgress = (): void => {
    if (pendingEvents > 0) channel.push({ type: 'progress', events: pendingEvents });
    pendingEvents = 0;
  };

  const assets = io.assets;
  if (settings.captureAssets !== undefined && assets === undefined)
    throw new InternalError('asset capture is on but the run gave no capture');
  const run = async (): Promise<void> => {
    const balance = settings.balance;
    // Compared with the claims' times, which the stores' clocks give: the real clock, not the run's.
    const startedAt = Date.now();
    const balancer =
      balance !== undefined && settings.shard !== undefined
        ? new Balancer(io.archive.work(balance.run), settings.shard, balance.tail)
        : undefined;
    // Claims of earlier runs decide nothing any more: removed by one shard of the run, beside its work.
    const clearing =
      balancer !== undefined && settings.shard?.index === 0
        ? balancer.claims.clearOtherRuns().then(
            (runs) => (runs > 0 ? channel.push({ type: 'claims-cleared', runs }) : undefined),
            (error: unknown) => channel.push({ type: 'claims-clear-failed', error }),
          )
        : undefined;
    const state = await readResumeState(io.archive.manifest, {
      keyFor: (id) => io.archive.outputs.keyFor(id, settings.output),
      // A balanced shard may take any replay: it knows them all.
      shard: balancer === undefined ? settings.shard : undefined,
      recheckMs: settings.recheckMs,
      now: now(),
      redaction: settings.redaction?.digest,
      captureAssets: settings.captureAssets !== undefined,
      ...(plan.skipUnchanged !== undefined ? { fileKeysOf: (id: string) => plan.skipUnchanged!.has(id) } : {}),
    });
    // Folds cost about the manifest's size: spaced at least that far apart, a run's folds cost at most twice its own entries.
    // Only archive runs fold (an export of given replays keeps its manifest a plain log).
    const compactor =
      settings.compactEvery === undefined || !plan.resume
        ? undefined
        : new ManifestCompactor(io.archive.manifest, {
            shard: settings.shard,
            every: Math.max(settings.compactEvery, state.entries),
            onResult: (result) => channel.push({ type: 'compacted', result }),
            onError: (error) => channel.push({ type: 'compaction-failed', error }),
            signal: outer,
            afterFold: () =>
              refreshCatalogue(io.archive, {
                ...(settings.catalogueDir === undefined ? {} : { dir: settings.catalogueDir }),
                onlyIfPresent: true,
                onBuild: (r) => channel.push({ type: 'catalogued', rows: r.rows, ms: r.ms }),
              }).then(
                () => undefined,
                (error: unknown) => channel.push({ type: 'catalogue-failed', error }),
              ),
          });
    const append = async (entry: ManifestEntry): Promise<void> => {
      await io.archive.manifest.append(entry);
      compactor?.noteAppend();
    };
    // A sink that lists its outputs cheaply (S3) is listed once, before any export, instead of asked per archived
    // replay: no existence check then takes an export slot, and 1M archived replays cost ~1,000 requests, not 1M.
    const listed =
      plan.resume &&
      (await markStoredOutputs(io.archive.outputs, state, (id) => io.archive.outputs.keyFor(id, settings.output)));
    // Ids taken so far (a replay listed twice is taken once), compact like the resume state.
    const seen = new IdTable();
    const onListed = (count: number, complete: boolean): void => channel.push({ type: 'listed', count, complete });
    const source = candidates(plan, settings, seen, onListed, balancer && ((r) => balancer.noteOther(r)))[
      Symbol.asyncIterator
    ]();
    let sourceBusy: Promise<unknown> = Promise.resolve();
    // One worker at a time pulls from the listing (async generators queue calls, this keeps it explicit).
    const next = (): Promise<IteratorResult<ReplayInfo>> => {
      const p = sourceBusy.then(() => source.next());
      sourceBusy = p.catch(() => undefined);
      return p;
    };

    // Exports started (`plan.max`); once full, no worker takes another replay from the listing.
    let exports = 0;
    let full = false;
    /** Whether `plan.max` exports were started; once so, the run is `full`: no worker takes another replay. */
    const reachedMax = (): boolean => {
      if (plan.max !== undefined && exports >= plan.max) full = true;
      return full;
    };
    /** Replays of this shard another shard of the balanced run claimed first. */
    const deferred: ReplayInfo[] = [];
    const present = async (id: string, key: string, named: boolean): Promise<boolean> =>
      (plan.resume || named) &&
      state.doneAtKey(id) &&
      (listed ? state.stored(id) : await io.archive.outputs.exists(key));
    /** Exports a replay decided on (and claimed, in a balanced run) and records its outcome. */
    const exportOne = async (replay: ReplayInfo, rechecked: boolean, claimed: boolean): Promise<void> => {
      const id = replay.replay_id;
      exports++;
      channel.push({ type: 'started', replayId: id });
      const entry = await exportReplayToSink(replay, settings, {
        api: io.api,
        download: io.download,
        budget,
        now: io.now,
        signal,
        archive: io.archive,
        onNotice: (notice) => channel.push({ type: 'notice', notice }),
        onEvents,
        assets,
      });
      await append(entry);
      if (claimed) await balancer?.finish(id);
      flushProgress();
      channel.push({
        type: 'result',
        replayId: id,
        outcome: entry.status as ArchiveOutcome,
        entry,
        ...(entry.status === 'ok' ? { key: entry.key } : {}),
        ...(rechecked ? { rechecked } : {}),
      });
    };
    const handle = async (replay: ReplayInfo): Promise<void> => {
      const id = replay.replay_id;
      if (state.forgotten(replay)) {
        // Tombstoned by `forget` (the replay, or its user): never exported into this target again, and the state is
        // unchanged, so nothing is recorded.
        channel.push({ type: 'result', replayId: id, outcome: 'skipped', reason: 'forgotten' });
        return;
      }
      const key = io.archive.outputs.keyFor(id, settings.output);
      const named = plan.skipUnchanged?.has(id) === true;
      const stored = await present(id, key, named);
      const decision = replay.notFound
        ? 'not-found'
        : named && stored
          ? 'recheck'
          : decideReplay(replay, stored, settings, now());
      if (decision === 'not-found') {
        const entry = notFoundEntry(id, notFoundError(id), settings);
        await append(entry);
        channel.push({ type: 'result', replayId: id, outcome: 'not_found', entry });
        return;
      }
      if (decision === 'done') {
        channel.push({ type: 'result', replayId: id, outcome: 'done-before', key });
        return;
      }
      let rechecked = false;
      // Settling replays need no request; the others wait until the API has room for their first one.
      if (decision !== 'settling') await io.room?.(signal);
      if (decision === 'recheck') {
        let keys: string[] | undefined;
        try {
          keys = await listFileKeys(io.api, id, settings, signal);
        } catch (err) {
          // Cannot tell whether it changed: export again, which lists again and records what happens.
          if (isFatal(err) || signal.aborted) throw err;
        }
        if (keys !== undefined && sameFileKeys(state.fileKeys(id), keys)) {
          channel.push({ type: 'result', replayId: id, outcome: 'unchanged', key, rechecked: true });
          return;
        }
        rechecked = true;
      }
      if (decision === 'settling') {
        if (state.settling(id)) {
          // Already recorded settling by an earlier run: nothing new to record (the manifest does not grow).
          channel.push({ type: 'result', replayId: id, outcome: 'skipped', reason: 'settling' });
          return;
        }
        const entry = settlingEntry(replay, settings);
        await append(entry);
        channel.push({ type: 'result', replayId: id, outcome: 'skipped', entry });
        return;
      }
      // `max` replays exported: this one and the rest of the listing wait for the next run (nothing recorded).
      if (reachedMax()) return;
      // Balanced: claimed first (a shard that took this one already is waited for at the end). A recheck is never
      // taken by another shard, so it needs no claim.
      const claimed = balancer !== undefined && !rechecked;
      if (claimed && (await balancer.own(id)) === 'deferred') {
        deferred.push(replay);
        return;
      }
      await exportOne(replay, rechecked, claimed);
    };

    /** Another shard's replay, taken when it is still to be exported and nobody claimed it (balanced runs). */
    const takeOther = async (b: Balancer, replay: ReplayInfo): Promise<void> => {
      const id = replay.replay_id;
      if (state.forgotten(replay)) return;
      const stored = await present(id, io.archive.outputs.keyFor(id, settings.output), false);
      if (decideReplay(replay, stored, settings, now()) !== 'export' || reachedMax()) return;
      await io.room?.(signal);
      if (await b.take(replay)) await exportOne(replay, false, true);
    };
    const order = settings.order === 'expiry' ? expiryOrder : (all: ReplayInfo[]): ReplayInfo[] => all;

    let firstError: { error: unknown } | undefined;
    const guarded = async (work: () => Promise<void>): Promise<void> => {
      try {
        await work();
      } catch (err) {
        firstError ??= { error: err };
        controller.abort(err);
        throw err;
      }
    };
    const worker = async (): Promise<void> => {
      while (!signal.aborted && !full) {
        const item = await next();
        if (item.done) break;
        await guarded(() => handle(item.value));
      }
      // Balanced: done with its own, the shard takes the others' last replays.
      for (
        let r: ReplayInfo | undefined;
        balancer !== undefined && !signal.aborted && !full && (r = balancer.next(order)) !== undefined;
      ) {
        const replay = r;
        await guarded(() => takeOther(balancer, replay));
      }
    };
    const pool = async (work: () => Promise<void>): Promise<PromiseSettledResult<void>[]> =>
      Promise.allSettled(Array.from({ length: Math.max(1, settings.concurrency) }, work));
    const results = await pool(worker);
    if (
      balancer !== undefined &&
      deferred.length > 0 &&
      !results.some((r) => r.status === 'rejected') &&
      !signal.aborted
    ) {
      // Its replays another shard took: their lines awaited (`taken`); those still unfinished after the wait (the
      // other may have died holding them) exported here.
      const left = new Set(
        await awaitClaimed(
          balancer.claims,
          deferred.map((r) => r.replay_id),
          { waitMs: balance!.waitMs, startedAt, signal },
          (id) => channel.push({ type: 'result', replayId: id, outcome: 'taken', reason: 'exported by another shard' }),
        ),
      );
      const rest = deferred.filter((r) => left.has(r.replay_id));
      results.push(
        ...(await pool(async () => {
          for (let r = rest.shift(); r !== undefined && !signal.aborted; r = rest.shift()) {
            const replay = r;
            await guarded(async () => {
              if (reachedMax()) return;
              await io.room?.(signal);
              await balancer.claims.retake(replay.replay_id, balancer.holder);
              await exportOne(replay, false, true);
            });
          }
        })),
      );
    }
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    // A run that stops early starts no fold; one in progress is awaited, unless the caller interrupted the run (a fold
    // cut short by the process's exit leaves the manifest as it was: see the sinks' compactManifest).
    if (firstError !== undefined || failure !== undefined || outer?.aborted) {
      if (!outer?.aborted) await compactor?.settle();
      if (firstError) throw firstError.error;
      if (failure) throw failure.reason;
      throw outer?.reason;
    }
    await clearing;
    // A run stopped by `max` leaves the rest of the listing unread.
    if (full) await source.return?.(undefined);
    await compactor?.finish();
  };

  run().then(
    () => {
      flushProgress();
      channel.close();
    },
    (err) => channel.fail(err),
  );
  try {
    yield* channel;
  } finally {
    if (!controller.signal.aborted) controller.abort(new Error('archive stopped by its consumer'));
    outer?.removeEventListener('abort', onOuterAbort);
  }
}
