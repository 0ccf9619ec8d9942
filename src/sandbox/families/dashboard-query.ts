/**
 * The parameters of a dashboard query as the sandbox reads them (spec document 3): dates YYYYMMDD, event objects and
 * segments as JSON, session length bins. A bad value is a DashboardRequestError (400), answered with the dashboard's
 * error object. Parameters the spec does not show are ignored.
 */
import { isObject } from './body-checks.js';
import { daysOf } from './dashboard-cost.js';

export class DashboardRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DashboardRequestError';
  }
}

function invalid(message: string): never {
  throw new DashboardRequestError(400, 'invalid_parameter', message);
}

/** Longest date range served (the series hold one value per day). */
const MAX_DAYS = 3660;

export interface QueryEvent {
  event_type: string;
  filters: unknown[];
  group_by: { type: string; value: string }[];
}

function parseJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return invalid(`${name} is not valid JSON`);
  }
}

export class DashboardQuery {
  constructor(private readonly query: URLSearchParams) {}

  /** A parameter given at most once. */
  single(name: string): string | undefined {
    const all = this.query.getAll(name);
    if (all.length > 1) invalid(`${name} was given ${all.length} times; give it once`);
    return all[0];
  }

  required(name: string): string {
    const v = this.single(name);
    if (v === undefined || v === '') invalid(`${name} is required`);
    return v;
  }

  /** `start` and `end`, YYYYMMDD, start not after end, at most MAX_DAYS days. */
  range(): { start: string; end: string; days: string[] } {
    const start = yyyymmdd('start', this.required('start'));
    const end = yyyymmdd('end', this.required('end'));
    if (start > end) invalid(`end (${end}) is before start (${start})`);
    const n = daysOf(start, end);
    if (n > MAX_DAYS) invalid(`the range holds ${n} days; at most ${MAX_DAYS}`);
    const first = Date.UTC(+start.slice(0, 4), +start.slice(4, 6) - 1, +start.slice(6, 8));
    const days = Array.from({ length: n }, (_, i) => new Date(first + i * 86_400_000).toISOString().slice(0, 10));
    return { start, end, days };
  }

  /** The segment definitions `s` (a JSON array of objects), or none. */
  segments(): unknown[] {
    const raw = this.single('s');
    if (raw === undefined) return [];
    const v = parseJson('s', raw);
    if (!Array.isArray(v) || !v.every(isObject)) invalid('s must be a JSON array of segment objects');
    return v;
  }

  /** One event object parameter (`e`, `se`, `re`). */
  event(name: string): QueryEvent {
    return eventOf(name, this.required(name));
  }

  /** Every value of a repeated event parameter (`e` of funnels), in order: at least one. */
  events(name: string): QueryEvent[] {
    const all = this.query.getAll(name);
    if (all.length === 0) invalid(`${name} is required (one per funnel step)`);
    if (all.length > 20) invalid(`at most 20 funnel steps (got ${all.length})`);
    return all.map((text, i) => eventOf(`${name}[${i}]`, text));
  }
}

function yyyymmdd(name: string, v: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(v);
  const ok =
    m &&
    (() => {
      const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
      return d.getUTCFullYear() === +m[1]! && d.getUTCMonth() === +m[2]! - 1 && d.getUTCDate() === +m[3]!;
    })();
  return ok ? v : invalid(`${name} must be a date YYYYMMDD (got ${JSON.stringify(v.slice(0, 40))})`);
}

function eventOf(name: string, text: string): QueryEvent {
  const v = parseJson(name, text);
  if (!isObject(v) || typeof v.event_type !== 'string' || v.event_type === '')
    invalid(`${name} must be an event object with a non-empty event_type`);
  const filters = v.filters ?? [];
  if (!Array.isArray(filters) || !filters.every(isObject))
    invalid(`${name}.filters must be an array of filter objects`);
  const groupBy = v.group_by ?? [];
  if (
    !Array.isArray(groupBy) ||
    !groupBy.every((g) => isObject(g) && typeof g.type === 'string' && typeof g.value === 'string')
  ) {
    invalid(`${name}.group_by must be an array of {type, value} strings`);
  }
  return { event_type: v.event_type, filters, group_by: groupBy as QueryEvent['group_by'] };
}
