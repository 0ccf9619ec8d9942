/**
 * The concurrency window of one API family, found rather than guessed (AIMD, as TCP and Netflix's concurrency-limits
 * do it, with a latency check as their gradient limiters have):
 *
 * - it starts at `initial` and grows by about one slot per window of answers (`1 / window` per answer) while the
 *   answers come back without 429 and their latency stays flat, and only while the window is in use (an answer to a
 *   request sent with the window full);
 * - a 429 or 503 (`overloaded`) multiplies the window by `backoff`; latency rising (the recent average above the long
 *   one by `latencyTolerance` times and by `latencyMarginMs`) multiplies it by `latencyBackoff`. One cut per round:
 *   answers to requests sent before the last cut do not cut again (they were sent under the old window);
 * - it remembers the level of the last cut (the ceiling): it grows back to just under it at the normal rate and onto
 *   it and past it `cautiousGrowth` times as fast, because probing a level that was too much costs a 429
 *   (and the server's Retry-After pauses the whole family). Once the window holds above the ceiling, it is forgotten:
 *   room freed by others (another shard done) is taken at the normal rate again;
 * - it never leaves [`min`, `max`].
 *
 * Several processes on one project each run their own window: additive increase with multiplicative decrease brings
 * them to equal shares of the server's limit without talking to each other (Chiu and Jain, 1989).
 */

import { ConfigError } from '../errors.js';

export interface AdaptiveSettings {
  /** Window to start with. */
  initial: number;
  /** Smallest window (at least 1). */
  min: number;
  /** Largest window: the configured maximum of the family. */
  max: number;
  /** Factor applied to the window on a 429 or 503 (0 < backoff < 1). */
  backoff: number;
  /** Factor applied to the window when latency rises (0 < latencyBackoff < 1). */
  latencyBackoff: number;
  /** Latency counts as rising when its recent average is above the long-run one by this factor … */
  latencyTolerance: number;
  /** … and by at least this many ms (small round trips jitter by more than any factor). */
  latencyMarginMs: number;
  /** Growth per window of answers onto and past the level of the last cut (normal growth is 1). */
  cautiousGrowth: number;
}

/** What the window knew when a request was sent; handed back with its outcome. */
export interface SentTicket {
  readonly epoch: number;
  /** The window was full with this request: its answer says something about a larger one. */
  readonly full: boolean;
  /** The window was at its smallest when the request went: a 429 to it cannot be answered by a cut. */
  readonly smallest: boolean;
}

/** Smoothing of the recent and the long-run latency averages (exponentially weighted). */
const RECENT_WEIGHT = 0.25;
const LONG_WEIGHT = 0.02;
/** Answers seen before latency is judged at all. */
const LATENCY_WARMUP = 10;

export class AdaptiveLimit {
  readonly settings: Readonly<AdaptiveSettings>;
  #window: number;
  #limit: number;
  /** Bumped by every cut. */
  #epoch = 0;
  /** The limit at the last cut (Infinity: none, forgotten, or the cut came at the smallest window). */
  #ceiling = Number.POSITIVE_INFINITY;
  #recentMs = 0;
  #longMs = 0;
  #samples = 0;
  readonly #onChange: ((limit: number) => void) | undefined;

  constructor(settings: AdaptiveSettings, onChange?: (limit: number) => void) {
    checkAdaptiveSettings('adaptive', settings);
    this.settings = { ...settings };
    this.#window = Math.min(settings.max, Math.max(settings.min, settings.initial));
    this.#limit = Math.floor(this.#window);
    this.#onChange = onChange;
  }

  /** Requests allowed in flight now. */
  get limit(): number {
    return this.#limit;
  }

  /** The answers' long-run average latency (ms): the family's round trip; undefined before any answer. */
  get roundTripMs(): number | undefined {
    return this.#samples > 0 ? this.#longMs : undefined;
  }

  /** The window as a real number (the limit is its whole part). */
  get window(): number {
    return this.#window;
  }

  /** A request goes out; `inFlight` counts the requests of the family in flight with it. */
  sent(inFlight: number): SentTicket {
    return { epoch: this.#epoch, full: inFlight >= this.#limit, smallest: this.#limit <= this.settings.min };
  }

  /** The server answered (any status but 429/503) after `latencyMs`. */
  answered(ticket: SentTicket, latencyMs: number): void {
    const rising = this.#observe(latencyMs);
    if (rising) {
      this.#cut(ticket, this.settings.latencyBackoff);
      return;
    }
    if (!ticket.full) return;
    const s = this.settings;
    const growth = this.#limit + 1 >= this.#ceiling ? s.cautiousGrowth : 1;
    this.#set(this.#window + growth / this.#window);
    if (this.#limit > this.#ceiling) this.#ceiling = Number.POSITIVE_INFINITY;
  }

  /** The server answered 429 or 503: too much. */
  overloaded(ticket: SentTicket): void {
    this.#cut(ticket, this.settings.backoff);
  }

  #cut(ticket: SentTicket, factor: number): void {
    if (ticket.epoch !== this.#epoch) return;
    this.#epoch++;
    // At the smallest window a 429 says that others hold everything, not that this window is too large.
    this.#ceiling = this.#limit > this.settings.min ? this.#limit : Number.POSITIVE_INFINITY;
    this.#set(this.#window * factor);
  }

  /** Updates the latency averages; true when latency is rising. */
  #observe(ms: number): boolean {
    if (!Number.isFinite(ms) || ms < 0) return false;
    this.#samples++;
    if (this.#samples === 1) {
      this.#recentMs = this.#longMs = ms;
      return false;
    }
    this.#recentMs += RECENT_WEIGHT * (ms - this.#recentMs);
    this.#longMs += LONG_WEIGHT * (ms - this.#longMs);
    if (this.#samples < LATENCY_WARMUP) return false;
    const s = this.settings;
    return this.#recentMs > this.#longMs * s.latencyTolerance && this.#recentMs - this.#longMs > s.latencyMarginMs;
  }

  #set(window: number): void {
    const s = this.settings;
    // Never past `max`: a window it cannot use would make the next cut bite less.
    this.#window = Math.min(s.max, Math.max(s.min, window));
    const limit = Math.floor(this.#window);
    if (limit !== this.#limit) {
      this.#limit = limit;
      this.#onChange?.(limit);
    }
  }
}

/** Throws a ConfigError naming the first setting out of range. */
export function checkAdaptiveSettings(name: string, s: AdaptiveSettings): void {
  const whole = (k: 'initial' | 'min' | 'max'): void => {
    if (!Number.isInteger(s[k]) || s[k] < 1)
      throw new ConfigError(`${name}.${k} must be a positive integer (got ${s[k]})`);
  };
  whole('initial');
  whole('min');
  whole('max');
  if (s.min > s.max) throw new ConfigError(`${name}.min (${s.min}) must not exceed max (${s.max})`);
  for (const k of ['backoff', 'latencyBackoff'] as const) {
    if (!(s[k] > 0 && s[k] < 1)) throw new ConfigError(`${name}.${k} must be between 0 and 1 (got ${s[k]})`);
  }
  if (!(s.latencyTolerance > 1))
    throw new ConfigError(`${name}.latencyTolerance must be above 1 (got ${s.latencyTolerance})`);
  if (!(s.latencyMarginMs >= 0))
    throw new ConfigError(`${name}.latencyMarginMs must be ≥ 0 (got ${s.latencyMarginMs})`);
  if (!(s.cautiousGrowth > 0 && s.cautiousGrowth <= 1))
    throw new ConfigError(`${name}.cautiousGrowth must be in (0, 1] (got ${s.cautiousGrowth})`);
}
