/** A one-shot notification that can be awaited many times: `wait()` resolves at the next `notify()`. */
export class Notifier {
  private waiters: Array<() => void> = [];

  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** Full-jitter exponential back-off delay for attempt `n` (0-based). */
export function backoffDelay(n: number, baseMs: number, maxMs: number): number {
  const cap = Math.min(maxMs, baseMs * 2 ** n);
  return Math.floor(Math.random() * cap);
}
