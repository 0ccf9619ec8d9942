/**
 * Dashboard query API (spec document 3): GET under `{analytics_url}`, HTTP Basic auth, JSON responses.
 * Concurrency: family `dashboard` (5 concurrent across the project's REST endpoints), user activity and user
 * search family `useractivity` (10 concurrent). A 429's body names the limit hit; it is in the RateLimitError.
 * Methods return the response's `data` member (user activity and user search: the whole object).
 */
import type { ApiFamily } from '../http/options.js';
import type { QueryParams, Transport } from '../http/transport.js';
import { ValidationError } from '../http/errors.js';
import { pathSegment } from '../http/url-parts.js';
import { callSpec, type CallOptions } from './call-options.js';
import { requireArray, requireString } from './checks.js';
import {
  binParams,
  dateRange,
  encodeEvent,
  withExtras,
  type DateRange,
  type QueryExtras,
  type SessionLengthBins,
} from './dashboard-params.js';
import type {
  ActiveUsersData,
  CompositionData,
  DashboardEvent,
  EventListEntry,
  FunnelGroup,
  RealtimeData,
  RetentionData,
  RevenueLtvData,
  SegmentationData,
  SessionLengthData,
  SessionsData,
  UserActivity,
  UserSearchResult,
} from './dashboard-types.js';
import { jsonObject, MalformedResponseError } from './response.js';
import { dashboardQueryCost, type CostInput } from '../util/dashboard-cost.js';
import { ClientOf } from './client-of.js';

/** Options of the calls without a date range: the signal and parameters the spec does not show. */
export type DashboardOptions = CallOptions & Pick<QueryExtras, 'extraParams'>;
/** A date range, optional segments (`s`) and extra parameters. */
export type RangeQuery = DateRange & CallOptions & QueryExtras;

