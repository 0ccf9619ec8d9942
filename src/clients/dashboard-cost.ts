/**
 * The cost of a dashboard query, computed before sending (spec document 3, "Limits"):
 * cost = days × conditions × query-type cost.
 *
 * Where the spec's formula leaves room, the choices (an over-count rather than an under-count, so that the
 * client never spends more than the server counts):
 * - days: from `start` to `end` inclusive; endpoints without a range count 1 day.
 * - conditions: one segment (the `s` list is one segment, "all users" when absent) plus one per condition in it,
 *   plus 4 per group-by of the query's events ("each group by counts as 4 segments").
 * - query-type: segmentation = 1 event + 4 per group-by; funnel = events × 2 + 4 per group-by; retention 8;
 *   the session endpoints ("user sessions") 4; every other endpoint 1.
 */
import type { DashboardEvent, SegmentDefinition } from './dashboard-types.js';

export type DashboardQueryType = 'segmentation' | 'funnel' | 'retention' | 'sessions' | 'other';

export interface CostInput {
  type: DashboardQueryType;
  /** YYYYMMDD, already checked. */
  start?: string;
  end?: string;
  segments?: readonly SegmentDefinition[];
  events?: readonly DashboardEvent[];
}

const DAY_MS = 86_400_000;

function dayNumber(yyyymmdd: string): number {
  return Date.UTC(Number(yyyymmdd.slice(0, 4)), Number(yyyymmdd.slice(4, 6)) - 1, Number(yyyymmdd.slice(6, 8))) / DAY_MS;
}

export function dashboardQueryCost(q: CostInput): number {
  const days = q.start !== undefined && q.end !== undefined ? Math.max(1, dayNumber(q.end) - dayNumber(q.start) + 1) : 1;
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
