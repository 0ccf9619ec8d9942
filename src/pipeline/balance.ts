/**
 * A balanced run (`settings.balance`): shards sharing one target share out the work, so that they end together
 * instead of when the shard the hash gave most replays ends.
 *
 * Each shard still owns the replays of its hash (shard.ts) and exports them in its order, claiming each in the target
 * first (sinks/work-claims.ts). A shard done with its own takes the others' replays from the end of their order (the
 * listing's last ones, newest first), claiming each; it stops taking a shard's replays at the first one that shard
 * claimed itself: its own export has come that far (one another taker holds is passed over). An owner that finds its
 * replay claimed by another shard leaves it and, at its end, waits for that shard's `.done` (`awaitClaimed`), up to
 * `waitMs`, then exports it itself.
 *
 * Nothing can be left out: an owner exports every replay of its own that nobody finished, so a shard that died holding
 * a claim costs the owner's wait and a second export, never a replay. A shard run again under the same run name takes
 * back what it held (a claim naming its own shard). Another shard's replays are taken only when the listing is read
 * whole, from its last `tail` ones (bounded memory).
 */
import { IdTable } from '../../sinks/id-table.js';
import type { WorkClaims } from '../../sinks/sink.js';
import { formatShard, shardOf, type Shard } from './shard.js';
import type { ReplayInfo } from './export-replay.js';
import { ConfigError } from './errors.js';
import { systemClock, type Clock } from '../util/clock.js';

/** The last `size` items pushed, oldest first. */
class Tail<T> {
  #items: T[] = [];
  #start = 0;

  constructor(private readonly size: number) {}

