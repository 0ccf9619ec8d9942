/**
 * One archive run (`runArchive`): the object that owns the run's queue and state — the listing it pulls from, the
 * manifest's state, the exports started, the first error — and carries out the decisions (archive-decisions.ts) on
 * each listed replay with bounded concurrency.
 */
import { setMaxListeners } from 'node:events';
import type { ManifestEntry, ManifestError } from '../../sinks/sink.js';
import { IdTable } from '../../sinks/id-table.js';
import { extensionFor } from '../../sinks/keys.js';
import { refreshCatalogue } from '../catalogue/index.js';
import { InternalError } from '../errors.js';
import { candidates, expiryOrder } from './archive-listing.js';
import { decideListed, decideReplay } from './archive-decisions.js';
import type { ArchiveEvent, ArchiveIo, ArchiveOutcome, ArchivePlan } from './archive-types.js';
import { BalancedShare } from './balance.js';
import { ByteBudget } from './byte-budget.js';
import { Channel } from './channel.js';
import { countFailure, describeFailure, isPermanent } from './quarantine.js';
import { ManifestCompactor } from './compaction.js';
import { isFatal, ReplayFailedError, ReplayIdTooLongError, ReplayNotFoundError } from './errors.js';
import { exportReplayToSink, type ReplayInfo } from './export-replay.js';
import { listFilesInKeyOrder } from './file-listing.js';
import { sameFileKeys } from './manifest.js';
import {
  exportedFields,
  failedEntry,
  fitEntry,
  MAX_REPLAY_ID_BYTES,
  notFoundEntry,
  settlingEntry,
  tooLargeEntry,
} from './manifest-entries.js';
import { markStoredOutputs, readResumeState, type ResumeState, type ResumeStateOptions } from './resume-state.js';
import type { Settings } from './settings.js';
import { systemClock, type Clock } from '../util/clock.js';

/** Events counted between two `progress` events (at most one every 200 ms). */
class ProgressCounter {
  #pending = 0;
  #last = 0;

  constructor(
    private readonly push: (events: number) => void,
    private readonly clock: Clock,
  ) {}

  add(n: number): void {
    this.#pending += n;
    const t = this.clock.now();
    if (t - this.#last >= 200) {
      this.#last = t;
      this.flush();
    }
  }

  flush(): void {
    if (this.#pending > 0) this.push(this.#pending);
    this.#pending = 0;
  }
}

function notFoundError(id: string): ManifestError {
  const err = new ReplayNotFoundError(id);
  return { code: err.code, message: err.message };
}

export class ArchiveRun {
  readonly #controller = new AbortController();
  readonly #channel = new Channel<ArchiveEvent>();
  readonly #budget: ByteBudget;
  readonly #progress: ProgressCounter;
  readonly #clock: Clock;
  #state!: ResumeState;
  /** Whether the outputs were listed once (`markStoredOutputs`): `state.stored` then answers for them. */
  #listed = false;
  #compactor: ManifestCompactor | undefined;
  #balanced: BalancedShare | undefined;
  #source!: AsyncIterator<ReplayInfo>;
  #sourceBusy: Promise<unknown> = Promise.resolve();
  /** Exports started (`plan.max`); once `full`, no worker takes another replay from the listing. */
  #exports = 0;
  #full = false;
  #firstError: { error: unknown } | undefined;
  /** Errors about the run, not one replay (the manifest refusing a line, a claim's end not written): they stop it. */
  readonly #runErrors = new WeakSet<object>();

  constructor(
    private readonly plan: ArchivePlan,
    private readonly settings: Settings,
    private readonly io: ArchiveIo,
  ) {
    this.#budget = new ByteBudget(settings.prefetchBytes);
    this.#clock = io.clock ?? systemClock;
    this.#progress = new ProgressCounter((events) => this.#channel.push({ type: 'progress', events }), this.#clock);
  }

