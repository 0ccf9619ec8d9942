/**
 * The client's reading of the spec's limits (src/util/spec-constants.ts, src/util/limit-messages.ts,
 * src/util/dashboard-cost.ts, src/http/options.ts) against the sandbox's own (src/sandbox/spec-limits.ts,
 * src/sandbox/families/dashboard-cost.ts), where the two must agree: the values, what each counts (in flight or per
 * period, and how long the period is), the names a 429 gives and the kind of limit the client reads from them, and
 * the cost of a dashboard query. The two are written apart, so a misreading on one side shows here.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_BUDGETS, DEFAULT_CONCURRENCY, DEFAULT_HOST_CONCURRENCY } from '../../src/http/options.js';
import { queryCost, type CostKind } from '../../src/sandbox/families/dashboard-cost.js';
import { limitMessage, SANDBOX_LIMITS, type SandboxLimit } from '../../src/sandbox/spec-limits.js';
import { TAXONOMY_CALL_COST } from '../../src/sandbox/spec-limits.js';
import { dashboardQueryCost } from '../../src/util/dashboard-cost.js';
import { classifyLimit, PLATFORM_LIMITS } from '../../src/util/limit-messages.js';
import * as S from '../../src/sandbox/spec-values.js';
import * as C from '../../src/util/spec-constants.js';
import { taxonomyCost } from '../../src/util/spec-constants.js';

/** The same numbers side by side: the sandbox's reading (spec-values.ts), and the client's (spec-constants.ts). */
const sandboxValues = {
  flagVariantInclusions: S.MANAGEMENT.flagVariantInclusions,
  bulkDelete: S.MANAGEMENT.bulkDelete,
  rollout: [S.MANAGEMENT.rolloutMin, S.MANAGEMENT.rolloutMax],
  filterOps: S.SUBPROP_OPS,
  experimentOps: S.EXPERIMENT_OPS,
  flagOps: S.FLAG_OPS,
  mapping: [S.MAPPING.maxBatch, S.MAPPING.maxBatchBytes],
  groupIdentify: [
    S.GROUP_IDENTIFY.maxIdentifications,
    S.GROUP_IDENTIFY.maxProperties,
    S.GROUP_IDENTIFY.maxRequestBytes,
  ],
  feedback: [S.FEEDBACK.minItems, S.FEEDBACK.maxItems, S.FEEDBACK.maxPayloadBytes],
  replay: [S.REPLAY.maxReplayIds, S.REPLAY.presignedUrlMs, S.REPLAY.maxSessionMs],
};
const clientValues = {
  flagVariantInclusions: C.MANAGEMENT_SPEC.flagVariantInclusions,
  bulkDelete: C.MANAGEMENT_SPEC.bulkDelete,
  rollout: [C.MANAGEMENT_SPEC.rolloutPercentage.min, C.MANAGEMENT_SPEC.rolloutPercentage.max],
  filterOps: [...C.FILTER_OPS],
  experimentOps: [...C.EXPERIMENT_CONDITION_OPS],
  flagOps: [...C.FLAG_CONDITION_OPS],
  mapping: [C.MAPPING_SPEC.maxBatch, C.MAPPING_SPEC.maxBatchBytes],
  groupIdentify: [
    C.GROUP_IDENTIFY_SPEC.maxIdentifications,
    C.GROUP_IDENTIFY_SPEC.maxProperties,
    C.GROUP_IDENTIFY_SPEC.maxRequestBytes,
  ],
  feedback: [C.FEEDBACK_SPEC.minItems, C.FEEDBACK_SPEC.maxItems, C.FEEDBACK_SPEC.maxPayloadBytes],
  replay: [C.REPLAY_SPEC.maxReplayIds, C.REPLAY_SPEC.presignedUrlMs, C.DASHBOARD_SPEC.maxSessionMs],
};

/** What the client keeps for a limit: its value and its span (`in flight`, or the window in ms). */
interface ClientReading {
  value: number;
  span: 'in flight' | number;
}

function budget(family: keyof typeof DEFAULT_BUDGETS, name: string): ClientReading {
  const b = DEFAULT_BUDGETS[family].find((x) => x.name === name);
  if (b === undefined) throw new Error(`no client budget ${name} in ${family}`);
  return { value: b.limit, span: b.kind === 'concurrent' ? 'in flight' : b.windowMs };
}