  push(item: T): void {
    if (this.size <= 0) return;
    if (this.#items.length < this.size) this.#items.push(item);
    else {
      this.#items[this.#start] = item;
      this.#start = (this.#start + 1) % this.size;
    }
  }

  /** Oldest first; empties the tail. */
  take(): T[] {
    const items = [...this.#items.slice(this.#start), ...this.#items.slice(0, this.#start)];
    this.#items = [];
    this.#start = 0;
    return items;
  }
}

/** What an owner does with a replay of its own: export it (`go`), or leave it to the shard that claimed it. */
export type OwnClaim = 'go' | 'deferred';

export class Balancer {
  readonly holder: string;
  readonly #tail: Tail<ReplayInfo>;
  /** Other shards' replays to take, last first (filled once the listing is read whole). */
  #stack: ReplayInfo[] | undefined;
  /** Shards whose replays are no longer taken: one of theirs was claimed by its owner. */
  readonly #stopped = new Set<number>();

  constructor(
    readonly claims: WorkClaims,
    private readonly shard: Readonly<Shard>,
    tail: number,
  ) {
    this.holder = formatShard(shard);
    this.#tail = new Tail(tail);
  }

  /** A listed replay of another shard (the listing's order). */
  noteOther(replay: ReplayInfo): void {
    this.#tail.push(replay);
  }

  /** For a replay of this shard about to be exported: claims it, or says another shard holds it. */
  async own(replayId: string): Promise<OwnClaim> {
    const holder = await this.claims.take(replayId, this.holder);
    if (holder === undefined) return 'go';
    if (holder === this.holder) {
      // Held by an earlier process of this shard in this run (killed, run again): taken back.
      await this.claims.retake(replayId, this.holder);
      return 'go';
    }
    return 'deferred';
  }

  /**
   * The next replay of another shard to try, last of the listing first; undefined when none is left. `order` puts
   * the kept replays in the order their owners export them (the run's order), once.
   */
  next(order: (all: ReplayInfo[]) => ReplayInfo[]): ReplayInfo | undefined {
    this.#stack ??= order(this.#tail.take());
    for (;;) {
      const replay = this.#stack.pop();
      if (replay === undefined) return undefined;
      if (!this.#stopped.has(this.ownerOf(replay))) return replay;
    }
  }

  /**
   * Claims another shard's replay: true when this shard now holds it. False when someone holds it; when that is its
   * owner, none of the owner's replays is taken any more.
   */
  async take(replay: ReplayInfo): Promise<boolean> {
    const id = replay.replay_id;
    const holder = await this.claims.take(id, this.holder);
    if (holder === undefined) return true;
    if (holder === this.holder) {
      // Held by an earlier process of this shard (killed, run again): taken back. Had it recorded the replay `ok`, the
      // run's state would say so and the replay would not be taken at all.
      await this.claims.retake(id, this.holder);
      return true;
    }
    // The owner's own claim: its export has come this far. Another taker's: the ones before may still be free.
    const owner = this.ownerOf(replay);
    if (holder === formatShard({ index: owner, count: this.shard.count })) this.#stopped.add(owner);
    return false;
  }

  /** The replay's line is written: an owner waiting for it stops waiting. */
  finish(replayId: string): Promise<void> {
    return this.claims.finish(replayId);
  }

  private ownerOf(replay: ReplayInfo): number {
    return shardOf(replay.replay_id, this.shard.count);
  }
}

/** The claim that records which output format a run's name is used for (`claimFormat`), and its holder's mark. */
const FORMAT_CLAIM_ID = '_format/run';
const FORMAT_HOLDER = 'format:';

/** How often an owner looks for the lines of its replays another shard took. */
const POLL_MS = 100;

/** Clocks of machines sharing a target (and the store's) may be this far apart. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * Waits until the shard that claimed each of `ids` recorded its line, polling every 100 ms (the shard's end waits on
 * them: a longer pause is that much later an end), for at most `waitMs`; calls `onTaken` for each seen finished (a
 * `.done` dated later than now, past the clocks' skew, counts as absent).
 * Resolves the ids to export here: those still unfinished after the wait (the holder may have died), and those
 * finished before `startedAt` (less the clocks' skew): an earlier run under the same name, whose line this run read
 * at its start and found not `ok` (else the replay would be done), so it is tried again, as an unbalanced run would.
 */
async function awaitClaimed(
  claims: WorkClaims,
  ids: readonly string[],
  options: { waitMs: number; startedAt: number; signal: AbortSignal; clock?: Clock | undefined },
  onTaken: (replayId: string) => void,
): Promise<string[]> {
  const { waitMs, startedAt, signal } = options;
  const clock = options.clock ?? systemClock;
  const now = (): number => clock.now();
  const stale: string[] = [];
  let pending = [...ids];
  const until = now() + waitMs;
  for (;;) {
    const still: string[] = [];
    for (const id of pending) {
      signal.throwIfAborted();
      const at = await claims.finishedAt(id);
      // A `.done` dated past what the clocks' skew allows was not written by a shard of this run: absent.
      if (at === undefined || at > now() + CLOCK_SKEW_MS) still.push(id);
      else if (at < startedAt - CLOCK_SKEW_MS) stale.push(id);
      else onTaken(id);
    }
    pending = still;
    const left = until - now();
    if (pending.length === 0 || left <= 0) return [...stale, ...pending];
    await clock.sleep(Math.min(POLL_MS, left), signal);
  }
}

/** What a balanced shard tells its run about the claims of earlier runs (removed by shard 0 when it starts). */
export interface ClearingHooks {
  cleared(runs: number): void;
  failed(error: unknown): void;
}

/**
 * One shard's part in a balanced run: its `Balancer`, the replays of its own another shard holds (`deferred`, settled
 * at its end), and, in shard 0, the removal of earlier runs' claims beside its work.
 */
export class BalancedShare {
  readonly balancer: Balancer;
  /** Compared with the claims' times, which the stores' clocks give: the real clock, not the run's. */
  readonly #startedAt = Date.now();
  readonly #deferred: ReplayInfo[] = [];
  readonly #clearing: Promise<unknown> | undefined;

  constructor(
    claims: WorkClaims,
    shard: Readonly<Shard>,
    private readonly settings: Readonly<{ waitMs: number; tail: number }>,
    hooks: ClearingHooks,
    /** The clock the wait for other shards' claims is waited on (`awaitClaimed`). */
    private readonly clock: Clock = systemClock,
  ) {
    this.balancer = new Balancer(claims, shard, settings.tail);
    // Claims of earlier runs decide nothing any more: removed by one shard of the run, beside its work.
    this.#clearing =
      shard.index === 0
        ? claims.clearOtherRuns().then((runs) => (runs > 0 ? hooks.cleared(runs) : undefined), hooks.failed)
        : undefined;
  }

  /** Claims a replay of this shard: true to export it here, false when another shard holds it (settled at the end). */
  async own(replay: ReplayInfo): Promise<boolean> {
    if ((await this.balancer.own(replay.replay_id)) === 'go') return true;
    this.#deferred.push(replay);
    return false;
  }

  get hasDeferred(): boolean {
    return this.#deferred.length > 0;
  }

  /**
   * Claims the run's name for this archive's output format (`format`, e.g. `json.gz`): the first shard to start
   * records it; a run whose name an archive of another format took in this target is refused (`ConfigError`), so
   * that no claim of one format ever stands for an export of the other.
   */
  async claimFormat(format: string, run: string): Promise<void> {
    const tag = `${FORMAT_HOLDER}${format}`;
    const holder = await this.balancer.claims.take(FORMAT_CLAIM_ID, tag);
    if (holder === undefined || holder === tag) return;
    const other = holder.startsWith(FORMAT_HOLDER) ? holder.slice(FORMAT_HOLDER.length) : 'unknown';
    throw new ConfigError(
      `the balanced run ${JSON.stringify(run)} is used in this target by an archive of another format (${other}); give this archive (${format}) a run name of its own`,
    );
  }

  /**
   * Waits for the replays of its own another shard took (`awaitClaimed`): `finished` are those the other said it
   * finished (whether it exported them is for the run to confirm), `left` those to export here.
   */
  async settleDeferred(signal: AbortSignal): Promise<{ finished: ReplayInfo[]; left: ReplayInfo[] }> {
    const ids = this.#deferred.map((r) => r.replay_id);
    const done = new IdTable();
    await awaitClaimed(
      this.balancer.claims,
      ids,
      { waitMs: this.settings.waitMs, startedAt: this.#startedAt, signal, clock: this.clock },
      (id) => done.set(id, 1),
    );
    return {
      finished: this.#deferred.filter((r) => done.has(r.replay_id)),
      left: this.#deferred.filter((r) => !done.has(r.replay_id)),
    };
  }

  /** Resolves once the removal of earlier runs' claims (if this shard does it) has ended. */
  async cleared(): Promise<void> {
    await this.#clearing;
  }
}
