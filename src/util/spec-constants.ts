/**
 * The numbers and value lists the spec (../shared/spec/, documents 1–3) states, in its own units, in one table that
 * the clients (src/clients, src/replay, src/http budgets) and the sandbox (src/sandbox) both import, so that the two
 * never hold two copies that can drift. It imports nothing. Each entry names the spec's sentence it comes from;
 * docs/CLIENTS.md ("Limits") prints the same table and test/clients/spec-constants.test.ts compares the two.
 *
 * "1 MB" and "5 MB" are not defined further by the spec: they are taken as 1,000,000 and 5,000,000 bytes (the lower
 * reading, so that what the client sends fits either reading).
 */

/** 1 MB as the spec's limits are read here (see above). */
export const MB = 1_000_000;

/** Spec document 1 (experiments and flags). */
export const MANAGEMENT_SPEC = Object.freeze({
  /** "2,000 inclusions per variant: adding users to a flag variant; exceeding returns 400". */
  flagVariantInclusions: 2000,
  /** "100 items per request: bulk removal of users and of cohorts". */
  bulkDelete: 100,
  /** `rolloutPercentage`: a percentage, "integer in requests": 0 to 100. */
  rolloutPercentage: Object.freeze({ min: 0, max: 100 }),
});

/** `subprop_op` of an exposure event filter: "Allowed `subprop_op`: …" (10 values). */
export const FILTER_OPS = [
  'is',
  'is not',
  'contains',
  'does not contain',
  'less',
  'less or equal',
  'greater',
  'greater or equal',
  'glob match',
  'glob does not match',
] as const;

/** Condition `op` of experiments: "Allowed `op` for experiments: …" (14 values). */
export const EXPERIMENT_CONDITION_OPS = [
  ...FILTER_OPS.slice(0, 8),
  'set is',
  'set is not',
  'set contains',
  'set does not contain',
  ...FILTER_OPS.slice(8),
] as const;

/** Condition `op` of flags: "all of the above plus version …" (18 values). */
export const FLAG_CONDITION_OPS = [
  ...EXPERIMENT_CONDITION_OPS,
  'version less than',
  'version less than or equal to',
  'version greater than',
  'version greater than or equal to',
] as const;

/** Spec document 2, user mapping. */
export const MAPPING_SPEC = Object.freeze({
  /** "at most 2000 requests/events per batch". */
  maxBatch: 2000,
  /** "at most 1 MB per batch" (the JSON of `mapping`). */
  maxBatchBytes: MB,
  /** "1500 alias calls, not batches, per window": mapping objects counted per 30-second window. */
  perWindow: 1500,
  /** "over a 30-second window". */
  windowMs: 30_000,
});

/** Spec document 2, group identify. */
export const GROUP_IDENTIFY_SPEC = Object.freeze({
  /** "at most 1024 group identifies per request". */
  maxIdentifications: 1024,
  /** "at most 1024 group properties per request". */
  maxProperties: 1024,
  /** "at most 1 MB per request". */
  maxRequestBytes: MB,
});

/** Spec document 2, taxonomy: "concurrent cost limit 4; period cost limit 7200 per hour; GET 1, PUT 2, POST 2, DELETE 2". */
export const TAXONOMY_SPEC = Object.freeze({
  concurrentCost: 4,
  costPerHour: 7200,
  windowMs: 60 * 60_000,
  cost: Object.freeze({ GET: 1, PUT: 2, POST: 2, DELETE: 2 } as Readonly<Record<string, number>>),
});

/** The cost of one taxonomy call by its method. */
export function taxonomyCost(method: string): number {
  return TAXONOMY_SPEC.cost[method.toUpperCase()] ?? 2;
}

/**
 * Spec document 3, dashboard: "5 concurrent requests", "1000 cost within five minutes concurrently; 108,000 cost per
 * hour": the 1,000 is read as the cost of the queries in flight at once (docs/CLIENTS.md, "Assumptions").
 */
export const DASHBOARD_SPEC = Object.freeze({
  concurrent: 5,
  concurrentCost: 1000,
  costPerHour: 108_000,
  /** User activity and user search: "10 concurrent requests and 360 queries per hour". */
  userActivityConcurrent: 10,
  userActivityPerHour: 360,
  /** "Maximum session length is 1 day (86,400,000 ms)". */
  maxSessionMs: 86_400_000,
});

/** Spec document 3, feedback ingestion: "payload at most 5 MB; 1 to 100 items per request". */
export const FEEDBACK_SPEC = Object.freeze({
  minItems: 1,
  maxItems: 100,
  maxPayloadBytes: 5 * MB,
});

/** Spec document 3, session replay. */
export const REPLAY_SPEC = Object.freeze({
  /** "at most 100 `replay_id` values per request". */
  maxReplayIds: 100,
  /** "presigned file URLs expire after 15 minutes". */
  presignedUrlMs: 15 * 60_000,
});
