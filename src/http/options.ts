/**
 * Every transport option and its default, in one place.
 */
import type { Dispatcher } from 'undici';
import { ConfigError } from '../errors.js';
import { checkAdaptiveSettings, type AdaptiveSettings } from './adaptive-limit.js';
import type { Credentials } from './auth.js';
import type { BudgetSpec } from './budget.js';
import type { Logger } from './logger.js';
import type { Region } from './regions.js';
import { DASHBOARD_SPEC, MAPPING_SPEC, TAXONOMY_SPEC } from '../util/spec-constants.js';
import type { Clock } from '../util/clock.js';

/** API families, each with its own concurrency cap. */
const API_FAMILIES = [
  'replay', // session replay API (list, files)
  'storage', // presigned object-storage downloads
  'dashboard', // dashboard REST queries
  'useractivity', // user activity and user search
  'feedback', // feedback ingestion
  'management', // experiment and flag management
  'ingest', // map/unmap, group identify, attribution
  'taxonomy', // taxonomy API
] as const;
export type ApiFamily = (typeof API_FAMILIES)[number];

/**
 * The most requests in flight per family. With adaptive concurrency (on by default, `DEFAULT_ADAPTIVE`) these are
 * the maximums each family's window may grow to; with it off, fixed caps. Where the spec states a limit we use it;
 * where it says "not shown" we chose a value and say why.
 */
export const DEFAULT_CONCURRENCY: Readonly<Record<ApiFamily, number>> = {
  // Spec: session replay rate limits "not shown". The same host serves the dashboard API whose limit is
  // "5 concurrent requests across all REST endpoints" (per project): the host cap below. The window finds what the
  // project allows under it (fewer when other processes or jobs share the project).
  replay: 5,
  // Presigned downloads go to object storage, not to the API; the platform states no limit. Their own, higher
  // maximum: 3.8 downloads per replay follow each files request.
  storage: 32,
  // Spec: "5 concurrent requests across all REST endpoints including cohort download".
  dashboard: DASHBOARD_SPEC.concurrent,
  // Spec: "10 concurrent requests and 360 queries per hour" for user activity and user search.
  useractivity: DASHBOARD_SPEC.userActivityConcurrent,
  // Spec: feedback ingestion rate limits "not shown"; payloads are up to 5 MB, so 2 at a time.
  feedback: 2,
  // Spec doc 1: rate limits "not shown" (the platform's docs mention 100 requests/second per project); 4.
  management: 4,
  // Mapping: 50 events/second over 30 s (a budget below); group identify and attribution "not shown"; 2 at a time.
  ingest: 2,
  // Spec: "concurrent cost limit 4" (GET 1, writes 2): up to 4 calls, held to the cost by its concurrent budget.
  taxonomy: TAXONOMY_SPEC.concurrentCost,
};

/**
 * Adaptive concurrency (src/http/adaptive-limit.ts): each family's window starts at `initial`, grows while answers
 * come back without 429 and with flat latency, is cut on 429/503 or rising latency, and stays within
 * [1, its `concurrency` maximum]. `enabled: false` runs every family at its maximum, fixed.
 */
export interface AdaptiveOptions extends Omit<AdaptiveSettings, 'initial' | 'min' | 'max'> {
  enabled: boolean;
  /** Window each family starts with (cut to its maximum). */
  initial: Readonly<Record<ApiFamily, number>>;
}

export const DEFAULT_ADAPTIVE: Readonly<AdaptiveOptions> = Object.freeze({
  enabled: true,
  // Conservative starts for the API families: a shard of n starting together must not overrun the project's 5 at once.
  // Object storage starts at its maximum: it states no limit, a window grown from 8 (one slot per round trip) kept a
  // replay's downloads waiting and the API's slots idle for the first ~2 s (bench part g: one process 1.22× → 1.10×
  // its bound); its window is still cut on a 429/503 or rising latency.
  initial: Object.freeze({
    replay: 1,
    storage: DEFAULT_CONCURRENCY.storage,
    dashboard: 1,
    useractivity: 2,
    feedback: 1,
    management: 1,
    ingest: 1,
    taxonomy: 1,
  }),
  // Halve on 429/503, as TCP does: n shards halving and growing alike end up with equal shares.
  backoff: 0.5,
  latencyBackoff: 0.8,
  latencyTolerance: 2,
  latencyMarginMs: 50,
  // Onto and past a level that got a 429, growth is 8 times slower: each 429 costs a round trip and a request held
  // back for the server's Retry-After (a rate 429: the whole family), so a level that was too much is tried again rarely.
  cautiousGrowth: 0.125,
});

