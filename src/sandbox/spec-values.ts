/**
 * The spec's other numbers and value lists as the sandbox reads them (batch sizes, payload caps, operators), beside
 * its limits (spec-limits.ts), written from the spec's text and not taken from the client's table
 * (src/util/spec-constants.ts): test/sandbox/spec-tables.test.ts compares the two readings value for value.
 *
 * "1 MB" and "5 MB" are not defined further by the spec; the sandbox reads them as 1,000,000 and 5,000,000 bytes
 * (docs/SANDBOX.md, "Sandbox assumptions").
 */

const MB = 1_000_000;

/** Spec document 1 "Limits" and "Errors"; the edit fields' notes. */
export const MANAGEMENT = Object.freeze({
  /** "2,000 inclusions per variant — adding users to a flag variant; exceeding returns 400". */
  flagVariantInclusions: 2000,
  /** "100 items per request — bulk removal of users and of cohorts". */
  bulkDelete: 100,
  /** `rolloutPercentage`: "integer in requests", a percentage. */
  rolloutMin: 0,
  rolloutMax: 100,
});

/** "Allowed `subprop_op`: is, is not, contains, …" (exposure event filters). */
export const SUBPROP_OPS: readonly string[] = Object.freeze(
  'is|is not|contains|does not contain|less|less or equal|greater|greater or equal|glob match|glob does not match'.split(
    '|',
  ),
);

/** "Allowed `op` for experiments: …". */
export const EXPERIMENT_OPS: readonly string[] = Object.freeze([
  ...SUBPROP_OPS.slice(0, 8),
  'set is',
  'set is not',
  'set contains',
  'set does not contain',
  'glob match',
  'glob does not match',
]);

/** "Allowed `op` for flags: all of the above plus version less than, …". */
export const FLAG_OPS: readonly string[] = Object.freeze([
  ...EXPERIMENT_OPS,
  'version less than',
  'version less than or equal to',
  'version greater than',
  'version greater than or equal to',
]);

/** Spec document 2, "Limits": mapping and group identify. */
export const MAPPING = Object.freeze({
  /** "at most 2000 requests/events per batch". */
  maxBatch: 2000,
  /** "at most 1 MB per batch". */
  maxBatchBytes: MB,
});

export const GROUP_IDENTIFY = Object.freeze({
  /** "at most 1024 group identifies per request; at most 1024 group properties per request; at most 1 MB". */
  maxIdentifications: 1024,
  maxProperties: 1024,
  maxRequestBytes: MB,
});

/** Spec document 3: "payload at most 5 MB; 1 to 100 items per request". */
export const FEEDBACK = Object.freeze({ minItems: 1, maxItems: 100, maxPayloadBytes: 5 * MB });

/** Spec document 3: session replay and the session length bins. */
export const REPLAY = Object.freeze({
  /** "at most 100 `replay_id` values per request". */
  maxReplayIds: 100,
  /** "presigned file URLs expire after 15 minutes". */
  presignedUrlMs: 15 * 60 * 1000,
  /** "Maximum session length is 1 day (86,400,000 ms)". */
  maxSessionMs: 86_400_000,
});
