/**
 * A cost held while requests are in flight (taxonomy's concurrent cost limit). The sliding windows of the other
 * limits are src/util/sliding-window.ts, shared with the client.
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
