/**
 * A cost budget over a sliding window: at most `limit` cost units spent in any `windowMs`, by the clock given. The one
 * window both the client's limit layer (src/http/budget.ts) and the sandbox's limits (src/sandbox/rate-limits.ts) keep.
 */
export class SlidingWindow {
  /** Spending in the window, oldest first. */
  #spent: { at: number; cost: number }[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  #prune(): void {
    const from = this.now() - this.windowMs;
    while (this.#spent.length > 0 && this.#spent[0]!.at <= from) this.#spent.shift();
  }

  /** Cost spent in the current window. */
  used(): number {
    this.#prune();
    return this.#spent.reduce((s, e) => s + e.cost, 0);
  }

  /** ms until `cost` fits (0: fits now; a cost above the whole limit waits a whole window). */
  waitFor(cost: number): number {
    let over = this.used() + cost - this.limit;
    if (over <= 0) return 0;
    for (const e of this.#spent) {
      over -= e.cost;
      if (over <= 0) return Math.max(1, e.at + this.windowMs - this.now() + 1);
    }
    return this.windowMs;
  }

  /** Records spending of `cost` now (call only once `waitFor(cost)` is 0). */
  spend(cost: number): void {
    if (cost > 0) this.#spent.push({ at: this.now(), cost });
  }

  /** Takes back the latest spending of `cost` still in the window (a request the server refused did not count). */
  refund(cost: number): void {
    this.#prune();
    for (let i = this.#spent.length - 1; i >= 0; i--) {
      if (this.#spent[i]!.cost === cost) {
        this.#spent.splice(i, 1);
        return;
      }
    }
  }
}
