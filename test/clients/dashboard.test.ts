/**
 * DashboardClient on the scripted loopback server (helpers.ts `rig`): the exact parameters it sends, what it refuses
 * before sending, the bins edge, malformed answers and its concurrency caps (which the sandbox, with the host's limit of
 * 5, cannot show). What it makes of real answers (data, user activity and search, chart CSV) and of a 429 naming the
 * limit is tested against the sandbox: test/sandbox/dashboard-family.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DashboardClient, MalformedResponseError, type DashboardEvent } from '../../src/clients/index.js';
import { BASIC, expectRefused, json, requestOf, rig, text, type Rig } from './helpers.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const EVENT: DashboardEvent = {
  event_type: 'Play Song & Dance',
  filters: [{ subprop_type: 'user', subprop_key: 'gp:plan', subprop_op: 'is', subprop_value: ['pro', 'a,b'] }],
  group_by: [{ type: 'user', value: 'country' }],
};
const RANGE = { start: '20260101', end: '20260131' };

/** Answers by path with a small body of the documented shape. */
async function dashboardRig(): Promise<Rig> {
  return rig((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    if (path.endsWith('/csv')) return text(res, 200, 'a,b\n1,2\n');
    if (path === '/api/2/useractivity')
      return json(res, 200, {
        userData: { user_id: 'u', canonical_platform_id: 42, merged_platform_ids: [] },
        events: [{ event_type: 'x' }],
      });
    if (path === '/api/2/usersearch') return json(res, 200, { matches: [], type: 'nomatch' });
    if (path === '/api/2/events/list' || path === '/api/2/funnels') return json(res, 200, { data: [{ path }] });
    json(res, 200, { data: { path, series: [[1, 2]], xValues: ['2026-01-01'] } });
  });
}