export class DashboardClient extends ClientOf<Transport> {
  async #get(
    path: string,
    query: QueryParams | undefined,
    o: CallOptions | undefined,
    family: ApiFamily = 'dashboard',
    cost = 1,
  ) {
    return this.via.request({
      host: 'analytics',
      path,
      auth: 'basic',
      family,
      cost,
      ...(query ? { query } : {}),
      ...callSpec(o),
    });
  }

  async #data<T>(
    path: string,
    query: QueryParams | undefined,
    o: CallOptions | undefined,
    shape: 'object' | 'array' = 'object',
    cost: Omit<CostInput, 'start' | 'end' | 'segments'> = { type: 'other' },
  ): Promise<T> {
    const range = o as Partial<RangeQuery> | undefined;
    const c = dashboardQueryCost({
      ...cost,
      ...(typeof query?.start === 'string' && typeof query.end === 'string'
        ? { start: query.start, end: query.end }
        : {}),
      ...(range?.segments ? { segments: range.segments } : {}),
    });
    const body = jsonObject(await this.#get(path, query, o, 'dashboard', c), `GET ${path}`);
    const ok =
      shape === 'array'
        ? Array.isArray(body.data)
        : typeof body.data === 'object' && body.data !== null && !Array.isArray(body.data);
    if (!ok) throw new MalformedResponseError(`GET ${path}: the response has no "data" ${shape}`);
    return body.data as T;
  }

  #range(q: RangeQuery, more: Record<string, string | string[] | number> = {}): QueryParams {
    return withExtras({ ...dateRange(q), ...more }, q);
  }

  /** `GET /api/3/chart/{chart_id}/csv`: the body as text (its shape per chart type is not shown). */
  async chartCsv(chartId: string, o?: DashboardOptions): Promise<string> {
    const path = `/api/3/chart/${pathSegment('chart_id', chartId)}/csv`;
    return (await this.#get(path, withExtras({}, o), o)).text();
  }

  /** `GET /api/2/users?start=&end=`: active users per day. */
  async activeUsers(q: RangeQuery): Promise<ActiveUsersData> {
    return this.#data('/api/2/users', this.#range(q), q);
  }

  /** `GET /api/2/sessions/length`; `bins` sets the four `timeHistogramConfig*` parameters (checked: see docs). */
  async sessionLength(q: RangeQuery & { bins?: SessionLengthBins }): Promise<SessionLengthData> {
    return this.#data(
      '/api/2/sessions/length',
      this.#range(q, q.bins === undefined ? {} : binParams(q.bins)),
      q,
      'object',
      { type: 'sessions' },
    );
  }

  /** `GET /api/2/sessions/average`: seconds per day. */
  async averageSessionLength(q: RangeQuery): Promise<SessionsData> {
    return this.#data('/api/2/sessions/average', this.#range(q), q, 'object', { type: 'sessions' });
  }

  /** `GET /api/2/sessions/peruser`. */
  async sessionsPerUser(q: RangeQuery): Promise<SessionsData> {
    return this.#data('/api/2/sessions/peruser', this.#range(q), q, 'object', { type: 'sessions' });
  }

  /** `GET /api/2/composition?p=`: user composition by a user property. */
  async composition(q: RangeQuery & { property: string }): Promise<CompositionData> {
    return this.#data('/api/2/composition', this.#range(q, { p: requireString('p', q.property) }), q);
  }

  /** `GET /api/2/events/list`: hidden events are left out by the server. */
  async eventsList(o?: DashboardOptions): Promise<EventListEntry[]> {
    return this.#data('/api/2/events/list', withExtras({}, o), o, 'array');
  }

  /** `GET /api/2/events/segmentation?e=<JSON>`. */
  async eventSegmentation(q: RangeQuery & { event: DashboardEvent }): Promise<SegmentationData> {
    return this.#data('/api/2/events/segmentation', this.#range(q, { e: encodeEvent('e', q.event) }), q, 'object', {
      type: 'segmentation',
      events: [q.event],
    });
  }

  /** `GET /api/2/funnels?e=<JSON>&e=<JSON>...`: one `e` per step, in order. */
  async funnel(q: RangeQuery & { events: readonly DashboardEvent[] }): Promise<FunnelGroup[]> {
    const steps = requireArray('e', q.events, 1).map((e, i) => encodeEvent(`e[${i}]`, e as DashboardEvent));
    return this.#data('/api/2/funnels', this.#range(q, { e: steps }), q, 'array', { type: 'funnel', events: q.events });
  }

  /** `GET /api/2/retention?se=<JSON>&re=<JSON>`. */
  async retention(
    q: RangeQuery & { startingEvent: DashboardEvent; returningEvent: DashboardEvent },
  ): Promise<RetentionData> {
    return this.#data(
      '/api/2/retention',
      this.#range(q, { se: encodeEvent('se', q.startingEvent), re: encodeEvent('re', q.returningEvent) }),
      q,
      'object',
      { type: 'retention' },
    );
  }

  /** `GET /api/2/useractivity?user=<platform ID>` (family `useractivity`). */
  async userActivity(platformId: number | string, o?: CallOptions): Promise<UserActivity> {
    const user = typeof platformId === 'number' ? platformId : Number.NaN;
    const text =
      typeof platformId === 'string' && /^\d+$/.test(platformId)
        ? platformId
        : Number.isSafeInteger(user) && user >= 0
          ? String(user)
          : null;
    if (text === null)
      throw new ValidationError(
        'user',
        `must be a platform ID, a non-negative integer (got ${JSON.stringify(String(platformId).slice(0, 50))})`,
      );
    const path = '/api/2/useractivity';
    const body = jsonObject(await this.#get(path, { user: text }, o, 'useractivity'), `GET ${path}`);
    if (typeof body.userData !== 'object' || body.userData === null)
      throw new MalformedResponseError(`GET ${path}: the response has no userData`);
    return { ...body, events: Array.isArray(body.events) ? body.events : [] } as UserActivity;
  }

  /** `GET /api/2/usersearch?user=`: platform ID, device ID, user ID or user ID prefix (family `useractivity`). */
  async userSearch(user: string, o?: CallOptions): Promise<UserSearchResult> {
    const path = '/api/2/usersearch';
    const body = jsonObject(
      await this.#get(path, { user: requireString('user', user) }, o, 'useractivity'),
      `GET ${path}`,
    );
    if (!Array.isArray(body.matches))
      throw new MalformedResponseError(`GET ${path}: the response has no matches array`);
    return body as UserSearchResult;
  }

  /** `GET /api/2/realtime`: active users at 5-minute steps, today and yesterday. */
  async realtime(o?: DashboardOptions): Promise<RealtimeData> {
    return this.#data('/api/2/realtime', withExtras({}, o), o);
  }

  /** `GET /api/2/revenue/ltv`. */
  async revenueLtv(q: RangeQuery): Promise<RevenueLtvData> {
    return this.#data('/api/2/revenue/ltv', this.#range(q), q);
  }
}
