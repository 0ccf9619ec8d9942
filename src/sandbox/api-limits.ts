/**
 * The analytics host's concurrency limit as the spec states it ("5 concurrent requests across all REST endpoints", per
 * project), and a log of when requests of each family arrived, so that tests can see what a client did: how many
 * requests it had in flight at once, and whether it held a family back after a 429.
 */
import type { ServerResponse } from 'node:http';
import { SandboxConfigError } from './options.js';

export interface ApiArrival {
  /** `replay`, `feedback`, ... (the client's family names), or `unknown` for a path no family serves. */
  family: string;
  path: string;
  /** The sandbox's time (`now`) when the request arrived. */
  at: number;
  /** The status answered and when (set when the response is finished; 0 before). */
  status: number;
  answeredAt: number;
}

/** Entries kept in the arrival log (the oldest are dropped beyond this). */
const LOG_LIMIT = 10_000;

export class ApiLimits {
  #inFlight = 0;
  #peak = 0;
  #limited = 0;
  readonly #log: ApiArrival[] = [];

  /** `now`: the sandbox's time readings (arrivals and answers are stamped with it). */
  constructor(
    private maxInFlight: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The limit now (0: none). */
  get max(): number {
    return this.maxInFlight;
  }

  /** Changes the limit from now on (0: none); requests in flight stay. */
  setMax(max: number): void {
    if (!Number.isInteger(max) || max < 0)
      throw new SandboxConfigError(`apiConcurrency must be a non-negative integer (0: no limit), got ${max}`);
    this.maxInFlight = max;
  }

  /**
   * Records the arrival and, when it `counts` against the host's limit, takes one of its slots until the response
   * ends. Returns false when all are taken: the caller answers 429 (the slot is not taken, the arrival is logged with
   * that status).
   */
  enter(family: string, path: string, res: ServerResponse, counts = true): boolean {
    const arrival: ApiArrival = { family, path, at: this.now(), status: 0, answeredAt: 0 };
    this.#log.push(arrival);
    if (this.#log.length > LOG_LIMIT) this.#log.shift();
    res.once('finish', () => {
      arrival.status = res.statusCode;
      arrival.answeredAt = this.now();
    });
    if (!counts) return true;
    if (this.max > 0 && this.#inFlight >= this.max) {
      this.#limited++;
      return false;
    }
    this.#inFlight++;
    this.#peak = Math.max(this.#peak, this.#inFlight);
    let left = false;
    const leave = (): void => {
      if (left) return;
      left = true;
      this.#inFlight--;
    };
    res.once('finish', leave);
    res.once('close', leave);
    return true;
  }

  /** The most requests in flight at once so far; requests answered 429 by this limit. */
  counters(): { peakInFlight: number; concurrencyLimited: number } {
    return { peakInFlight: this.#peak, concurrencyLimited: this.#limited };
  }

  /** Every arrival logged (the last 10,000), oldest first. */
  arrivals(): ApiArrival[] {
    return this.#log.map((a) => ({ ...a }));
  }
}
