/**
 * A clock the test moves (src/util/clock.ts): `now()` stands still and every `sleep`/`after` waits until `advance`
 * (or `next`) moves time past it. Timers fire in time order (ties: in the order they were set), and the event loop
 * turns between two of them, so that what a timer wakes can set the next one (a retry after a retry) within the same
 * `advance`. Code under it does in a few event-loop turns what would take minutes of real time, and a test asserts
 * the order and count of what happened, never how long it took.
 */
import type { Clock } from '../../src/util/clock.js';

interface Timer {
  at: number;
  fire: () => void;
  /** Set by `sleep` (a wait of the code), not by `after` (a deadline, a time limit). */
  sleep: boolean;
}

/** Lets pending promise continuations and I/O callbacks of this turn run. */
export function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class ManualClock implements Clock {
  #now: number;
  #timers: Timer[] = [];

  /** `start`: the time `now()` reads first (ms since the epoch). */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Timers set and not yet fired or cancelled. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Sleeps under way (waits of the code: retries, pauses, budgets), deadlines and time limits left out. */
  get sleeping(): number {
    return this.#timers.filter((t) => t.sleep).length;
  }

  /** ms from now to the earliest timer; undefined when none is set. */
  get nextIn(): number | undefined {
    const first = this.#timers[0];
    return first === undefined ? undefined : Math.max(0, first.at - this.#now);
  }

  after(ms: number, fn: () => void): () => void {
    return this.#set(ms, fn, false);
  }

  #set(ms: number, fn: () => void, sleep: boolean): () => void {
    const timer: Timer = { at: this.#now + Math.max(0, ms), fire: fn, sleep };
    let i = this.#timers.length;
    while (i > 0 && this.#timers[i - 1]!.at > timer.at) i--;
    this.#timers.splice(i, 0, timer);
    return () => {
      const at = this.#timers.indexOf(timer);
      if (at >= 0) this.#timers.splice(at, 1);
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        cancel();
        reject(signal!.reason);
      };
      const cancel = this.#set(
        ms,
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        true,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Moves time forward by `ms`, firing every timer due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + Math.max(0, ms);
    for (;;) {
      await turn();
      const first = this.#timers[0];
      if (first === undefined || first.at > end) break;
      this.#timers.shift();
      this.#now = Math.max(this.#now, first.at);
      first.fire();
    }
    this.#now = end;
    await turn();
  }

  /** Moves time to the earliest timer and fires it (and any due with it); returns the ms moved, or undefined when none is set. */
  async next(): Promise<number | undefined> {
    const ms = this.nextIn;
    if (ms !== undefined) await this.advance(ms);
    return ms;
  }

  /** Resolves once at least `count` sleeps are under way (the code under test waits on this clock). */
  async whenSleeping(count = 1): Promise<void> {
    while (this.sleeping < count) await turn();
  }
}
