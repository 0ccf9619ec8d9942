/**
 * A balanced run (`settings.balance`): shards sharing one target share out the work, so that they end together
 * instead of when the shard the hash gave most replays ends.
 *
 * Each shard still owns the replays of its hash (shard.ts) and exports them in its order, claiming each in the target
 * first (sinks/work-claims.ts). A shard done with its own takes the others' replays from the end of their order (the
 * listing's last ones, newest first), claiming each; it stops taking a shard's replays at the first one already
 * claimed: that shard's own export has come that far. An owner that finds its replay claimed by another shard leaves
 * it and, at its end, waits for that shard's line (`finished`), up to `waitMs`, then exports it itself.
 *
 * Nothing can be left out: an owner exports every replay of its own that nobody finished, so a shard that died holding
 * a claim costs the owner's wait and a second export, never a replay. A shard run again under the same run name takes
 * back what it held (a claim naming its own shard). Another shard's replays are taken only when the listing is read
 * whole, from its last `tail` ones (bounded memory).
 */
import type { WorkClaims } from '../../sinks/work-claims.js';
import { formatShard, shardOf, type Shard } from './shard.js';
import type { ReplayInfo } from './export-replay.js';

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
  /** Shards whose replays are no longer taken: one of theirs was claimed. */
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

  /** Claims another shard's replay: true when this shard now holds it; false (that shard's taken no more) otherwise. */
  async take(replay: ReplayInfo): Promise<boolean> {
    const id = replay.replay_id;
    const holder = await this.claims.take(id, this.holder);
    if (holder === undefined) return true;
    if (holder === this.holder) {
      // Held by an earlier process of this shard in this run: taken back unless that one wrote its line.
      if (await this.claims.finished(id)) return false;
      await this.claims.retake(id, this.holder);
      return true;
    }
    this.#stopped.add(this.ownerOf(replay));
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

/**
 * Waits until each of `ids` is `finished` by the shard that claimed it, polling (from 50 ms, half as long again each time, up to 2 s: the shard's end waits on the first ones), for at
 * most `waitMs`; calls `onFinished` for each as it is seen; resolves the ids still unfinished then.
 */
export async function awaitClaimed(
  claims: WorkClaims,
  ids: readonly string[],
  waitMs: number,
  onFinished: (replayId: string) => void,
  signal: AbortSignal,
  now: () => number = Date.now,
): Promise<string[]> {
  let pending = [...ids];
  const until = now() + waitMs;
  let pause = 50;
  for (;;) {
    const still: string[] = [];
    for (const id of pending) {
      signal.throwIfAborted();
      if (await claims.finished(id)) onFinished(id);
      else still.push(id);
    }
    pending = still;
    const left = until - now();
    if (pending.length === 0 || left <= 0) return pending;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(done, Math.min(pause, left));
      function done(): void {
        signal.removeEventListener('abort', aborted);
        resolve();
      }
      function aborted(): void {
        clearTimeout(timer);
        reject(signal.reason);
      }
      signal.addEventListener('abort', aborted, { once: true });
    });
    pause = Math.min(pause * 1.5, 2_000);
  }
}