  get #signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Runs the plan; yields per-replay results and progress. A fatal failure or the caller's abort is thrown. */
  async *events(): AsyncGenerator<ArchiveEvent> {
    const outer = this.io.signal;
    const onOuterAbort = (): void => this.#controller.abort(outer?.reason);
    if (outer?.aborted) this.#controller.abort(outer.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    // Every download and request of the run listens to this one signal.
    setMaxListeners(0, this.#signal);
    try {
      if (this.settings.captureAssets !== undefined && this.io.assets === undefined)
        throw new InternalError('asset capture is on but the run gave no capture');
      this.#run().then(
        () => {
          this.#progress.flush();
          this.#channel.close();
        },
        (err: unknown) => this.#channel.fail(err),
      );
      yield* this.#channel;
    } finally {
      if (!this.#signal.aborted) this.#controller.abort(new Error('archive stopped by its consumer'));
      outer?.removeEventListener('abort', onOuterAbort);
    }
  }

  async #run(): Promise<void> {
    await this.#open();
    const results = await this.#pool(() => this.#worker());
    if (this.#balanced?.hasDeferred === true && !results.some((r) => r.status === 'rejected') && !this.#signal.aborted)
      results.push(...(await this.#settleDeferred(this.#balanced)));
    await this.#end(results);
  }

  /** Reads the manifest's state and opens the listing; a balanced shard also starts on its claims. */
  async #open(): Promise<void> {
    const { settings, io, plan } = this;
    this.#balanced = await this.#openShare();
    const keyFor = (id: string): string => this.#keyOf(id);
    const skipUnchanged = plan.skipUnchanged;
    this.#state = await readResumeState(io.archive.manifest, {
      ...this.#stateOptions(),
      // A balanced shard may take any replay: it knows them all.
      shard: this.#balanced === undefined ? settings.shard : undefined,
      recheckMs: settings.recheckMs,
      ...(skipUnchanged !== undefined ? { fileKeysOf: (id: string) => skipUnchanged.has(id) } : {}),
    });
    this.#compactor = this.#newCompactor();
    // A sink that lists its outputs cheaply (S3) is listed once, before any export, instead of asked per archived
    // replay: no existence check then takes an export slot, and 1M archived replays cost ~1,000 requests, not 1M.
    this.#listed = plan.resume && (await markStoredOutputs(io.archive.outputs, this.#state, keyFor));
    const onListed = (count: number, complete: boolean): void =>
      this.#channel.push({ type: 'listed', count, complete });
    const balancer = this.#balanced?.balancer;
    // Ids taken so far (a replay listed twice is taken once), compact like the resume state.
    const listing = candidates(plan, settings, new IdTable(), onListed, balancer && ((r) => balancer.noteOther(r)));
    this.#source = listing[Symbol.asyncIterator]();
  }

  /** A balanced shard's part, its run's name claimed for this archive's format; undefined when not balanced. */
  async #openShare(): Promise<BalancedShare | undefined> {
    const { balance, shard, output } = this.settings;
    if (balance === undefined || shard === undefined) return undefined;
    const share = new BalancedShare(
      this.io.archive.work(balance.run),
      shard,
      balance,
      {
        cleared: (runs) => this.#channel.push({ type: 'claims-cleared', runs }),
        failed: (error) => this.#channel.push({ type: 'claims-clear-failed', error }),
      },
      this.#clock,
    );
    await share.claimFormat(extensionFor(output).slice(1), balance.run);
    return share;
  }

