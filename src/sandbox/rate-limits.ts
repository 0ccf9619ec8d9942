/**
 * The documented limits of the API families the sandbox enforces (spec documents 2 and 3), from its own table
 * (spec-limits.ts), each configurable in the sandbox options with the spec's value as default, and a `timeScale` that
 * multiplies every period so that tests can shorten an hour to seconds. A request over a limit is refused before it is
 * answered (nothing it asked for is done) with 429, the only status the spec gives for a limit; the refusal names the
 * limit and, when waiting can help, says when there is room again (Retry-After).
 */
import type { ServerResponse } from 'node:http';
import { ConcurrentCost, PeriodCost } from './concurrent-cost.js';
import { limitMessage, SANDBOX_LIMITS, type SandboxLimit } from './spec-limits.js';

/** The spec's value of each limit; each can be set in the sandbox options (`limits`). */
export const DEFAULT_RATE_LIMITS = Object.freeze({
  /** Dashboard cost (days × conditions × query-type cost) of the queries in flight. Spec: 1,000. */
  dashboardConcurrentCost: SANDBOX_LIMITS.dashboardConcurrentCost.value,
  /** Dashboard cost per hour. Spec: 108,000. */
  dashboardCostPerHour: SANDBOX_LIMITS.dashboardCostPerHour.value,
  /** User activity and user search requests in flight, together. Spec: 10. */
  userActivityConcurrent: SANDBOX_LIMITS.userActivityConcurrency.value,
  /** User activity and user search queries per hour, together. Spec: 360. */
  userActivityPerHour: SANDBOX_LIMITS.userActivityPerHour.value,
  /** Taxonomy cost of the requests in flight (GET 1, PUT/POST/DELETE 2). Spec: 4. */
  taxonomyConcurrentCost: SANDBOX_LIMITS.taxonomyConcurrentCost.value,
  /** Taxonomy cost per hour. Spec: 7,200. */
  taxonomyCostPerHour: SANDBOX_LIMITS.taxonomyCostPerHour.value,
  /**
   * Mapping objects of map/unmap per 30 s ("1500 alias calls, not batches, per window"). A batch is admitted while
   * the window holds fewer, then counted whole ("beyond it all requests are throttled until calls in the window fall
   * under the limit"). Spec: 1,500.
   */
  mappingPer30s: SANDBOX_LIMITS.mappingPer30s.value,
});

/** The limits of one sandbox, as DEFAULT_RATE_LIMITS names (and describes) them. */
export type RateLimitSettings = { -readonly [K in keyof typeof DEFAULT_RATE_LIMITS]: number };

/** A request refused by a limit: which one, why, and the whole seconds to send as Retry-After (none: never fits). */
export interface LimitRefusal {
  status: 429;
  /** The limit's name, e.g. `dashboard concurrent cost` (spec-limits.ts). */
  limit: string;
  message: string;
  /** Absent when the request's cost alone is over the whole limit: no wait can help. */
  retryAfterSeconds?: number;
}

/** One limit of a family: its table entry and its counter. */
type Counted = { limit: SandboxLimit; period: PeriodCost } | { limit: SandboxLimit; inFlight: ConcurrentCost };

function capOf(c: Counted): number {
  return 'period' in c ? c.period.limit : c.inFlight.limit;
}

/** A cost that can never fit under a limit: a 429 naming it, without Retry-After. */
function never(c: Counted, cost: number, what: string): LimitRefusal {
  const { name, per } = c.limit;
  const amount = 'period' in c ? `${capOf(c)} per ${per}` : `${capOf(c)} ${per}`;
  return {
    status: 429,
    limit: name,
    message: `${name} limit exceeded: this ${what} costs ${cost}, more than the whole limit of ${amount}; it can never be served`,
  };
}

/**
 * Checks every limit of a family, then (only when the cost fits each) spends it in the periods and holds it in the
 * in-flight counters until `res` is finished. `admit: 'under'`: a period admits a request while it is under its limit.
 */
