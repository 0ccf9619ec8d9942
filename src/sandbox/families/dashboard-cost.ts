/**
 * The cost of a dashboard query as the sandbox reads the spec (document 3, "Limits"), written from its text and not
 * from the client's (src/util/dashboard-cost.ts), so that test/sandbox/spec-tables.test.ts can hold the two readings
 * against each other:
 *
 * - "cost per query = days x conditions x query-type cost" — days: the range's days, both ends counted (1 without a
 *   range).
 * - "conditions = segments plus conditions inside segments; each group by counts as 4 segments" — the `s` parameter
 *   is one segment (all users when absent) and each of its objects a condition inside it; every group-by of the
 *   query's events adds 4.
 * - "event segmentation = number of events in the left module, plus 4 per group by and event; funnel = events x 2,
 *   plus 4 per group by and event; retention 8; user sessions 4; other endpoints 1".
 */
export type CostKind = 'segmentation' | 'funnel' | 'retention' | 'sessions' | 'other';

export interface CostedQuery {
  kind: CostKind;
  range?: { start: string; end: string } | undefined;
  segments?: readonly unknown[] | undefined;
  /** The query's events; only their group-bys count. */
  events?: readonly { readonly group_by?: readonly unknown[] }[] | undefined;
}

/** Calendar days from `start` to `end` (YYYYMMDD, checked), both counted. */
export function daysOf(start: string, end: string): number {
  const at = (d: string): number => Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6, 8));
  return Math.round((at(end) - at(start)) / 86_400_000) + 1;
}

function queryTypeCost(kind: CostKind, events: number, groupBys: number): number {
  if (kind === 'segmentation') return Math.max(events, 1) + 4 * groupBys;
  if (kind === 'funnel') return 2 * events + 4 * groupBys;
  if (kind === 'retention') return 8;
  if (kind === 'sessions') return 4;
  return 1;
}

export function queryCost(q: CostedQuery): number {
  const events = q.events ?? [];
  let groupBys = 0;
  for (const e of events) groupBys += e.group_by?.length ?? 0;
  const days = q.range ? Math.max(1, daysOf(q.range.start, q.range.end)) : 1;
  const conditions = 1 + (q.segments?.length ?? 0) + 4 * groupBys;
  return days * conditions * queryTypeCost(q.kind, events.length, groupBys);
}