/** A cost budget of one family: cost units per sliding window, or held by the requests in flight (budget.ts). */
export type FamilyBudget = BudgetSpec;

/**
 * The limits beyond concurrency, per family, in one table. A request's cost is given by its client
 * (`RequestSpec.cost`, default 1): dashboard queries compute theirs from the query, taxonomy GET 1 / writes 2.
 * They are per project: processes sharing a project divide them (see README "Limits").
 */
export const DEFAULT_BUDGETS: Readonly<Record<ApiFamily, readonly FamilyBudget[]>> = {
  replay: [], // spec: "not shown"; the host cap and the family cap apply
  storage: [], // object storage, not the API
  // Spec: cost = days × conditions × query-type cost; "1000 cost within five minutes concurrently; 108,000 cost per
  // hour". The 1,000 is the cost of the queries in flight at once (a concurrent budget: read as a window of five
  // minutes, twelve of them could never reach the hourly 108,000); docs/CLIENTS.md, "Assumptions".
  dashboard: [
    {
      name: 'dashboard concurrent cost',
      limit: DASHBOARD_SPEC.concurrentCost,
      windowMs: 5 * 60_000,
      kind: 'concurrent',
    },
    { name: 'dashboard cost per hour', limit: DASHBOARD_SPEC.costPerHour, windowMs: 60 * 60_000 },
  ],
  // Spec: 360 queries per hour for user activity and user search.
  useractivity: [
    { name: 'user activity queries per hour', limit: DASHBOARD_SPEC.userActivityPerHour, windowMs: 60 * 60_000 },
  ],
  feedback: [], // spec: "not shown"
  management: [], // spec: "not shown"
  // Spec: "50 events per second over a 30-second window (1500 alias calls, not batches, per window); beyond it all
  // requests are throttled until calls in the window fall under the limit". Map/unmap charge one unit per mapping
  // object; group identify and attribution (same family, limits "not shown") charge 0.
  ingest: [
    { name: 'mappings per 30 s', limit: MAPPING_SPEC.perWindow, windowMs: MAPPING_SPEC.windowMs, admit: 'under' },
  ],
  // Spec: "concurrent cost limit 4; period cost limit 7200 per hour" (GET 1, PUT/POST/DELETE 2).
  taxonomy: [
    { name: 'taxonomy concurrent cost', limit: TAXONOMY_SPEC.concurrentCost, windowMs: 0, kind: 'concurrent' },
    { name: 'taxonomy cost per hour', limit: TAXONOMY_SPEC.costPerHour, windowMs: TAXONOMY_SPEC.windowMs },
  ],
};

/**
 * Spec: "5 concurrent requests across all REST endpoints" of the analytics host. Every family but `storage`
 * (presigned downloads to object storage) takes a slot of it besides one of its own family cap.
 */
export const DEFAULT_HOST_CONCURRENCY = DASHBOARD_SPEC.concurrent;

export interface RetryOptions {
  /** Retries after the first attempt (so at most `retries + 1` attempts). */
  retries: number;
  /** First backoff ceiling, ms; the n-th retry waits a random time in [0, min(maxDelayMs, baseDelayMs·2^n)). */
  baseDelayMs: number;
  /** Largest backoff ceiling, ms. */
  maxDelayMs: number;
  /**
   * A `Retry-After` longer than this is cut to it, ms. Undefined (the default): honoured as the server gave it; only
   * `maxWaitMs` bounds it (the server knows when its window has room: a shorter wait only earns another 429).
   */
  maxRetryAfterMs?: number;
  /** Methods retried by default; others only when a call opts in (`retry: true`). */
  methods: readonly string[];
  /** Source of randomness in [0, 1) for full jitter (tests may fix it). */
  random: () => number;
  /**
   * Most time, ms, the waits of all the transport's requests may take together (before retries, and for a family's
   * budget or pause); a request whose next wait would pass it stops (WaitLimitExceededError). Undefined: no bound.
   */
  maxWaitMs?: number | undefined;
}

