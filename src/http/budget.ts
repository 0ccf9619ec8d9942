/**
 * The two kinds of cost budget the spec states:
 * - a period budget (`SlidingBudget`): at most `limit` cost units spent in any `windowMs` ("7200 per hour",
 *   "108,000 cost per hour"). A request waits until enough of the window's spending has aged out.
 * - a concurrent budget (`ConcurrentBudget`): at most `limit` cost units held by the requests in flight ("concurrent
 *   cost limit 4", "1000 cost within five minutes concurrently"). A request waits until others are answered.
 * A single cost above the whole limit can never fit in either and is refused at once (BudgetExceededError), before
 * anything is sent or any wait is announced.
 */
import { HttpClientError } from './errors.js';
import { SlidingWindow } from '../util/sliding-window.js';
import { ConfigError } from '../errors.js';

export interface BudgetSpec {
  /** Name of the limit in messages and errors (e.g. `dashboard cost per hour`). */
  name: string;
  limit: number;
  /** The period of a `window` budget; unused by a `concurrent` one. */
  windowMs: number;
  /** `window` (default): cost spent per period; `concurrent`: cost held by the requests in flight. */
  kind?: 'window' | 'concurrent';
  /**
   * `fit` (default): a request waits until its whole cost fits under the limit. `under`: a request is admitted while
   * the window's spending is under the limit, and its whole cost is then counted (the mapping limit: "beyond it all
   * requests are throttled until calls in the window fall under the limit", with batches larger than the limit).
   */
  admit?: 'fit' | 'under';
}

/** A request whose cost alone exceeds a whole budget: refused before sending. */
export class BudgetExceededError extends HttpClientError {
  readonly cost: number;
  readonly limit: number;
  readonly limitName: string;
  constructor(cost: number, spec: BudgetSpec) {
    const per = spec.kind === 'concurrent' ? 'in flight at once' : `per ${spec.windowMs} ms`;
    super(
      `request cost ${cost} exceeds the whole budget "${spec.name}" (${spec.limit} ${per}); it can never be sent`,
      'COST_EXCEEDS_BUDGET',
      { category: 'usage' },
    );
    this.cost = cost;
    this.limit = spec.limit;
    this.limitName = spec.name;
  }
}

export class SlidingBudget {
  readonly kind = 'window';
  readonly spec: BudgetSpec;
  readonly #window: SlidingWindow;

  constructor(spec: BudgetSpec, now: () => number = Date.now) {
    if (!(spec.limit > 0) || !(spec.windowMs > 0))
      throw new ConfigError(`budget ${spec.name}: limit and windowMs must be positive`);
    this.spec = spec;
    this.#window = new SlidingWindow(spec.limit, spec.windowMs, now);
  }

  /** Cost spent in the current window. */
  used(): number {
    return this.#window.used();
  }

  /** Throws BudgetExceededError when `cost` can never fit. */
  check(cost: number): void {
    if (cost > this.spec.limit && this.spec.admit !== 'under') throw new BudgetExceededError(cost, this.spec);
  }

  /** ms until `cost` fits (0: fits now). A cost of 0 is not charged and never waits. */
  waitFor(cost: number): number {
    if (cost <= 0) return 0;
    // Costs are whole units: "under the limit" is "one more unit fits".
    return this.#window.waitFor(this.spec.admit === 'under' ? 1 : cost);
  }

  /** Records spending of `cost` now (call only once `waitFor(cost)` is 0). */
  spend(cost: number): void {
    this.#window.spend(cost);
  }

  /** Takes back a spending of `cost` (the request was answered 429/503: the server did not count it). */
  refund(cost: number): void {
    this.#window.refund(cost);
  }
}

/** Cost held by the requests in flight, at most `limit`: a request takes its cost when sent, gives it back answered. */
export class ConcurrentBudget {
  readonly kind = 'concurrent';
  readonly spec: BudgetSpec;
  #held = 0;
  readonly #waiting = new Set<() => void>();

  constructor(spec: BudgetSpec) {
    if (!(spec.limit > 0)) throw new ConfigError(`budget ${spec.name}: limit must be positive`);
    this.spec = spec;
  }

  /** Cost held by the requests in flight now. */
  used(): number {
    return this.#held;
  }

  /** Throws BudgetExceededError when `cost` can never fit. */
  check(cost: number): void {
    if (cost > this.spec.limit) throw new BudgetExceededError(cost, this.spec);
  }

  /** Whether `cost` fits beside what is held now (a cost of 0 always does). */
  fits(cost: number): boolean {
    return cost <= 0 || this.#held + cost <= this.spec.limit;
  }

  /** Holds `cost` until the returned function is called (idempotent). Call only once `fits(cost)`. */
  take(cost: number): () => void {
    if (cost <= 0) return () => {};
    this.#held += cost;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#held -= cost;
      const wake = [...this.#waiting];
      this.#waiting.clear();
      for (const w of wake) w();
    };
  }

  /** Resolves when a request gives its cost back (or rejects with the signal's reason). */
  released(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiting.delete(wake);
        reject(signal!.reason);
      };
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#waiting.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
