/**
 * A cost budget over a sliding window: at most `limit` cost units spent in any `windowMs`. A request waits
 * until enough of the window's spending has aged out; a single cost above the whole limit can never fit and
 * is refused at once (BudgetExceededError), before anything is sent.
 */
import { HttpClientError } from './errors.js';
import { SlidingWindow } from '../util/sliding-window.js';
import { ConfigError } from '../errors.js';

export interface BudgetSpec {
  /** Name of the limit in messages and errors (e.g. `dashboard cost per 5 min`). */
  name: string;
  limit: number;
  windowMs: number;
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
    super(
      `request cost ${cost} exceeds the whole budget "${spec.name}" (${spec.limit} per ${spec.windowMs} ms); it can never be sent`,
      'cost_exceeds_budget',
      { category: 'usage' },
    );
    this.cost = cost;
    this.limit = spec.limit;
    this.limitName = spec.name;
  }
}

export class SlidingBudget {
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