export const DEFAULT_RETRY: Readonly<RetryOptions> = {
  retries: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  methods: ['GET', 'HEAD'],
  random: Math.random,
};

export interface TimeoutOptions {
  /** TCP/TLS connect, ms. */
  connectMs: number;
  /** From sending the request to receiving all response headers, ms. */
  headersMs: number;
  /** Longest silence between two body chunks, ms. */
  bodyMs: number;
  /**
   * Longest time one attempt may take from sending the request to the last byte of its body (headers and body),
   * ms. A download's body is covered until it is read to the end. An attempt past it fails with TimeoutError
   * (phase `deadline`) and is retried like the other timeouts.
   */
  deadlineMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<TimeoutOptions> = {
  connectMs: 10_000,
  headersMs: 30_000,
  bodyMs: 60_000,
  deadlineMs: 5 * 60_000,
};

/** Largest API response body read into memory (JSON pages are small; this bounds a misbehaving server). */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Idle keep-alive connections are closed after this long, ms. */
export const DEFAULT_KEEP_ALIVE_MS = 10_000;

export interface TransportOptions {
  /** Data-residency region of the project (default `us`). */
  region?: Region | undefined;
  /** Base URL replacing every host (sandbox, proxy). */
  endpoint?: string | undefined;
  credentials?: Credentials | undefined;
  /** Caller-provided undici dispatcher (Agent, ProxyAgent, ...); the transport then does not own or close it. */
  dispatcher?: Dispatcher | undefined;
  retry?: Partial<RetryOptions> | undefined;
  timeouts?: Partial<TimeoutOptions> | undefined;
  /** Most requests in flight per family (the adaptive windows' maximums, or fixed caps with `adaptive.enabled: false`). */
  concurrency?: Partial<Record<ApiFamily, number>> | undefined;
  /** Adaptive concurrency settings; `false` is `{ enabled: false }`. */
  adaptive?:
    | false
    | (Partial<Omit<AdaptiveOptions, 'initial'>> & { initial?: Partial<Record<ApiFamily, number>> })
    | undefined;
  /** Concurrent requests to one API host, all families but `storage` together. */
  hostConcurrency?: number | undefined;
  /** Sliding-window budgets per family (a family given here replaces its default list). */
  budgets?: Partial<Record<ApiFamily, readonly FamilyBudget[]>> | undefined;
  maxResponseBytes?: number | undefined;
  logger?: Logger | undefined;
  /** `User-Agent` header sent on API requests. */
  userAgent?: string | undefined;
  /** The clock waits, deadlines, Retry-After dates and round trips are read on (default: the real one; tests). */
  clock?: Clock | undefined;
}

export interface ResolvedTransportOptions {
  region: Region;
  endpoint: string | undefined;
  credentials: Credentials;
  retry: RetryOptions;
  timeouts: TimeoutOptions;
  concurrency: Record<ApiFamily, number>;
  adaptive: AdaptiveOptions;
  hostConcurrency: number;
  budgets: Record<ApiFamily, readonly FamilyBudget[]>;
  maxResponseBytes: number;
  userAgent: string;
}

function positiveInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new ConfigError(`${name} must be a positive integer (got ${v})`);
  return v;
}

function nonNegative(name: string, v: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new ConfigError(`${name} must be a non-negative number (got ${v})`);
  return v;
}