  /** What an `ok` line must hold to count as this run's (its key, policy, capture). */
  #stateOptions(): ResumeStateOptions {
    return {
      keyFor: (id) => this.#keyOf(id),
      now: this.#clock.now(),
      redaction: this.settings.redaction?.digest,
      captureAssets: this.settings.captureAssets !== undefined,
    };
  }

  /**
   * Folds cost about the manifest's size: spaced at least that far apart, a run's folds cost at most twice its own
   * entries. Only archive runs fold (an export of given replays keeps its manifest a plain log).
   */
  #newCompactor(): ManifestCompactor | undefined {
    const every = this.settings.compactEvery;
    if (every === undefined || !this.plan.resume) return undefined;
    return new ManifestCompactor(this.io.archive.manifest, {
      shard: this.settings.shard,
      every: Math.max(every, this.#state.entries),
      signal: this.io.signal,
      onResult: (result) => this.#channel.push({ type: 'compacted', result }),
      onError: (error) => this.#channel.push({ type: 'compaction-failed', error }),
      afterFold: () => this.#refreshCatalogue(),
    });
  }

  /** After a fold: the archive's catalogue, when the cache holds one, brought up to the manifest; a failure is told. */
  #refreshCatalogue(): Promise<void> {
    return refreshCatalogue(this.io.archive, {
      ...(this.settings.catalogueDir === undefined ? {} : { dir: this.settings.catalogueDir }),
      onlyIfPresent: true,
      onBuild: (r) => this.#channel.push({ type: 'catalogued', rows: r.rows, ms: r.ms }),
    }).then(
      () => undefined,
      (error: unknown) => this.#channel.push({ type: 'catalogue-failed', error }),
    );
  }

  /** The next listed replay; one worker at a time pulls from the listing (async generators queue calls, this keeps it explicit). */
  #next(): Promise<IteratorResult<ReplayInfo>> {
    const p = this.#sourceBusy.then(() => this.#source.next());
    this.#sourceBusy = p.catch(() => undefined);
    return p;
  }

  /** Whether `plan.max` exports were started; once so, the run is `full`: no worker takes another replay. */
  #reachedMax(): boolean {
    if (this.plan.max !== undefined && this.#exports >= this.plan.max) this.#full = true;
    return this.#full;
  }

  #keyOf(id: string): string {
    return this.io.archive.outputs.keyFor(id, this.settings.output);
  }

  /** Whether the replay is recorded `ok` at `key` with its output there (and the run resumes, or it is named). */
  async #present(id: string, key: string, named: boolean): Promise<boolean> {
    return (
      (this.plan.resume || named) &&
      this.#state.doneAtKey(id) &&
      (this.#listed ? this.#state.stored(id) : await this.io.archive.outputs.exists(key))
    );
  }

  /**
   * Appends a replay's line: as a record can hold it (`fitEntry`), else a line saying it could not be recorded. What
   * the manifest refuses otherwise stops the run (a run that cannot record cannot go on).
   */
  async #append(entry: ManifestEntry): Promise<ManifestEntry> {
    const fitted = fitEntry(entry) ?? tooLargeEntry(entry);
    // A permanent cause counts its runs; an archive quarantines the replay at `quarantineAfter`.
    const quarantineAfter = this.plan.resume ? this.settings.quarantineAfter : undefined;
    const recorded =
      fitted.status === 'failed'
        ? countFailure(fitted, this.#state.failure(fitted.replay_id), quarantineAfter)
        : fitted;
    try {
      await this.io.archive.manifest.append(recorded);
    } catch (err) {
      if (typeof err === 'object' && err !== null) this.#runErrors.add(err);
      throw err;
    }
    this.#compactor?.noteAppend();
    return recorded;
  }

  #result(event: Omit<Extract<ArchiveEvent, { type: 'result' }>, 'type'>): void {
    this.#channel.push({ type: 'result', ...event });
  }

  /** Records an entry that needs no export (`not_found`, `settling`, `failed` before any export) and says so. */
  async #record(entry: ManifestEntry, outcome: ArchiveOutcome): Promise<void> {
    const recorded = await this.#append(entry);
    this.#result({
      replayId: entry.replay_id,
      outcome: recorded.status === 'quarantined' ? 'quarantined' : outcome,
      entry: recorded,
    });
  }

  /** Records the replay `failed` with `cause`: what it brought (its id, files, events, claims) failed it alone. */
  #recordFailure(replay: ReplayInfo, cause: unknown): Promise<void> {
    const failure =
      cause instanceof ReplayFailedError ? cause : new ReplayFailedError(replay.replay_id, undefined, cause);
    const entry = failedEntry(
      exportedFields(replay, this.settings),
      failure.toManifestError(),
      [],
      isPermanent(failure.category),
    );
    return this.#record(entry, 'failed');
  }

  /**
   * Runs the work on one replay: a failure of its own is recorded as its outcome and the run goes on; only what is
   * about the run (credentials, an abort, the manifest refusing a line, a claim's end) is thrown.
   */
  async #own(replay: ReplayInfo, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      if (isFatal(err) || this.#signal.aborted || (typeof err === 'object' && err !== null && this.#runErrors.has(err)))
        throw err;
      await this.#recordFailure(replay, err);
    }
  }

  /** Exports a replay decided on (and claimed, in a balanced run) and records its outcome. */
  async #exportOne(replay: ReplayInfo, rechecked: boolean, claimed: boolean): Promise<void> {
    const { io, settings } = this;
    const id = replay.replay_id;
    this.#exports++;
    this.#channel.push({ type: 'started', replayId: id });
    const entry = await exportReplayToSink(replay, settings, {
      api: io.api,
      download: io.download,
      budget: this.#budget,
      clock: this.#clock,
      signal: this.#signal,
      archive: io.archive,
      onNotice: (notice) => this.#channel.push({ type: 'notice', notice }),
      onEvents: (n) => this.#progress.add(n),
      assets: io.assets,
    });
    const recorded = await this.#append(entry);
    if (claimed) await this.#runLevel(this.#balanced?.balancer.finish(id));
    this.#progress.flush();
    this.#result({
      replayId: id,
      outcome: recorded.status as ArchiveOutcome,
      entry: recorded,
      ...(recorded.status === 'ok' ? { key: recorded.key } : {}),
      ...(rechecked ? { rechecked } : {}),
    });
  }

  /** A listed replay of this shard: decided on, then left alone, recorded, re-checked or exported. */
  async #handle(replay: ReplayInfo): Promise<void> {
    const id = replay.replay_id;
    if (this.#state.forgotten(replay)) {
      // Tombstoned by `forget` (the replay, or its user): never exported into this target again, and the state is
      // unchanged, so nothing is recorded.
      this.#result({ replayId: id, outcome: 'skipped', reason: 'forgotten' });
      return;
    }
    if (replay.idBytes !== undefined)
      return this.#recordFailure(replay, new ReplayIdTooLongError(id, replay.idBytes, MAX_REPLAY_ID_BYTES));
    const key = this.#keyOf(id);
    const named = this.plan.skipUnchanged?.has(id) === true;
    const present = await this.#present(id, key, named);
    const quarantined = this.plan.resume && !this.settings.retryQuarantined && this.#state.quarantined(id);
    const facts = { notFound: replay.notFound === true, named, present, quarantined };
    const decision = decideListed(replay, facts, this.settings, this.#clock.now());
    if (decision === 'quarantined') {
      const failure = this.#state.failure(id);
      const reason = failure === undefined ? 'quarantined' : `quarantined: ${describeFailure(failure)}`;
      return this.#result({ replayId: id, outcome: 'quarantined', reason });
    }
    if (decision === 'not-found') return this.#record(notFoundEntry(id, notFoundError(id), this.settings), 'not_found');
    if (decision === 'done') return this.#result({ replayId: id, outcome: 'done-before', key });
    if (decision === 'settling') return this.#settling(replay);
    // The others wait until the API has room for their first request.
    await this.io.room?.(this.#signal);
    const rechecked = decision === 'recheck';
    if (rechecked && (await this.#unchanged(id))) {
      this.#result({ replayId: id, outcome: 'unchanged', key, rechecked: true });
      return;
    }
    // `max` replays exported: this one and the rest of the listing wait for the next run (nothing recorded).
    if (this.#reachedMax()) return;
    // Balanced: claimed first (a shard that took this one already is waited for at the end). A recheck is never
    // taken by another shard, so it needs no claim.
    const claimed = this.#balanced !== undefined && !rechecked;
    if (claimed && !(await this.#balanced!.own(replay))) return;
    await this.#exportOne(replay, rechecked, claimed);
  }

  /** A replay too recent to export: recorded `skipped` once (a run that finds it still settling records nothing). */
  async #settling(replay: ReplayInfo): Promise<void> {
    const id = replay.replay_id;
    if (this.#state.settling(id)) {
      this.#result({ replayId: id, outcome: 'skipped', reason: 'settling' });
      return;
    }
    this.#result({ replayId: id, outcome: 'skipped', entry: await this.#append(settlingEntry(replay, this.settings)) });
  }

  /** A recheck: whether the replay's files are the ones recorded. Cannot tell (a listing failed): false, exported again. */
  async #unchanged(id: string): Promise<boolean> {
    let keys: string[];
    try {
      keys = (await listFilesInKeyOrder(this.io.api, id, this.settings, { signal: this.#signal })).map((f) => f.key);
    } catch (err) {
      // Export again, which lists again and records what happens.
      if (isFatal(err) || this.#signal.aborted) throw err;
      return false;
    }
    return sameFileKeys(this.#state.fileKeys(id), keys);
  }

  /** Another shard's replay, taken when it is still to be exported and nobody claimed it (balanced runs). */
  async #takeOther(replay: ReplayInfo): Promise<void> {
    const id = replay.replay_id;
    if (this.#state.forgotten(replay) || replay.idBytes !== undefined) return;
    const present = await this.#present(id, this.#keyOf(id), false);
    if (decideReplay(replay, present, this.settings, this.#clock.now()) !== 'export' || this.#reachedMax()) return;
    await this.io.room?.(this.#signal);
    if (await this.#balanced!.balancer.take(replay)) await this.#exportOne(replay, false, true);
  }

  /** Awaits `work`; what it throws is about the run (`#runErrors`). */
  async #runLevel(work: Promise<unknown> | undefined): Promise<void> {
    try {
      await work;
    } catch (err) {
      if (typeof err === 'object' && err !== null) this.#runErrors.add(err);
      throw err;
    }
  }

  /** Runs one replay's work; the first failure stops the run (every worker stops taking replays). */
  async #guarded(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      this.#firstError ??= { error: err };
      this.#controller.abort(err);
      throw err;
    }
  }

  async #worker(): Promise<void> {
    while (!this.#signal.aborted && !this.#full) {
      const item = await this.#next();
      if (item.done) break;
      const replay = item.value;
      await this.#guarded(() => this.#own(replay, () => this.#handle(replay)));
    }
    // Balanced: done with its own, the shard takes the others' last replays.
    const balancer = this.#balanced?.balancer;
    if (balancer === undefined) return;
    const order = this.settings.order === 'expiry' ? expiryOrder : (all: ReplayInfo[]): ReplayInfo[] => all;
    for (
      let r: ReplayInfo | undefined;
      !this.#signal.aborted && !this.#full && (r = balancer.next(order)) !== undefined;
    ) {
      const replay = r;
      await this.#guarded(() => this.#own(replay, () => this.#takeOther(replay)));
    }
  }

  #pool(work: () => Promise<void>): Promise<PromiseSettledResult<void>[]> {
    return Promise.allSettled(Array.from({ length: Math.max(1, this.settings.concurrency) }, work));
  }

  /**
   * Its replays another shard took: their lines awaited; each one the archive shows exported (`#exportedElsewhere`) is
   * `taken`; the others — still unfinished after the wait (the other may have died holding them), finished with no
   * `ok` line in this archive's format, or claimed by no shard of this run at all (a claim planted or left behind) —
   * are exported here.
   */
  async #settleDeferred(share: BalancedShare): Promise<PromiseSettledResult<void>[]> {
    const { finished, left } = await share.settleDeferred(this.#signal);
    const exported = await this.#exportedElsewhere(finished);
    for (const replay of finished)
      if (exported.has(replay.replay_id))
        this.#result({ replayId: replay.replay_id, outcome: 'taken', reason: 'exported by another shard' });
      else left.push(replay);
    return this.#pool(async () => {
      for (let r = left.shift(); r !== undefined && !this.#signal.aborted; r = left.shift()) {
        const replay = r;
        await this.#guarded(() =>
          this.#own(replay, async () => {
            if (this.#reachedMax()) return;
            await this.io.room?.(this.#signal);
            await share.balancer.claims.retake(replay.replay_id, share.balancer.holder);
            await this.#exportOne(replay, false, true);
          }),
        );
      }
    });
  }

  /**
   * Which of `replays` the archive shows exported: its manifest, read again for them alone, records each `ok` at this
   * run's key (its format) under this run's policy, and its output is there. A claim says who works, never what is
   * archived: a `.done` alone (planted, another format's, a run name used again) hides no replay.
   */
  async #exportedElsewhere(replays: readonly ReplayInfo[]): Promise<IdTable> {
    const exported = new IdTable();
    if (replays.length === 0) return exported;
    const ids = new IdTable();
    for (const r of replays) ids.set(r.replay_id, 1);
    const state = await readResumeState(this.io.archive.manifest, {
      ...this.#stateOptions(),
      shard: undefined,
      only: (id) => ids.has(id),
    });
    for (const r of replays) {
      const id = r.replay_id;
      if (state.doneAtKey(id) && (await this.io.archive.outputs.exists(this.#keyOf(id)))) exported.set(id, 1);
    }
    return exported;
  }

  /**
   * A run that stops early starts no fold; one in progress is awaited, unless the caller interrupted the run (a fold
   * cut short by the process's exit leaves the manifest as it was: see the sinks' compactManifest).
   */
  async #end(results: PromiseSettledResult<void>[]): Promise<void> {
    const outer = this.io.signal;
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (this.#firstError !== undefined || failure !== undefined || outer?.aborted) {
      if (!outer?.aborted) await this.#compactor?.settle();
      if (this.#firstError) throw this.#firstError.error;
      if (failure) throw failure.reason;
      throw outer?.reason;
    }
    await this.#balanced?.cleared();
    // A run stopped by `max` leaves the rest of the listing unread.
    if (this.#full) await this.#source.return?.(undefined);
    await this.#compactor?.finish();
  }
}
