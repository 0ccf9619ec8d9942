/**
 * Every transport option and its default, in one place.
 */
import type { Dispatcher } from 'undici';
import type { Credentials } from './auth.js';
import type { Logger } from './logger.js';
import type { Region } from './regions.js';

/** API families, each with its own concurrency cap. */
export type ApiFamily =
  | 'replay' // session replay API (list, files)
  | 'storage' // presigned object-storage downloads
  | 'dashboard' // dashboard REST queries
  | 'useractivity' // user activity and user search
  | 'feedback' // feedback ingestion
  | 'management' // experiment and flag management
  | 'ingest' // map/unmap, group identify, attribution
  | 'taxonomy'; // taxonomy API

export const API_FAMILIES: readonly ApiFamily[] = [
  'replay', 'storage', 'dashboard', 'useractivity', 'feedback', 'management', 'ingest', 'taxonomy',
];

/**
 * Concurrent requests per family. Where the spec states a limit we use it; where it says "not shown" we
 * chose a careful value and say so.
 */
export const DEFAULT_CONCURRENCY: Readonly<Record<ApiFamily, number>> = {
  // Spec: session replay rate limits "not shown". The same host serves the dashboard API whose limit is
  // "5 concurrent requests across all REST endpoints"; we stay under it with 3 so that a dashboard job
  // sharing the project still has room.
  replay: 3,
  // Presigned downloads go to object storage, not to the API; the platform states no limit. 8 keeps a few
  // files in flight per replay without hogging the machine.
  storage: 8,
  // Spec: "5 concurrent requests across all REST endpoints including cohort download".
  dashboard: 5,
  // Spec: "10 concurrent requests and 360 queries per hour" for user activity and user search.
  useractivity: 10,
  // Spec: feedback ingestion rate limits "not shown"; payloads are up to 5 MB, so 2 at a time.
  feedback: 2,
  // Spec doc 1: rate limits "not shown" (the platform's docs mention 100 requests/second per project); 4.
  management: 4,
  // Mapping: 50 events/second over 30 s; group identify and attribution "not shown"; 2 at a time.
  ingest: 2,
  // Spec: "concurrent cost limit 4", writes cost 2; 2 concurrent calls never exceed it.
  taxonomy: 2,
};

/** A sliding-window budget of one family (cost units per window; see budget.ts). */
export interface FamilyBudget {
  name: string;
  limit: number;
  windowMs: number;
}

/**
 * The limits beyond concurrency, per family, in one table. A request's cost is given by its client
 * (`RequestSpec.cost`, default 1): dashboard queries compute theirs from the query, taxonomy GET 1 / writes 2.
 * They are per project: processes sharing a project divide them (see README "Limits").
 */
export const DEFAULT_BUDGETS: Readonly<Record<ApiFamily, readonly FamilyBudget[]>> = {
  replay: [], // spec: "not shown"; the host cap and the family cap apply
  storage: [], // object storage, not the API
  // Spec: cost = days × conditions × query-type cost; 1,000 per five minutes and 108,000 per hour.
  dashboard: [
    { name: 'dashboard cost per 5 min', limit: 1_000, windowMs: 5 * 60_000 },
    { name: 'dashboard cost per hour', limit: 108_000, windowMs: 60 * 60_000 },
  ],
  // Spec: 360 queries per hour for user activity and user search.
  useractivity: [{ name: 'user activity queries per hour', limit: 360, windowMs: 60 * 60_000 }],
  feedback: [], // spec: "not shown"
  management: [], // spec: "not shown"
  // Spec: mapping 50 per second, measured over 30 s; applied to the whole ingest family (the others: "not shown").
  ingest: [{ name: 'mapping requests per 30 s', limit: 1_500, windowMs: 30_000 }],
  // Spec: 7,200 cost per hour (GET 1, PUT/POST/DELETE 2); its concurrent cost limit 4 is kept by the family cap.
  taxonomy: [{ name: 'taxonomy cost per hour', limit: 7_200, windowMs: 60 * 60_000 }],
};

/**
 * Spec: "5 concurrent requests across all REST endpoints" of the analytics host. Every family but `storage`
 * (presigned downloads to object storage) takes a slot of it besides one of its own family cap.
 */
export const DEFAULT_HOST_CONCURRENCY = 5;