/** Fills defaults and checks values. */
export function resolveTransportOptions(o: TransportOptions): ResolvedTransportOptions {
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...stripUndefined(o.retry ?? {}) };
  if (!Number.isInteger(retry.retries) || retry.retries < 0)
    throw new ConfigError(`retry.retries must be an integer ≥ 0 (got ${retry.retries})`);
  nonNegative('retry.baseDelayMs', retry.baseDelayMs);
  nonNegative('retry.maxDelayMs', retry.maxDelayMs);
  if (retry.maxRetryAfterMs !== undefined) nonNegative('retry.maxRetryAfterMs', retry.maxRetryAfterMs);
  if (retry.maxWaitMs !== undefined) nonNegative('retry.maxWaitMs', retry.maxWaitMs);
  retry.methods = retry.methods.map((m) => m.toUpperCase());
  const timeouts: TimeoutOptions = { ...DEFAULT_TIMEOUTS, ...stripUndefined(o.timeouts ?? {}) };
  for (const k of ['connectMs', 'headersMs', 'bodyMs', 'deadlineMs'] as const)
    positiveInt(`timeouts.${k}`, timeouts[k]);
  const concurrency: Record<ApiFamily, number> = { ...DEFAULT_CONCURRENCY, ...stripUndefined(o.concurrency ?? {}) };
  for (const f of API_FAMILIES) positiveInt(`concurrency.${f}`, concurrency[f]);
  const adaptive = resolveAdaptive(o.adaptive, concurrency);
  const budgets: Record<ApiFamily, readonly FamilyBudget[]> = {
    ...DEFAULT_BUDGETS,
    ...stripUndefined(o.budgets ?? {}),
  };
  for (const f of API_FAMILIES) {
    for (const b of budgets[f]) {
      if (!(b.limit > 0) || (b.kind !== 'concurrent' && !(b.windowMs > 0)))
        throw new ConfigError(`budgets.${f} "${b.name}": limit and windowMs must be positive`);
    }
  }
  const region = o.region ?? 'us';
  if (region !== 'us' && region !== 'eu')
    throw new ConfigError(`region must be "us" or "eu", got ${JSON.stringify(region) ?? String(region)}`);
  return {
    region,
    endpoint: o.endpoint,
    credentials: { ...(o.credentials ?? {}) },
    retry,
    timeouts,
    concurrency,
    adaptive,
    hostConcurrency: positiveInt('hostConcurrency', o.hostConcurrency ?? DEFAULT_HOST_CONCURRENCY),
    budgets,
    maxResponseBytes: positiveInt('maxResponseBytes', o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES),
    userAgent: o.userAgent ?? 'replay-export',
  };
}

function resolveAdaptive(o: TransportOptions['adaptive'], max: Readonly<Record<ApiFamily, number>>): AdaptiveOptions {
  const given = o === false ? { enabled: false } : (o ?? {});
  const initial: Record<ApiFamily, number> = { ...DEFAULT_ADAPTIVE.initial, ...stripUndefined(given.initial ?? {}) };
  const adaptive: AdaptiveOptions = { ...DEFAULT_ADAPTIVE, ...stripUndefined(given), initial };
  if (typeof adaptive.enabled !== 'boolean')
    throw new ConfigError(`adaptive.enabled must be true or false (got ${String(adaptive.enabled)})`);
  for (const f of API_FAMILIES) {
    positiveInt(`adaptive.initial.${f}`, initial[f]);
    checkAdaptiveSettings(`adaptive (${f})`, adaptiveSettings(adaptive, f, max[f]));
  }
  return adaptive;
}

/** The settings of one family's window: the shared factors, its start and its maximum. */
export function adaptiveSettings(a: AdaptiveOptions, family: ApiFamily, max: number): AdaptiveSettings {
  return {
    initial: Math.min(max, a.initial[family]),
    min: 1,
    max,
    backoff: a.backoff,
    latencyBackoff: a.latencyBackoff,
    latencyTolerance: a.latencyTolerance,
    latencyMarginMs: a.latencyMarginMs,
    cautiousGrowth: a.cautiousGrowth,
  };
}

/** `T` with its undefined fields left out: what `stripUndefined` gives. */
export type Defined<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

/** A copy of `o` without its undefined fields, so that they do not hide defaults when spread over them. */
export function stripUndefined<T extends object>(o: T): Defined<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Defined<T>;
}