/** Each limit of the sandbox's table, and how the client keeps the same limit. */
const CLIENT: Readonly<Record<keyof typeof SANDBOX_LIMITS, ClientReading>> = {
  analyticsConcurrency: { value: DEFAULT_HOST_CONCURRENCY, span: 'in flight' },
  userActivityConcurrency: { value: DEFAULT_CONCURRENCY.useractivity, span: 'in flight' },
  userActivityPerHour: budget('useractivity', 'user activity queries per hour'),
  dashboardConcurrentCost: budget('dashboard', 'dashboard concurrent cost'),
  dashboardCostPerHour: budget('dashboard', 'dashboard cost per hour'),
  taxonomyConcurrentCost: budget('taxonomy', 'taxonomy concurrent cost'),
  taxonomyCostPerHour: budget('taxonomy', 'taxonomy cost per hour'),
  mappingPer30s: budget('ingest', 'mappings per 30 s'),
};

const ENTRIES = Object.entries(SANDBOX_LIMITS) as [keyof typeof SANDBOX_LIMITS, SandboxLimit][];

describe('the sandbox and the client read the same limits', () => {
  it.each(ENTRIES)('%s: the same value, counted over the same span', (key, limit) => {
    expect({ value: limit.value, span: limit.span }).toEqual(CLIENT[key]);
  });

  it.each(ENTRIES)('%s: a 429 the sandbox words names a limit of the client, of the same kind', (_key, limit) => {
    const reading = classifyLimit(JSON.stringify({ error: { message: limitMessage(limit, limit.value, 1, 0, 'x') } }));
    expect(reading).toEqual({ kind: limit.span === 'in flight' ? 'concurrency' : 'rate', limit: limit.name });
  });

  it("every limit of the client's 429 table but the sandbox's own switch is one the sandbox enforces", () => {
    const sandboxNames = new Set(ENTRIES.map(([, l]) => l.name));
    const clientNames = Object.values(PLATFORM_LIMITS)
      .map((l) => l.name)
      .filter((n) => n !== PLATFORM_LIMITS.requestRate.name);
    expect(new Set(clientNames)).toEqual(sandboxNames);
  });

  it('taxonomy calls cost the same by method', () => {
    for (const m of ['GET', 'PUT', 'POST', 'DELETE']) expect(TAXONOMY_CALL_COST[m], m).toBe(taxonomyCost(m));
  });

  it('a dashboard query costs the same', () => {
    const events: { event_type: string; group_by?: { type: string; value: string }[] }[][] = [
      [],
      [{ event_type: 'a' }],
      [{ event_type: 'a', group_by: [{ type: 'user', value: 'country' }] }],
      [
        { event_type: 'a', group_by: [{ type: 'user', value: 'country' }] },
        {
          event_type: 'b',
          group_by: [
            { type: 'user', value: 'os' },
            { type: 'event', value: 'x' },
          ],
        },
      ],
    ];
    const ranges = [undefined, { start: '20260101', end: '20260101' }, { start: '20261130', end: '20261205' }];
    const segments = [
      undefined,
      [],
      [
        { prop: 'country', op: 'is', values: ['DE'] },
        { prop: 'os', op: 'is', values: [] },
      ],
    ];
    const kinds: CostKind[] = ['segmentation', 'funnel', 'retention', 'sessions', 'other'];
    let compared = 0;
    for (const kind of kinds)
      for (const e of events)
        for (const range of ranges)
          for (const s of segments) {
            const client = dashboardQueryCost({
              type: kind,
              ...(range ?? {}),
              ...(s ? { segments: s } : {}),
              events: e,
            });
            expect(queryCost({ kind, range, segments: s, events: e }), JSON.stringify({ kind, e, range, s })).toBe(
              client,
            );
            compared++;
          }
    expect(compared).toBe(180);
  });
});

describe("the sandbox and the client read the spec's other numbers alike", () => {
  it('batch sizes, payload caps, ranges and operator lists', () => {
    expect(sandboxValues).toEqual(clientValues);
  });
});
