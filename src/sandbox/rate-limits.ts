/**
 * The documented limits of the API families the sandbox enforces (spec documents 2 and 3), each configurable in the
 * sandbox options with the spec's value as default, and a `timeScale` that multiplies every window so that tests can
 * shorten five minutes to seconds. A request over a limit is refused before it is answered (nothing it asked for is
 * done); the refusal names the limit and says when the window has room again.
 */
import type { ServerResponse } from 'node:http';
import { SlidingWindow } from '../util/sliding-window.js';
import { PLATFORM_LIMITS } from '../util/limit-messages.js';
import { DASHBOARD_SPEC, MAPPING_SPEC, TAXONOMY_SPEC } from '../util/spec-constants.js';
import { ConcurrentCost } from './concurrent-cost.js';

export interface RateLimitSettings {
  /** Dashboard cost (days × conditions × query-type cost) per five minutes. Spec: 1,000. */
  dashboardCostPer5Min: number;
  /** Dashboard cost per hour. Spec: 108,000. */
  dashboardCostPerHour: number;
  /** User activity and user search queries per hour, together. Spec: 360. */
  userActivityPerHour: number;
  /** Taxonomy cost of the requests in flight (GET 1, PUT/POST/DELETE 2). Spec: 4. */
  taxonomyConcurrentCost: number;
  /** Taxonomy cost per hour. Spec: 7,200. */
  taxonomyCostPerHour: number;
  /**
   * Mapping objects of map/unmap per 30 s ("1500 alias calls, not batches, per window"). A batch is admitted while
   * the window holds fewer, then counted whole ("beyond it all requests are throttled until calls in the window fall
   * under the limit"). Spec: 1,500.
   */
  mappingPer30s: number;
}

export const DEFAULT_RATE_LIMITS: Readonly<RateLimitSettings> = Object.freeze({
  dashboardCostPer5Min: DASHBOARD_SPEC.costPer5Min,
  dashboardCostPerHour: DASHBOARD_SPEC.costPerHour,
  userActivityPerHour: DASHBOARD_SPEC.userActivityPerHour,
  taxonomyConcurrentCost: TAXONOMY_SPEC.concurrentCost,
  taxonomyCostPerHour: TAXONOMY_SPEC.costPerHour,
  mappingPer30s: MAPPING_SPEC.perWindow,
});

/**
 * A request refused by a limit: which one, why, and the whole seconds to send as Retry-After. `status` 429 when
 * waiting helps; 400 when the request's cost alone is over the whole limit, so that no retry can ever succeed
 * (the answer names the limit; no Retry-After).
 */
export interface LimitRefusal {
  status: 400 | 429;
  /** The limit's name, e.g. `dashboard cost per 5 minutes` (src/util/limit-messages.ts). */
  limit: string;
  message: string;
  retryAfterSeconds: number;
}

/** A cost that can never fit under `limit`: a 400 naming the limit. */
function impossible(name: string, limit: number, per: string, cost: number, what: string): LimitRefusal {
  return {
    status: 400,
    limit: name,
    message: `${name} limit: this ${what} costs ${cost}, more than the whole limit of ${limit} per ${per}; it can never be served`,
    retryAfterSeconds: 0,
  };
}

const MINUTE = 60_000;

interface NamedWindow {
  name: string;
  /** The unscaled window as the spec words it (in messages). */
  per: string;
  window: SlidingWindow;
}

function refusal(w: NamedWindow, cost: number, what: string, admit: 'fit' | 'under' = 'fit'): LimitRefusal | undefined {
  if (admit === 'fit' && cost > w.window.limit) return impossible(w.name, w.window.limit, w.per, cost, what);
  // `under`: admitted while the window holds less than its limit (one more unit fits), then counted whole.
  const wait = w.window.waitFor(admit === 'under' ? 1 : cost);
  if (wait === 0) return undefined;
  return {
    status: 429,
    limit: w.name,
    message: `${w.name} limit exceeded: ${w.window.limit} per ${w.per} (this ${what} costs ${cost}; ${w.window.used()} spent in the window)`,
    retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
  };
}

