import type { ByteBudget } from './byte-budget.js';
import { Notifier } from './signal.js';
import { InternalError } from '../errors.js';

/** One download's body: its chunks and, when the server said so, its length in bytes. */
export interface DownloadBody {
  chunks: AsyncIterable<Uint8Array>;
  size?: number | undefined;
}

/** Opens one download of a file. */
type OpenBody<F> = (file: F, signal: AbortSignal) => Promise<DownloadBody>;

export interface OrderedPrefetchOptions<F> {
  open: OpenBody<F>;
  /** Files downloaded ahead of the current one (0 = strictly one at a time). */
  ahead: number;
  /** Bytes that downloads ahead may hold in memory (shared). */
  budget: ByteBudget;
  signal?: AbortSignal;
}

/**
 * One file of the sequence, handed out in order. `body()` yields the first download attempt's bytes: whatever was
 * fetched ahead (held in memory) and then the rest straight from the network as it arrives. Once a file is handed
 * out it is the "current" file and its download no longer waits for the byte budget.
 */
export interface PrefetchedFile<F> {
  readonly file: F;
  readonly position: number;
  body(): AsyncIterable<Uint8Array>;
  /** The download's length in bytes once its headers came, when the server said (Content-Length). */
  readonly size: number | undefined;
  /** Stops this file's download and frees its held bytes (called automatically when moving on). */
  discard(): void;
}

class Deferred extends Error {
  constructor() {
    super('download deferred until it is the current file');
  }
}

/**
 * One file's first download attempt, its chunks queued until the consumer reads them.
 *
 * A download ahead of the current file never pauses mid-body (a paused body would keep holding one of the
 * transport's storage slots and could starve the current files of other replays, and would trip the body timeout):
 * it starts only when the shared budget is not spent, reserves its Content-Length after the headers, and when that
 * does not fit (or, without a length, when the budget runs out while reading) it gives up its bytes and waits to be
 * the current file, which then streams from the network with no budget at all.
 */
class Slot<F> implements PrefetchedFile<F> {
  private readonly chunks: Uint8Array[] = [];
  /** Bytes counted against the budget and not yet released. */
  private charged = 0;
  private finished = false;
  private failure: unknown = undefined;
  private failed = false;
  private current = false;
  private readonly arrived = new Notifier();
  private controller = new AbortController();
  private bodyTaken = false;
  private discarded = false;
  size: number | undefined;

  constructor(
    readonly file: F,
    readonly position: number,
    private readonly budget: ByteBudget,
    private readonly open: OpenBody<F>,
    private readonly outer: AbortSignal | undefined,
  ) {
    void this.run();
  }

  private detach: (() => void) | undefined;

  private newController(): AbortSignal {
    this.detach?.();
    this.controller = new AbortController();
    const { outer, controller } = this;
    if (outer) {
      if (outer.aborted) controller.abort(outer.reason);
      else {
        const onAbort = (): void => controller.abort(outer.reason);
        outer.addEventListener('abort', onAbort, { once: true });
        this.detach = () => outer.removeEventListener('abort', onAbort);
      }
    }
    return controller.signal;
  }

  private async run(): Promise<void> {
    try {
      for (;;) {
        while (!this.current && !this.discarded && this.budget.exhausted) {
          await Promise.race([this.budget.changed(), this.arrived.wait()]);
        }
        if (this.discarded) return;
        try {
          await this.pump(this.newController());
          this.finished = true;
          return;
        } catch (err) {
          if (!(err instanceof Deferred)) throw err;
          this.controller.abort(err);
          this.dropHeld();
          while (!this.current && !this.discarded) await this.arrived.wait();
        }
      }
    } catch (err) {
      this.failed = true;
      this.failure = err;
    } finally {
      this.detach?.();
      this.arrived.notify();
    }
  }

