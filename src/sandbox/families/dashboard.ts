/**
 * Dashboard queries (spec document 3): the 14 GET endpoints under `/api/2` and `/api/3/chart/{id}/csv`, HTTP Basic
 * auth (checked by the server), answering deterministic data of the documented shapes (dashboard-data.ts).
 * Failures are the dashboard's error object `{error: {code, message}}`. Each query is checked, then charged when it
 * arrives (`arrive`, before the sandbox's added latency) and held until it is answered: the dashboard endpoints their
 * cost (days × conditions × query-type cost, the sandbox's reading in dashboard-cost.ts) against the concurrent cost
 * and the cost per hour, user activity and user search one request against theirs (10 in flight, 360 per hour); over
 * a limit the answer is 429 and an error object naming the limit (with Retry-After when waiting can help).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CostKind, queryCost } from './dashboard-cost.js';
import { sendJson } from '../http-util.js';
import type { LimitRefusal, RateLimits } from '../rate-limits.js';
import * as data from './dashboard-data.js';
import { DashboardQuery, DashboardRequestError, type QueryEvent } from './dashboard-query.js';
import { searchUsers, userActivity, userByPlatformId } from './dashboard-users.js';
import type { FamilyRoute } from './family-route.js';
import { sessionBins } from './session-bins.js';

const CHART_CSV = /^\/api\/3\/chart\/([^/]+)\/csv$/;
const CHART_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** What one endpoint answers: a JSON body or CSV text; and what its cost is made of. */
interface Answer {
  body: unknown;
  csv?: string;
  /** For the cost: the range, the segments and the events the formula counts. */
  range?: { start: string; end: string };
  segments?: unknown[];
  events?: QueryEvent[];
}

interface Endpoint {
  /** `useractivity`: charged to the user activity budget instead of the dashboard cost budgets. */
  kind: CostKind | 'useractivity';
  /** `chartId`: the chart of the CSV endpoint (decoded path segment). */
  answer(q: DashboardQuery, r: data.Seeded, query: URLSearchParams, chartId: string): Answer;
}

/** An endpoint over a date range and segments; `make` builds its `data` (and names the events the cost counts). */
function ranged(
  kind: CostKind,
  make: (
    q: DashboardQuery,
    r: data.Seeded,
    days: string[],
    query: URLSearchParams,
  ) => { data: unknown; events?: QueryEvent[] },
): Endpoint {
  return {
    kind,
    answer: (q, r, query) => {
      const { start, end, days } = q.range();
      const segments = q.segments();
      const made = make(q, r, days, query);
      return {
        body: { data: made.data },
        range: { start, end },
        segments,
        ...(made.events ? { events: made.events } : {}),
      };
    },
  };
}

/** One series of day values (active users, sessions average and per user). */
function perDay(kind: CostKind, min: number, max: number, meta: (i: number) => unknown): Endpoint {
  return ranged(kind, (_q, r, days) => {
    const series = data.perDay(r, days, min, max);
    return { data: { series, seriesMeta: series.map((_, i) => meta(i)), xValues: days } };
  });
}

const ENDPOINTS: Readonly<Record<string, Endpoint>> = {
  '/api/2/users': perDay('other', 100, 1000, () => 'Active Users'),
  '/api/2/sessions/average': perDay('sessions', 30, 1800, (i) => ({ segmentIndex: i })),
  '/api/2/sessions/peruser': perDay('sessions', 1, 5, (i) => ({ segmentIndex: i })),
  '/api/2/sessions/length': ranged('sessions', (_q, r, _days, query) => {
    const xValues = sessionBins(query);
    return { data: { series: [xValues.map(() => r.int(0, 1000))], xValues } };
  }),
  '/api/2/composition': ranged('other', (q, r) => {
    const p = q.required('p');
    const xValues = [...data.propertyValues(p)];
    return { data: { series: [xValues.map(() => r.int(0, 5000))], seriesLabels: [p], xValues } };
  }),
  '/api/2/events/list': { kind: 'other', answer: (_q, r) => ({ body: { data: data.eventsList(r) } }) },
  '/api/2/events/segmentation': ranged('segmentation', (q, r, days) => {
    const e = q.event('e');
    return { data: data.segmentation(r, days, e), events: [e] };
  }),
  '/api/2/funnels': ranged('funnel', (q, r, days) => {
    const events = q.events('e');
    return { data: data.funnel(r, days, events), events };
  }),
  // The retention cost does not count se/re (the client computes it the same way: query-type cost 8).
  '/api/2/retention': ranged('retention', (q, r, days) => {
    q.event('se');
    q.event('re');
    return { data: data.retention(r, days) };
  }),
  '/api/2/useractivity': {
    kind: 'useractivity',
    answer: (q) => {
      const text = q.required('user');
      if (!/^\d{1,15}$/.test(text))
        throw new DashboardRequestError(400, 'invalid_parameter', 'user must be a platform id (an integer)');
      const user = userByPlatformId(Number(text));
      if (!user) throw new DashboardRequestError(400, 'unknown_user', `no user with platform id ${text}`);
      return { body: userActivity(user) };
    },
  },
  '/api/2/usersearch': { kind: 'useractivity', answer: (q) => ({ body: searchUsers(q.required('user')) }) },
  '/api/2/realtime': { kind: 'other', answer: (_q, r) => ({ body: { data: data.realtime(r) } }) },
  '/api/2/revenue/ltv': ranged('other', (_q, r, days) => ({ data: data.revenueLtv(r, days) })),
};