/** Checks every window first and spends in all of them only when the cost fits in each. */
function charge(
  windows: readonly NamedWindow[],
  cost: number,
  what: string,
  admit: 'fit' | 'under' = 'fit',
): LimitRefusal | undefined {
  for (const w of windows) {
    const r = refusal(w, cost, what, admit);
    if (r) return r;
  }
  for (const w of windows) w.window.spend(cost);
  return undefined;
}

export class RateLimits {
  /** Requests refused, by limit name. */
  readonly #refused = new Map<string, number>();
  readonly #dashboard: NamedWindow[];
  readonly #userActivity: NamedWindow[];
  readonly #taxonomy: NamedWindow[];
  readonly #taxonomyInFlight: ConcurrentCost;
  readonly #mapping: NamedWindow[];

  /** `onRefused`: called for every refusal (the sandbox counts them in its `rateLimited` stat). */
  constructor(
    settings: RateLimitSettings,
    timeScale: number,
    now: () => number,
    private readonly onRefused: () => void = () => {},
  ) {
    const w = (name: string, limit: number, ms: number, per: string): NamedWindow => ({
      name,
      per,
      window: new SlidingWindow(limit, ms * timeScale, now),
    });
    this.#dashboard = [
      w(PLATFORM_LIMITS.dashboardCostPer5Min.name, settings.dashboardCostPer5Min, 5 * MINUTE, 'five minutes'),
      w(PLATFORM_LIMITS.dashboardCostPerHour.name, settings.dashboardCostPerHour, 60 * MINUTE, 'hour'),
    ];
    this.#userActivity = [
      w(PLATFORM_LIMITS.userActivityPerHour.name, settings.userActivityPerHour, 60 * MINUTE, 'hour'),
    ];
    this.#taxonomy = [w(PLATFORM_LIMITS.taxonomyCostPerHour.name, settings.taxonomyCostPerHour, 60 * MINUTE, 'hour')];
    this.#taxonomyInFlight = new ConcurrentCost(settings.taxonomyConcurrentCost);
    this.#mapping = [
      w(PLATFORM_LIMITS.mappingPer30s.name, settings.mappingPer30s, MAPPING_SPEC.windowMs, '30 seconds'),
    ];
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

  /** A dashboard query costing `cost` (the spec's formula, src/util/dashboard-cost.ts). */
  dashboard(cost: number): LimitRefusal | undefined {
    return this.#count(charge(this.#dashboard, cost, 'query'));
  }

  /** One user activity or user search query. */
  userActivity(): LimitRefusal | undefined {
    return this.#count(charge(this.#userActivity, 1, 'query'));
  }

  /** A map or unmap batch of `mappings` mapping objects (each one counts). */
  mapping(mappings: number): LimitRefusal | undefined {
    return this.#count(charge(this.#mapping, mappings, 'batch', 'under'));
  }

  /**
   * A taxonomy call costing `cost`: its cost is held against the concurrent cost limit from its arrival until `res`
   * is finished (the family charges it before the sandbox's added latency), and spent in the hourly window.
   */
  taxonomy(cost: number, res: ServerResponse): LimitRefusal | undefined {
    const inFlight = this.#taxonomyInFlight;
    if (cost > inFlight.limit)
      return this.#count(
        impossible(PLATFORM_LIMITS.taxonomyConcurrentCost.name, inFlight.limit, 'request in flight', cost, 'call'),
      );
    const give = inFlight.take(cost);
    if (!give) {
      return this.#count({
        status: 429,
        limit: PLATFORM_LIMITS.taxonomyConcurrentCost.name,
        message: `${PLATFORM_LIMITS.taxonomyConcurrentCost.name} limit exceeded: ${this.#taxonomyInFlight.limit} (this call costs ${cost}; ${this.#taxonomyInFlight.held()} in flight)`,
        retryAfterSeconds: 1,
      });
    }
    const r = charge(this.#taxonomy, cost, 'call');
    if (r) {
      give();
      return this.#count(r);
    }
    res.once('finish', give);
    res.once('close', give);
    return undefined;
  }
}