  private async pump(signal: AbortSignal): Promise<void> {
    const body = await this.open(this.file, signal);
    if (typeof body.size === 'number' && body.size >= 0) this.size = body.size;
    let reserved = 0;
    if (!this.current && typeof body.size === 'number' && body.size >= 0) {
      if (!this.budget.tryTake(body.size)) throw new Deferred();
      reserved = body.size;
      this.charged += reserved;
    }
    let received = 0;
    for await (const chunk of body.chunks) {
      if (this.discarded) return;
      received += chunk.byteLength;
      if (received > reserved) {
        // Bytes beyond the reservation (no Content-Length, or a server sending more than it said).
        const extra = Math.min(chunk.byteLength, received - reserved);
        this.budget.take(extra);
        this.charged += extra;
        reserved += extra;
        if (!this.current && this.budget.exhausted) throw new Deferred();
      }
      this.chunks.push(chunk);
      this.arrived.notify();
    }
    // Return what was reserved but never came (short body; the decoder will notice a truncation).
    if (reserved > received) this.releaseCharged(reserved - received);
  }

  private releaseCharged(bytes: number): void {
    const n = Math.min(bytes, this.charged);
    this.charged -= n;
    this.budget.release(n);
  }

  private dropHeld(): void {
    this.chunks.length = 0;
    this.releaseCharged(this.charged);
  }

  /** Marks this slot as the file being written: from now on it never waits for the budget. */
  makeCurrent(): void {
    if (this.current) return;
    this.current = true;
    this.arrived.notify();
    this.budget.wake();
  }

  async *body(): AsyncIterable<Uint8Array> {
    if (this.bodyTaken) throw new InternalError('prefetched body can be read once');
    this.bodyTaken = true;
    this.makeCurrent();
    for (;;) {
      const chunk = this.chunks.shift();
      if (chunk !== undefined) {
        this.releaseCharged(chunk.byteLength);
        yield chunk;
        continue;
      }
      if (this.failed) throw this.failure;
      if (this.finished) return;
      if (this.discarded) throw new InternalError('prefetched file was discarded');
      await this.arrived.wait();
    }
  }

  discard(): void {
    if (this.discarded) return;
    this.discarded = true;
    this.dropHeld();
    if (!this.finished && !this.failed) this.controller.abort(new Error('download no longer needed'));
    this.arrived.notify();
  }
}

/**
 * Downloads files ahead in parallel (bounded by count and by bytes) and hands them out strictly in the order of
 * `files`. Files are pulled from `files` lazily, only as the window moves, so that a paged listing is requested just
 * before its files are needed. Leaving the loop early (break, throw) stops every download and frees held bytes.
 */
export async function* orderedPrefetch<F>(
  files: AsyncIterable<F>,
  options: OrderedPrefetchOptions<F>,
): AsyncGenerator<PrefetchedFile<F>> {
  const ahead = Math.max(0, Math.floor(options.ahead));
  const slots: Slot<F>[] = [];
  let position = 0; // index of the file the consumer holds or waits for
  let listed = false;
  let listFailed = false;
  let listError: unknown;
  let stopped = false;
  const moved = new Notifier(); // consumer moved on or stopped
  const grew = new Notifier(); // a slot was added or the listing ended

  // Current file + `ahead` files may be downloading at once; the next file is pulled only when there is room.
  const full = (): boolean => slots.length >= position + ahead + 1;
  void (async () => {
    const iterator = files[Symbol.asyncIterator]();
    try {
      for (;;) {
        while (!stopped && full()) await moved.wait();
        if (stopped) break;
        const next = await iterator.next();
        if (next.done) break;
        if (stopped) break;
        slots.push(new Slot(next.value, slots.length, options.budget, options.open, options.signal));
        grew.notify();
      }
      listed = true;
      if (stopped) await iterator.return?.();
    } catch (err) {
      listFailed = true;
      listError = err;
    } finally {
      grew.notify();
    }
  })();

  let previous: Slot<F> | undefined;
  try {
    for (let i = 0; ; i++) {
      position = i;
      moved.notify();
      while (slots.length <= i && !listed && !listFailed) await grew.wait();
      previous?.discard();
      previous = undefined;
      if (slots.length <= i) {
        if (listFailed) throw listError;
        return;
      }
      const slot = slots[i]!;
      slot.makeCurrent();
      previous = slot;
      yield slot;
    }
  } finally {
    stopped = true;
    moved.notify();
    for (const slot of slots) slot.discard();
  }
}