function charge(
  family: readonly Counted[],
  cost: number,
  what: string,
  res: ServerResponse | undefined,
  admit: 'fit' | 'under' = 'fit',
): LimitRefusal | undefined {
  for (const c of family) {
    if (admit === 'fit' && cost > capOf(c)) return never(c, cost, what);
    const r = 'period' in c ? periodRefusal(c, cost, what, admit) : inFlightRefusal(c, cost, what);
    if (r) return r;
  }
  for (const c of family) {
    if ('period' in c) c.period.spend(cost);
    else {
      const give = c.inFlight.take(cost)!;
      res?.once('finish', give);
      res?.once('close', give);
    }
  }
  return undefined;
}

function periodRefusal(
  c: { limit: SandboxLimit; period: PeriodCost },
  cost: number,
  what: string,
  admit: 'fit' | 'under',
): LimitRefusal | undefined {
  const wait = c.period.msUntilRoom(admit === 'under' ? 1 : cost);
  if (wait === 0) return undefined;
  return {
    status: 429,
    limit: c.limit.name,
    message: limitMessage(c.limit, c.period.limit, cost, c.period.spent(), what),
    retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
  };
}

function inFlightRefusal(
  c: { limit: SandboxLimit; inFlight: ConcurrentCost },
  cost: number,
  what: string,
): LimitRefusal | undefined {
  if (c.inFlight.held() + cost <= c.inFlight.limit) return undefined;
  return {
    status: 429,
    limit: c.limit.name,
    message: limitMessage(c.limit, c.inFlight.limit, cost, c.inFlight.held(), what),
    retryAfterSeconds: 1,
  };
}

export class RateLimits {
  /** Requests refused, by limit name. */
  readonly #refused = new Map<string, number>();
  readonly #dashboard: Counted[];
  readonly #userActivity: Counted[];
  readonly #taxonomy: Counted[];
  readonly #mapping: Counted[];

  /** `onRefused`: called for every refusal (the sandbox counts them in its `rateLimited` stat). */
  constructor(
    settings: RateLimitSettings,
    timeScale: number,
    now: () => number,
    private readonly onRefused: () => void = () => {},
  ) {
    const counted = (limit: SandboxLimit, value: number): Counted =>
      limit.span === 'in flight'
        ? { limit, inFlight: new ConcurrentCost(value) }
        : { limit, period: new PeriodCost(value, limit.span * timeScale, now) };
    const L = SANDBOX_LIMITS;
    this.#dashboard = [
      counted(L.dashboardConcurrentCost, settings.dashboardConcurrentCost),
      counted(L.dashboardCostPerHour, settings.dashboardCostPerHour),
    ];
    this.#userActivity = [
      counted(L.userActivityConcurrency, settings.userActivityConcurrent),
      counted(L.userActivityPerHour, settings.userActivityPerHour),
    ];
    this.#taxonomy = [
      counted(L.taxonomyConcurrentCost, settings.taxonomyConcurrentCost),
      counted(L.taxonomyCostPerHour, settings.taxonomyCostPerHour),
    ];
    this.#mapping = [counted(L.mappingPer30s, settings.mappingPer30s)];
  }

  /** How many requests each limit refused (names as in the 429 bodies; limits that refused none are left out). */
  refusals(): Record<string, number> {
    return Object.fromEntries(this.#refused);
  }

  #count<T extends LimitRefusal | undefined>(r: T): T {
    if (r) {
      this.#refused.set(r.limit, (this.#refused.get(r.limit) ?? 0) + 1);
      this.onRefused();
    }
    return r;
  }

  /** A dashboard query costing `cost` (the sandbox's reading of the formula, families/dashboard-cost.ts), in flight until `res` ends. */
  dashboard(cost: number, res: ServerResponse): LimitRefusal | undefined {
    return this.#count(charge(this.#dashboard, cost, 'query', res));
  }

  /** One user activity or user search query, in flight until `res` ends. */
  userActivity(res: ServerResponse): LimitRefusal | undefined {
    return this.#count(charge(this.#userActivity, 1, 'query', res));
  }

  /** A map or unmap batch of `mappings` mapping objects (each one counts). */
  mapping(mappings: number): LimitRefusal | undefined {
    return this.#count(charge(this.#mapping, mappings, 'batch', undefined, 'under'));
  }

  /** A taxonomy call costing `cost`, held against the concurrent cost limit until `res` is finished. */
  taxonomy(cost: number, res: ServerResponse): LimitRefusal | undefined {
    return this.#count(charge(this.#taxonomy, cost, 'call', res));
  }
}
