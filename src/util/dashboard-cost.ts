/**
 * The cost of a dashboard query (spec document 3, "Limits"): cost = days × conditions × query-type cost. The one
 * formula: the client computes it before sending (src/clients/dashboard.ts) and the sandbox charges it
 * (src/sandbox/families/dashboard.ts). It imports nothing, so both may use it.
 *
 * Where the spec's formula leaves room, the choices (an over-count rather than an under-count, so that the
 * client never spends more than the server counts):
 * - days: from `start` to `end` inclusive; endpoints without a range count 1 day.
 * - conditions: one segment (the `s` list is one segment, "all users" when absent) plus one per condition in it,
 *   plus 4 per group-by of the query's events ("each group by counts as 4 segments").
 * - query-type: segmentation = 1 event + 4 per group-by; funnel = events × 2 + 4 per group-by; retention 8;
 *   the session endpoints ("user sessions") 4; every other endpoint 1.
 */

type DashboardQueryType = 'segmentation' | 'funnel' | 'retention' | 'sessions' | 'other';

/** An event object of the query; the cost counts its group-bys. */
interface CostEvent {
  readonly event_type?: string;
  readonly group_by?: readonly unknown[] | undefined;
}

export interface CostInput {
  type: DashboardQueryType;
  /** YYYYMMDD, already checked. */
  start?: string;
  end?: string;
  /** The segment definitions (`s`): each counts as one condition. */
  segments?: readonly unknown[];
  events?: readonly CostEvent[];
}

const DAY_MS = 86_400_000;

function dayNumber(yyyymmdd: string): number {
  return (
    Date.UTC(Number(yyyymmdd.slice(0, 4)), Number(yyyymmdd.slice(4, 6)) - 1, Number(yyyymmdd.slice(6, 8))) / DAY_MS
  );
}

/** Days from `start` to `end` inclusive (YYYYMMDD, already checked), at least 1. */
function dashboardDays(start: string, end: string): number {
  return Math.max(1, dayNumber(end) - dayNumber(start) + 1);
}

export function dashboardQueryCost(q: CostInput): number {
  const days = q.start !== undefined && q.end !== undefined ? dashboardDays(q.start, q.end) : 1;
  const events = q.events ?? [];
  const groupBys = events.reduce((n, e) => n + (e.group_by?.length ?? 0), 0);
  const conditions = 1 + (q.segments?.length ?? 0) + 4 * groupBys;
  let typeCost: number;
  switch (q.type) {
    case 'segmentation':
      typeCost = Math.max(1, events.length) + 4 * groupBys;
      break;
    case 'funnel':
      typeCost = events.length * 2 + 4 * groupBys;
      break;
    case 'retention':
      typeCost = 8;
      break;
    case 'sessions':
      typeCost = 4;
      break;
    default:
      typeCost = 1;
  }
  return days * conditions * typeCost;
}
