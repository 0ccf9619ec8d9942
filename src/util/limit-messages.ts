/**
 * The platform's limits as its 429s name them, one table for the client and the sandbox (it imports nothing, so
 * both may use it): the sandbox words each 429 from it, the client reads a 429's body against it.
 *
 * Two kinds of 429 ask for different things (docs/HTTP.md, "Concurrency limits as the tool applies them"):
 * - `concurrency`: too many requests at once ("5 concurrent requests across all REST endpoints", taxonomy's
 *   concurrent cost). Fewer at once will do: the client cuts the family's window, the refused request waits its
 *   Retry-After, the family's other requests go on.
 * - `rate`: too much over a period (per hour, per five minutes, per 30 seconds; cost budgets). Nothing will do until
 *   the period has room: the client holds the whole family back for the Retry-After.
 *
 * The spec says the 429 body "says which limit" but not in which words, so a body that names none of the table's
 * limits is read by its words (`classifyLimit`), and one that says nothing recognisable is a `rate` 429: pausing is
 * the reading that cannot make things worse.
 */

export type LimitKind = 'concurrency' | 'rate';

export interface PlatformLimit {
  /** The limit's name as a 429 body gives it (the sandbox's `limit` field and the start of its message). */
  readonly name: string;
  readonly kind: LimitKind;
  /** The client families (src/http/options.ts `ApiFamily`) it applies to. */
  readonly families: readonly string[];
}

/** Every family whose requests go to an API host (all but `storage`). */
const API_FAMILIES = ['replay', 'dashboard', 'useractivity', 'feedback', 'management', 'ingest', 'taxonomy'] as const;

/** The platform's limits (spec documents 2 and 3), by the sandbox's key for each. */
export const PLATFORM_LIMITS = Object.freeze({
  /** Spec 3: "5 concurrent requests across all REST endpoints" per project. */
  concurrentRequests: {
    name: 'concurrent requests across all REST endpoints',
    kind: 'concurrency',
    families: API_FAMILIES,
  },
  /** Spec 3: "1000 cost within five minutes concurrently": the cost of the queries in flight at once. */
  dashboardConcurrentCost: { name: 'dashboard concurrent cost', kind: 'concurrency', families: ['dashboard'] },
  /** Spec 3: dashboard cost, 108,000 per hour. */
  dashboardCostPerHour: { name: 'dashboard cost per hour', kind: 'rate', families: ['dashboard'] },
  /** Spec 3: "10 concurrent requests" of user activity and user search. */
  userActivityConcurrent: {
    name: 'user activity and user search concurrent requests',
    kind: 'concurrency',
    families: ['useractivity'],
  },
  /** Spec 3: 360 user activity and user search queries per hour. */
  userActivityPerHour: {
    name: 'user activity and user search queries per hour',
    kind: 'rate',
    families: ['useractivity'],
  },
  /** Spec 2: taxonomy concurrent cost limit 4 (GET 1, writes 2). */
  taxonomyConcurrentCost: { name: 'taxonomy concurrent cost', kind: 'concurrency', families: ['taxonomy'] },
  /** Spec 2: taxonomy period cost limit 7,200 per hour. */
  taxonomyCostPerHour: { name: 'taxonomy cost per hour', kind: 'rate', families: ['taxonomy'] },
  /** Spec 2: mapping, "1500 alias calls, not batches, per window" of 30 seconds: mapping objects are counted. */
  mappingPer30s: { name: 'mappings per 30 seconds', kind: 'rate', families: ['ingest'] },
  /** Session replay and feedback rate limits are "not shown" in the spec: the sandbox's `rateLimitEvery` switch. */
  requestRate: { name: 'request rate', kind: 'rate', families: API_FAMILIES },
} as const satisfies Record<string, PlatformLimit>);

/** What a 429 says: its kind, and the table's limit when it names one. */
export interface LimitReading {
  kind: LimitKind;
  /** The table's name of the limit, when the text names one. */
  limit?: string;
}

/** Words of a limit over a period (checked first: a text naming both kinds is read as a rate). */
const RATE_WORDS =
  /\brate\b|\bcost\b|\bquota\b|\bper\s+(?:second|minute|hour|day|\d+|five|thirty)\b|\bwithin\s+(?:\d+|five|thirty)\b/i;
/** Words of a limit on requests at once. */
const CONCURRENCY_WORDS = /concurren|in flight|simultaneous|at once|parallel/i;

/**
 * Reads a 429: the body's text, or the status line's reason when the body is empty. A limit of the table named in it
 * decides (longest name first); otherwise its words; otherwise `rate`.
 */
export function classifyLimit(body: string, reason = ''): LimitReading {
  const text = body.trim() !== '' ? body : reason;
  const lower = text.toLowerCase();
  const named = Object.values(PLATFORM_LIMITS as Record<string, PlatformLimit>)
    .filter((l) => lower.includes(l.name.toLowerCase()))
    .sort((a, b) => b.name.length - a.name.length)[0];
  if (named) return { kind: named.kind, limit: named.name };
  if (RATE_WORDS.test(text)) return { kind: 'rate' };
  if (CONCURRENCY_WORDS.test(text)) return { kind: 'concurrency' };
  return { kind: 'rate' };
}
