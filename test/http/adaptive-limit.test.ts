/** The adaptive window's rules, step by step (src/http/adaptive-limit.ts); the sandbox tests show them over HTTP. */
import { describe, expect, it } from 'vitest';
import {
  AdaptiveLimit,
  DEFAULT_ADAPTIVE,
  resolveTransportOptions,
  type AdaptiveSettings,
} from '../../src/http/index.js';

const SETTINGS: AdaptiveSettings = {
  initial: 1,
  min: 1,
  max: 6,
  backoff: 0.5,
  latencyBackoff: 0.8,
  latencyTolerance: 2,
  latencyMarginMs: 50,
  cautiousGrowth: 0.125,
};

/** One full window of answers at `ms`, each sent with the window full. */
function answerWindow(w: AdaptiveLimit, ms = 100): void {
  const n = w.limit;
  const tickets = Array.from({ length: n }, () => w.sent(n));
  for (const t of tickets) w.answered(t, ms);
}

describe('AdaptiveLimit', () => {
  it('grows by up to one slot per window of answers (1/window per answer), never past its maximum', () => {
    const changes: number[] = [];
    const w = new AdaptiveLimit(SETTINGS, (l) => changes.push(l));
    const limits = Array.from({ length: 12 }, () => (answerWindow(w), w.limit));
    expect(limits.slice(0, 7)).toEqual([2, 2, 3, 4, 5, 6, 6]);
    expect(w.limit).toBe(6);
    expect(changes).toEqual([2, 3, 4, 5, 6]);
  });

  it('does not grow on answers to requests sent with the window not full', () => {
    const w = new AdaptiveLimit({ ...SETTINGS, initial: 4 });
    for (let i = 0; i < 20; i++) w.answered(w.sent(2), 100);
    expect(w.limit).toBe(4);
  });

  it('halves on a 429, once for the requests sent before the cut', () => {
    const w = new AdaptiveLimit({ ...SETTINGS, initial: 6 });
    const before = Array.from({ length: 6 }, () => w.sent(6));
    for (const t of before) w.overloaded(t);
    expect(w.limit).toBe(3);
    w.overloaded(w.sent(3));
    expect(w.limit).toBe(1);
    w.overloaded(w.sent(1));
    expect(w.limit).toBe(1); // never below min
  });

  it('goes back onto the level of its last 429 eight times more slowly, then at the normal rate past it', () => {
    const w = new AdaptiveLimit({ ...SETTINGS, initial: 4 });
    w.overloaded(w.sent(4)); // 4 was too much: 2
    expect(w.limit).toBe(2);
    answerWindow(w);
    answerWindow(w);
    expect(w.limit).toBe(3); // under the ceiling: normal growth
    let windows = 0;
    while (w.limit < 4) {
      answerWindow(w);
      windows++;
    }
    expect(windows).toBeGreaterThanOrEqual(7); // onto 4: 1/8 slot per window
    windows = 0;
    while (w.limit < 5) {
      answerWindow(w);
      windows++;
    }
    expect(windows).toBeGreaterThanOrEqual(7); // past it, still probing slowly
    answerWindow(w);
    answerWindow(w);
    expect(w.limit).toBe(6); // 5 held: the ceiling is forgotten, normal growth again
  });

  it('is cut when latency rises well above its long-run average, and not on jitter', () => {
    const w = new AdaptiveLimit({ ...SETTINGS, initial: 6 });
    for (let i = 0; i < 30; i++) w.answered(w.sent(1), 100 + (i % 2 ? 30 : -30)); // jitter, window not full
    expect(w.limit).toBe(6);
    for (let i = 0; i < 3 && w.limit === 6; i++) w.answered(w.sent(1), 600);
    expect(w.limit).toBe(4); // 6 × 0.8 = 4.8
  });

  it('is configured from the transport options: on by default, off with adaptive: false, settings checked', () => {
    expect(resolveTransportOptions({}).adaptive).toEqual({ ...DEFAULT_ADAPTIVE });
    expect(resolveTransportOptions({ adaptive: false }).adaptive.enabled).toBe(false);
    expect(resolveTransportOptions({ adaptive: { initial: { replay: 3 } } }).adaptive.initial.replay).toBe(3);
    expect(() => resolveTransportOptions({ adaptive: { backoff: 1.5 } })).toThrow(/backoff must be between 0 and 1/);
    expect(() => resolveTransportOptions({ adaptive: { initial: { storage: 0 } } })).toThrow(
      /adaptive.initial.storage must be a positive integer/,
    );
  });
});
