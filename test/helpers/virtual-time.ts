/**
 * Virtual time for a client and the sandbox sharing one ManualClock: the sandbox's latency, the client's pauses,
 * retries, budgets and round trips all run on it, and `drive` moves it to the next timer only once nothing else can
 * happen — every request the transports have in flight is sleeping at the sandbox. A request then takes exactly the
 * sandbox's latency, a Retry-After exactly its seconds, whatever the machine's load: the test asserts what happened
 * in that time, in order, and never how fast the machine was.
 */
import type { Clock } from '../../src/util/clock.js';
import type { Transport } from '../../src/http/index.js';
import { setTimeout as pause } from 'node:timers/promises';
import { ManualClock, turn } from './manual-clock.js';

/** A clock that counts its own sleeps under way (the sandbox's latency, told apart from the client's waits). */
export class CountingClock implements Clock {
  #sleeping = 0;

  constructor(readonly clock: ManualClock) {}

  get sleeping(): number {
    return this.#sleeping;
  }

  now(): number {
    return this.clock.now();
  }

  after(ms: number, fn: () => void): () => void {
    return this.clock.after(ms, fn);
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.#sleeping++;
    try {
      await this.clock.sleep(ms, signal);
    } finally {
      this.#sleeping--;
    }
  }
}

/** One clock for a test: `client` for the transports, `sandbox` for the sandbox (its `clock` option). */
export class VirtualTime {
  readonly client = new ManualClock();
  readonly sandbox = new CountingClock(this.client);
  readonly #transports: Transport[] = [];
  #works = 0;
  #driver: Promise<void> | undefined;

  /** Transports whose requests in flight `drive` waits for. */
  watch(...transports: Transport[]): void {
    this.#transports.push(...transports);
  }

  /** Requests the watched transports have on their way now (every family). */
  inFlight(): number {
    let n = 0;
    for (const t of this.#transports) n += t.holding();
    return n;
  }

  /** Nothing can happen but on the clock: every request in flight is sleeping at the sandbox. */
  idle(): boolean {
    return this.inFlight() === this.sandbox.sleeping;
  }

  /**
   * Resolves with `work`'s outcome, moving the clock to its next timer each time the system has stayed idle for a few
   * event-loop turns. `work` must watch its transports before it sends anything. Works driven at once share one
   * driver: the clock moves while any of them is under way.
   */
  async drive<T>(work: Promise<T>): Promise<T> {
    this.#works++;
    const settled = work.finally(() => {
      this.#works--;
    });
    settled.catch(() => undefined);
    this.#driver ??= this.#run().finally(() => {
      this.#driver = undefined;
    });
    return settled;
  }

  async #run(): Promise<void> {
    let busy = 0;
    while (this.#works > 0) {
      // Requests on the wire: look again at the next turn, and after a while every millisecond (a real wait, for I/O
      // to happen, not to measure anything).
      if (!this.idle()) {
        if (++busy < 50) await turn();
        else await pause(1);
        continue;
      }
      busy = 0;
      let quiet = 0;
      while (this.#works > 0 && quiet < 3 && this.idle()) {
        await turn();
        quiet++;
      }
      // Idle through every turn, the last one included: a request that took its slot during it is on its way.
      if (this.#works === 0 || quiet < 3 || !this.idle()) continue;
      if (this.client.nextIn === undefined) await pause(1);
      else await this.client.next();
    }
  }
}
