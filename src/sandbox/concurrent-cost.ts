/**
 * The two counters of the sandbox's limits, its own (the client's budgets are src/http/budget.ts): a cost held while
 * requests are in flight, and a cost spent over a sliding period.
 */

/** Cost held by the requests in flight; a request that would take it above `limit` is refused. */
export class ConcurrentCost {
  #held = 0;

  constructor(readonly limit: number) {}

  held(): number {
    return this.#held;
  }

  /** Takes `cost` and returns the function that gives it back (idempotent), or undefined when it does not fit. */
  take(cost: number): (() => void) | undefined {
    if (this.#held + cost > this.limit) return undefined;
    this.#held += cost;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#held -= cost;
    };
  }
}

/** Cost spent in the last `spanMs` (a sliding period: every spending counts for `spanMs` after it was made). */
export class PeriodCost {
  /** Times and costs of the spendings still in the period, oldest first, from `#first` on. */
  readonly #at: number[] = [];
  readonly #cost: number[] = [];
  #first = 0;
  #total = 0;

  constructor(
    readonly limit: number,
    readonly spanMs: number,
    private readonly now: () => number,
  ) {}

  /** Drops what has left the period. */
  #expire(): void {
    const edge = this.now() - this.spanMs;
    while (this.#first < this.#at.length && this.#at[this.#first]! <= edge) {
      this.#total -= this.#cost[this.#first]!;
      this.#first++;
    }
    if (this.#first > 1024 && this.#first * 2 > this.#at.length) {
      this.#at.splice(0, this.#first);
      this.#cost.splice(0, this.#first);
      this.#first = 0;
    }
  }

  spent(): number {
    this.#expire();
    return this.#total;
  }

  /** ms until the period's spending is at most `limit − cost` (0 when it is now); `cost` at most `limit`. */
  msUntilRoom(cost: number): number {
    this.#expire();
    let excess = this.#total + cost - this.limit;
    for (let i = this.#first; excess > 0 && i < this.#at.length; i++) {
      excess -= this.#cost[i]!;
      if (excess <= 0) return Math.max(1, this.#at[i]! + this.spanMs - this.now() + 1);
    }
    return 0;
  }

  spend(cost: number): void {
    if (cost <= 0) return;
    this.#at.push(this.now());
    this.#cost.push(cost);
    this.#total += cost;
  }
}