const CHART: Endpoint = {
  kind: 'other',
  answer: (_q, r, _query, chartId) => ({ body: undefined, csv: data.chartCsv(r, chartId) }),
};

export class DashboardFamily implements FamilyRoute {
  readonly family = 'dashboard';

  constructor(private readonly limits: RateLimits) {}

  matches(path: string): boolean {
    return path in ENDPOINTS || CHART_CSV.test(path);
  }

  /** The client's family: user activity and user search have their own (`useractivity`). */
  clientFamily(path: string): string {
    return ENDPOINTS[path]?.kind === 'useractivity' ? 'useractivity' : 'dashboard';
  }

  /**
   * Charges a query when it arrives, so that its cost is held for the whole request (the concurrent limits). A query
   * that is not answered 200 (a bad method, path or parameter) is not charged: `handle` answers it. True when refused.
   */
  arrive(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): boolean {
    if (req.method !== 'GET') return false;
    const found = answerOf(path, query);
    if (!('answer' in found)) return false;
    const { endpoint, answer } = found;
    const refused =
      endpoint.kind === 'useractivity'
        ? this.limits.userActivity(res)
        : this.limits.dashboard(queryCost({ kind: endpoint.kind, ...answer }), res);
    if (!refused) return false;
    limited(res, refused);
    return true;
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    if (req.method !== 'GET')
      return dashboardError(res, 405, 'method_not_allowed', 'dashboard endpoints take GET only', { Allow: 'GET' });
    const found = answerOf(path, query);
    if (!('answer' in found)) return dashboardError(res, found.status, found.code, found.message);
    const { answer } = found;
    if (answer.csv !== undefined) {
      const bytes = Buffer.from(answer.csv, 'utf8');
      res.writeHead(200, { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Length': String(bytes.length) });
      res.end(bytes);
      return;
    }
    sendJson(res, 200, answer.body);
  }
}

/** The endpoint of `path` and its answer to `query`, or the error to answer instead. */
function answerOf(
  path: string,
  query: URLSearchParams,
): { endpoint: Endpoint; answer: Answer } | { status: number; code: string; message: string } {
  let endpoint = ENDPOINTS[path];
  let chartId = '';
  const chart = CHART_CSV.exec(path);
  if (chart) {
    const id = safeDecode(chart[1]!);
    if (id === undefined || !CHART_ID.test(id))
      return { status: 404, code: 'not_found', message: 'no chart with this id' };
    chartId = id;
    endpoint = CHART;
  }
  if (!endpoint) return { status: 404, code: 'not_found', message: 'no such endpoint' };
  const seed = `${path}?${[...query]
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join('&')}`;
  try {
    return { endpoint, answer: endpoint.answer(new DashboardQuery(query), new data.Seeded(seed), query, chartId) };
  } catch (err) {
    if (!(err instanceof DashboardRequestError)) throw err;
    return { status: err.status, code: err.code, message: err.message };
  }
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** The dashboard's error object. */
function dashboardError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
  extra: object = {},
): void {
  sendJson(res, status, { error: { code, message, ...extra } }, headers);
}

/** A 429 whose error object names the limit; Retry-After unless the query's cost alone is over the whole limit. */
function limited(res: ServerResponse, r: LimitRefusal): void {
  const after: Record<string, string> =
    r.retryAfterSeconds !== undefined ? { 'Retry-After': String(r.retryAfterSeconds) } : {};
  dashboardError(res, 429, 'rate_limited', r.message, after, { limit: r.limit });
}
