/**
 * The overall deadline of one request attempt: from sending it to the last byte of its body. The idle timeouts
 * (headers, body) catch a silent server; this catches one that answers, but too slowly ever to finish.
 */
import { systemClock, type Clock } from '../util/clock.js';

/**
 * A signal for one attempt that aborts when the caller's signal does (with its reason) or when `ms` have passed on
 * the clock (with the error `expire` makes). `clear()` once the attempt is over: it stops the timer and lets go of the
 * caller's signal.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #cancelTimer: () => void;
  readonly #outer: AbortSignal | undefined;
  readonly #onOuterAbort: () => void;
  #expired = false;

  constructor(ms: number, outer: AbortSignal | undefined, expire: () => Error, clock: Clock = systemClock) {
    this.#outer = outer;
    this.#onOuterAbort = () => this.#controller.abort(outer?.reason);
    if (outer?.aborted) this.#controller.abort(outer.reason);
    else outer?.addEventListener('abort', this.#onOuterAbort, { once: true });
    // The request's socket keeps the process alive while it is open; the timer alone does not (Clock.after).
    this.#cancelTimer = clock.after(ms, () => {
      this.#expired = true;
      this.#controller.abort(expire());
    });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the time ran out (as opposed to the caller aborting). */
  get expired(): boolean {
    return this.#expired;
  }

  clear(): void {
    this.#cancelTimer();
    this.#outer?.removeEventListener('abort', this.#onOuterAbort);
  }
}
