/**
 * The platform's limits as the sandbox reads them from the spec (shared/spec/, documents 2 and 3), in a table of its
 * own: names, values, what each counts and how its 429 reads. It imports nothing of the client's (src/util,
 * src/http), so that a misreading on either side shows: test/sandbox/spec-tables.test.ts compares this table with
 * the client's where the two must agree (values, windows, what a 429 names and which kind of limit that is).
 *
 * Each entry quotes the sentence it is read from. Where the spec is open the sandbox's choice is in docs/SANDBOX.md,
 * "Sandbox assumptions".
 */

/** `in flight`: counted while requests are being answered; a number: a sliding window of that many ms. */
type LimitSpan = 'in flight' | number;

export interface SandboxLimit {
  /** The limit's name: the `limit` of a 429 body and the start of its message. */
  readonly name: string;
  /** The spec's value (the default of the sandbox option of the same key). */
  readonly value: number;
  readonly span: LimitSpan;
  /** The span in the spec's words, for messages (`in flight`, `hour`, `30 seconds`). */
  readonly per: string;
  /** The sentence of the spec it is read from. */
  readonly quote: string;
}

const HOUR_MS = 60 * 60_000;

export const SANDBOX_LIMITS = Object.freeze({
  analyticsConcurrency: {
    name: 'concurrent requests across all REST endpoints',
    value: 5,
    span: 'in flight',
    per: 'requests in flight',
    quote: 'Limits (doc 3): 5 concurrent requests across all REST endpoints including cohort download — dashboard',
  },
  userActivityConcurrency: {
    name: 'user activity and user search concurrent requests',
    value: 10,
    span: 'in flight',
    per: 'requests in flight',
    quote: 'Limits (doc 3): 10 concurrent requests and 360 queries per hour — user activity and user search',
  },
  userActivityPerHour: {
    name: 'user activity and user search queries per hour',
    value: 360,
    span: HOUR_MS,
    per: 'hour',
    quote: 'Limits (doc 3): 10 concurrent requests and 360 queries per hour — user activity and user search',
  },
  dashboardConcurrentCost: {
    name: 'dashboard concurrent cost',
    value: 1000,
    span: 'in flight',
    per: 'in flight',
    quote: 'Limits (doc 3): 1000 cost within five minutes concurrently; 108,000 cost per hour',
  },
  dashboardCostPerHour: {
    name: 'dashboard cost per hour',
    value: 108_000,
    span: HOUR_MS,
    per: 'hour',
    quote: 'Limits (doc 3): 1000 cost within five minutes concurrently; 108,000 cost per hour',
  },
  taxonomyConcurrentCost: {
    name: 'taxonomy concurrent cost',
    value: 4,
    span: 'in flight',
    per: 'in flight',
    quote: 'Limits (doc 2): concurrent cost limit 4; … cost per call: GET 1, PUT 2, POST 2, DELETE 2',
  },
  taxonomyCostPerHour: {
    name: 'taxonomy cost per hour',
    value: 7200,
    span: HOUR_MS,
    per: 'hour',
    quote: 'Limits (doc 2): period cost limit 7200 per hour',
  },
  mappingPer30s: {
    name: 'mappings per 30 seconds',
    value: 1500,
    span: 30_000,
    per: '30 seconds',
    quote: 'Limits (doc 2): 50 events per second over a 30-second window (1500 alias calls, not batches, per window)',
  },
} as const satisfies Record<string, SandboxLimit>);

/** The sandbox's own switch (`rateLimitEvery`): session replay and feedback rate limits are "not shown". */
export const REQUEST_RATE_LIMIT = 'request rate';

/** Taxonomy: "cost per call: GET 1, PUT 2, POST 2, DELETE 2" (another method is answered 405 before any charge). */
export const TAXONOMY_CALL_COST: Readonly<Record<string, number>> = Object.freeze({
  GET: 1,
  PUT: 2,
  POST: 2,
  DELETE: 2,
});

/**
 * A 429's message, e.g. `dashboard concurrent cost limit exceeded: 1000 in flight (this query costs 240; 960 held by
 * requests in flight)` or `taxonomy cost per hour limit exceeded: 7200 per hour (this call costs 2; 7199 spent in the
 * window)`.
 */
export function limitMessage(limit: SandboxLimit, cap: number, cost: number, used: number, what: string): string {
  const inFlight = limit.span === 'in flight';
  const amount = inFlight ? `${cap} ${limit.per}` : `${cap} per ${limit.per}`;
  const held = inFlight ? 'held by requests in flight' : 'spent in the window';
  return `${limit.name} limit exceeded: ${amount} (this ${what} costs ${cost}; ${used} ${held})`;
}
