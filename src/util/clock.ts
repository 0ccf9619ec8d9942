/**
 * Time, as the code reads it: one injectable clock. Every reading of "now" and every wait of the transport (retries,
 * Retry-After, pauses, budgets, adaptive latency, request deadlines), the pipeline (file retries, URL ages, settle
 * and recheck windows, balance waits), asset capture and the CLI's progress goes through a `Clock`, so that a test can
 * run them under a clock it moves itself (test/helpers/manual-clock.ts) and assert what happened, not how fast.
 */

export interface Clock {
  /** ms since the epoch. */
  now(): number;
  /** Resolves once `ms` have passed on this clock; rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Calls `fn` once `ms` have passed on this clock, unless the returned function is called first. The timer never
   * keeps the process alive by itself.
   */
  after(ms: number, fn: () => void): () => void;
}

/** Resolves after `ms` of `setTimeout`, or rejects with the signal's reason as soon as it aborts. */
function sleepReal(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The real clock: `Date.now` and `setTimeout`, looked up at each call (so that vitest's fake timers, where a test
 * uses them, apply to it as well).
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: sleepReal,
  after(ms, fn) {
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref?.();
    return () => clearTimeout(timer);
  },
};

/** Sleeps `ms` on the real clock (the one wait helper; code that takes a clock calls `clock.sleep`). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return systemClock.sleep(ms, signal);
}