describe('DashboardClient', () => {
  it('sends each query as a GET with Basic auth and the right parameters', async () => {
    r = await dashboardRig();
    const d = new DashboardClient(r.transport);
    const calls: [() => Promise<unknown>, string, Record<string, string | string[]>][] = [
      [() => d.chartCsv('abc 1'), '/api/3/chart/abc%201/csv', {}],
      [() => d.activeUsers(RANGE), '/api/2/users', { ...RANGE }],
      [() => d.sessionLength(RANGE), '/api/2/sessions/length', { ...RANGE }],
      [
        () => d.sessionLength({ ...RANGE, bins: { min: 0, max: 10, timeUnit: 'minutes', binSize: 1 } }),
        '/api/2/sessions/length',
        {
          ...RANGE,
          timeHistogramConfigBinMin: '0',
          timeHistogramConfigBinMax: '10',
          timeHistogramConfigBinTimeUnit: 'minutes',
          timeHistogramConfigBinSize: '1',
        },
      ],
      [() => d.averageSessionLength(RANGE), '/api/2/sessions/average', { ...RANGE }],
      [() => d.sessionsPerUser(RANGE), '/api/2/sessions/peruser', { ...RANGE }],
      [() => d.composition({ ...RANGE, property: 'gp:plan' }), '/api/2/composition', { ...RANGE, p: 'gp:plan' }],
      [() => d.eventsList(), '/api/2/events/list', {}],
      [
        () => d.eventSegmentation({ ...RANGE, event: EVENT }),
        '/api/2/events/segmentation',
        { ...RANGE, e: JSON.stringify(EVENT) },
      ],
      [
        () => d.funnel({ ...RANGE, events: [EVENT, { event_type: 'Buy' }] }),
        '/api/2/funnels',
        { ...RANGE, e: [JSON.stringify(EVENT), JSON.stringify({ event_type: 'Buy' })] },
      ],
      [
        () => d.retention({ ...RANGE, startingEvent: EVENT, returningEvent: { event_type: '_active' } }),
        '/api/2/retention',
        { ...RANGE, se: JSON.stringify(EVENT), re: JSON.stringify({ event_type: '_active' }) },
      ],
      [() => d.userActivity(42), '/api/2/useractivity', { user: '42' }],
      [() => d.userSearch('dev/ice id'), '/api/2/usersearch', { user: 'dev/ice id' }],
      [() => d.realtime(), '/api/2/realtime', {}],
      [() => d.revenueLtv(RANGE), '/api/2/revenue/ltv', { ...RANGE }],
      [
        () =>
          d.activeUsers({
            ...RANGE,
            segments: [{ prop: 'country', op: 'is', values: ['FR'] }],
            extraParams: { m: 'new', i: 7 },
          }),
        '/api/2/users',
        { ...RANGE, s: JSON.stringify([{ prop: 'country', op: 'is', values: ['FR'] }]), m: 'new', i: '7' },
      ],
    ];
    for (const [call, path, params] of calls) {
      const seen = await requestOf(r, call);
      expect(seen.method).toBe('GET');
      expect(seen.path).toBe(path);
      expect(seen.headers.authorization).toBe(BASIC);
      expect(seen.body).toBe('');
      const got: Record<string, string | string[]> = {};
      for (const k of new Set(seen.query.keys())) {
        const all = seen.query.getAll(k);
        got[k] = all.length > 1 ? all : all[0]!;
      }
      expect(got).toEqual(params);
    }
  });

  it('a response without data is MalformedResponseError', async () => {
    r = await rig((_req, res) => json(res, 200, { error: 'none' }));
    await expect(new DashboardClient(r.transport).activeUsers(RANGE)).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('refuses invalid queries before sending anything', async () => {
    r = await dashboardRig();
    const d = new DashboardClient(r.transport);
    const bins = (b: object) => d.sessionLength({ ...RANGE, bins: b as never });
    const bad: [() => Promise<unknown>, string][] = [
      [() => d.activeUsers({ start: '2026-01-01', end: '20260131' }), 'start'],
      [() => d.activeUsers({ start: '20260230', end: '20260301' }), 'start'],
      [() => d.activeUsers({ start: '20260201', end: '20260131' }), 'end'],
      [() => d.activeUsers({ start: '20260101' } as never), 'end'],
      [() => bins({ min: 0, max: 10 }), 'timeHistogramConfigBinTimeUnit'],
      [() => bins({ min: 0, timeUnit: 'minutes', binSize: 1 }), 'timeHistogramConfigBinMax'],
      [() => bins({ min: 5, max: 5, timeUnit: 'minutes' }), 'timeHistogramConfigBinMax'],
      [() => bins({ min: -1, max: 5, timeUnit: 'minutes' }), 'timeHistogramConfigBinMin'],
      [() => bins({ min: 0, max: 1441, timeUnit: 'minutes' }), 'timeHistogramConfigBinMax'],
      [() => bins({ min: 0, max: 25, timeUnit: 'hours' }), 'timeHistogramConfigBinMax'],
      [() => bins({ min: 0, max: 10, timeUnit: 'minutes', binSize: 0 }), 'timeHistogramConfigBinSize'],
      [() => bins({ min: 0, max: 10, timeUnit: 'minutes', binSize: 11 }), 'timeHistogramConfigBinSize'],
      [() => bins({ min: 0, max: 10, timeUnit: 'days' }), 'timeHistogramConfigBinTimeUnit'],
      [() => d.eventSegmentation({ ...RANGE, event: { event_type: '' } }), 'e.event_type'],
      [
        () =>
          d.eventSegmentation({
            ...RANGE,
            event: {
              event_type: 'x',
              filters: [{ subprop_type: 'user', subprop_key: 'k', subprop_op: 'is', subprop_value: 'v' }],
            } as never,
          }),
        'e.filters[0].subprop_value',
      ],
      [() => d.funnel({ ...RANGE, events: [] }), 'e'],
      [
        () => d.funnel({ ...RANGE, events: [EVENT, { event_type: 'x', group_by: [{ type: 'user' }] } as never] }),
        'e[1].group_by[0].value',
      ],
      [() => d.retention({ ...RANGE, startingEvent: EVENT } as never), 're'],
      [() => d.composition({ ...RANGE, property: '' }), 'p'],
      [() => d.userActivity('12ab'), 'user'],
      [() => d.userActivity(1.5), 'user'],
      [() => d.userSearch(''), 'user'],
      [
        () =>
          d.activeUsers({
            ...RANGE,
            segments: [
              { op: '>=', type: 'event', event_type: 'x', filters: [], value: 1, time_type: 'forEachInterval' },
            ],
          }),
        's[0].time_value',
      ],
      [
        () =>
          d.activeUsers({
            ...RANGE,
            segments: [
              { op: '>=', type: 'event', event_type: 'x', filters: [], value: 1, time_type: 'sometimes' as never },
            ],
          }),
        's[0].time_type',
      ],
      [
        () => d.activeUsers({ ...RANGE, segments: [{ prop: 'country', op: 'is', values: [1] } as never] }),
        's[0].values[0]',
      ],
      [() => d.activeUsers({ ...RANGE, extraParams: { start: '20250101' } }), 'start'],
    ];
    await expectRefused(r, bad);
  });

  it('accepts bins of exactly one day and leaves BinSize out when not given', async () => {
    r = await dashboardRig();
    await new DashboardClient(r.transport).sessionLength({ ...RANGE, bins: { min: 0, max: 24, timeUnit: 'hours' } });
    const q = r.only().query;
    expect(q.get('timeHistogramConfigBinMax')).toBe('24');
    expect(q.has('timeHistogramConfigBinSize')).toBe(false);
  });

  it('caps dashboard queries at 5 in flight and user activity at 10', async () => {
    let open = false;
    const held: (() => void)[] = [];
    r = await rig(
      (req, res) => {
        const answer = () =>
          req.url!.startsWith('/api/2/useractivity')
            ? json(res, 200, { userData: {}, events: [] })
            : json(res, 200, { data: {} });
        if (open) answer();
        else held.push(answer);
      },
      { adaptive: false },
    ); // the caps as fixed maximums (adaptive windows grow to them: test/http/adaptive-*.test.ts)
    const d = new DashboardClient(r.transport);
    const settle = async (n: number) => {
      for (let i = 0; r!.server.inFlight < n && i < 1000; i++) await new Promise((res) => setTimeout(res, 5));
      await new Promise((res) => setTimeout(res, 50)); // room for a request over the cap to (wrongly) arrive
    };
    const dash = Array.from({ length: 8 }, () => d.activeUsers(RANGE));
    await settle(5);
    expect(r.server.inFlight).toBe(5);
    expect(r.transport.waiting('dashboard')).toBe(3);
    const ua = Array.from({ length: 12 }, (_, i) => d.userActivity(i));
    await settle(15);
    expect(r.server.inFlight).toBe(15);
    expect(r.transport.waiting('useractivity')).toBe(2);
    open = true;
    held.splice(0).forEach((f) => f());
    await Promise.all([...dash, ...ua]);
    expect(r.server.requests).toHaveLength(20);
    expect(r.server.maxInFlight).toBe(15);
  });
});