export interface RetryOptions {
  /** Retries after the first attempt (so at most `retries + 1` attempts). */
  retries: number;
  /** First backoff ceiling, ms; the n-th retry waits a random time in [0, min(maxDelayMs, baseDelayMs·2^n)). */
  baseDelayMs: number;
  /** Largest backoff ceiling, ms. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is cut to it, ms. */
  maxRetryAfterMs: number;
  /** Methods retried by default; others only when a call opts in (`retry: true`). */
  methods: readonly string[];
  /** Source of randomness in [0, 1) for full jitter (tests may fix it). */
  random: () => number;
}

export const DEFAULT_RETRY: Readonly<RetryOptions> = {
  retries: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
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
  region?: Region;
  /** Base URL replacing every host (sandbox, proxy). */
  endpoint?: string;
  credentials?: Credentials;
  /** Caller-provided undici dispatcher (Agent, ProxyAgent, ...); the transport then does not own or close it. */
  dispatcher?: Dispatcher;
  retry?: Partial<RetryOptions>;
  timeouts?: Partial<TimeoutOptions>;
  concurrency?: Partial<Record<ApiFamily, number>>;
  /** Concurrent requests to one API host, all families but `storage` together. */
  hostConcurrency?: number;
  /** Sliding-window budgets per family (a family given here replaces its default list). */
  budgets?: Partial<Record<ApiFamily, readonly FamilyBudget[]>>;
  maxResponseBytes?: number;
  logger?: Logger;
  /** `User-Agent` header sent on API requests. */
  userAgent?: string;
}

export interface ResolvedTransportOptions {
  region: Region;
  endpoint: string | undefined;
  credentials: Credentials;
  retry: RetryOptions;
  timeouts: TimeoutOptions;
  concurrency: Record<ApiFamily, number>;
  hostConcurrency: number;
  budgets: Record<ApiFamily, readonly FamilyBudget[]>;
  maxResponseBytes: number;
  userAgent: string;
}

function positiveInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new TypeError(`${name} must be a positive integer (got ${v})`);
  return v;
}

function nonNegative(name: string, v: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new TypeError(`${name} must be a non-negative number (got ${v})`);
  return v;
}

/** Fills defaults and checks values. */
export function resolveTransportOptions(o: TransportOptions): ResolvedTransportOptions {
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...stripUndefined(o.retry ?? {}) };
  if (!Number.isInteger(retry.retries) || retry.retries < 0) throw new TypeError(`retry.retries must be an integer ≥ 0 (got ${retry.retries})`);
  nonNegative('retry.baseDelayMs', retry.baseDelayMs);
  nonNegative('retry.maxDelayMs', retry.maxDelayMs);
  nonNegative('retry.maxRetryAfterMs', retry.maxRetryAfterMs);
  retry.methods = retry.methods.map((m) => m.toUpperCase());
  const timeouts: TimeoutOptions = { ...DEFAULT_TIMEOUTS, ...stripUndefined(o.timeouts ?? {}) };
  positiveInt('timeouts.connectMs', timeouts.connectMs);
  positiveInt('timeouts.headersMs', timeouts.headersMs);
  positiveInt('timeouts.bodyMs', timeouts.bodyMs);
  positiveInt('timeouts.deadlineMs', timeouts.deadlineMs);
  const concurrency: Record<ApiFamily, number> = { ...DEFAULT_CONCURRENCY, ...stripUndefined(o.concurrency ?? {}) };
  for (const f of API_FAMILIES) positiveInt(`concurrency.${f}`, concurrency[f]);
  const budgets: Record<ApiFamily, readonly FamilyBudget[]> = { ...DEFAULT_BUDGETS, ...stripUndefined(o.budgets ?? {}) };
  for (const f of API_FAMILIES) {
    for (const b of budgets[f]) {
      if (!(b.limit > 0) || !(b.windowMs > 0)) throw new TypeError(`budgets.${f} "${b.name}": limit and windowMs must be positive`);
    }
  }
  const region = o.region ?? 'us';
  if (region !== 'us' && region !== 'eu') throw new TypeError(`region must be "us" or "eu" (got ${JSON.stringify(region)})`);
  return {
    region,
    endpoint: o.endpoint,
    credentials: { ...(o.credentials ?? {}) },
    retry,
    timeouts,
    concurrency,
    hostConcurrency: positiveInt('hostConcurrency', o.hostConcurrency ?? DEFAULT_HOST_CONCURRENCY),
    budgets,
    maxResponseBytes: positiveInt('maxResponseBytes', o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES),
    userAgent: o.userAgent ?? 'replay-export',
  };
}

/** A copy of `o` without its undefined fields, so that they do not hide defaults when spread over them. */
export function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
