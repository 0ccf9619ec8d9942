/**
 * The sandbox's dashboard family over real HTTP through the typed client (DashboardClient): deterministic data of the
 * documented shapes, the dashboard's error objects, Basic auth, and the limits' 429 (cost per five minutes, user
 * activity per hour) with Retry-After and a body naming the limit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DashboardClient, RateLimitError, type DashboardEvent } from '../../src/clients/index.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { FamilyRig } from './family-rig.js';
import { ManualClock } from '../helpers/manual-clock.js';

let rig: FamilyRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function client(options: SandboxOptions = {}, secretKey?: string): Promise<DashboardClient> {
  rig = await FamilyRig.start(options);
  return new DashboardClient(
    rig.transport(secretKey === undefined ? rig.sandbox.credentials : { ...rig.sandbox.credentials, secretKey }),
  );
}

const WEEK = { start: '20261101', end: '20261107' };
const DAYS = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-07'];
const SIGN_UP: DashboardEvent = { event_type: 'Sign Up' };

describe('sandbox dashboard family: shapes', () => {
  it('day series: one value per day of the range; the same query gets the same data, another query other data', async () => {
    const d = await client();
    const users = await d.activeUsers(WEEK);
    expect(users.xValues).toEqual(DAYS);
    expect(users.seriesMeta).toEqual(['Active Users']);
    expect(users.series).toHaveLength(1);
    expect(users.series[0]).toHaveLength(7);
    expect(users.series[0]!.every((n) => Number.isInteger(n) && n >= 0)).toBe(true);
    expect(await d.activeUsers(WEEK)).toEqual(users);
    expect((await d.activeUsers({ start: '20261102', end: '20261108' })).series).not.toEqual(users.series);
    for (const data of [await d.averageSessionLength(WEEK), await d.sessionsPerUser(WEEK)]) {
      expect(data).toMatchObject({ xValues: DAYS, seriesMeta: [{ segmentIndex: 0 }] });
      expect(data.series[0]).toHaveLength(7);
    }
  });

  it('session length: custom bins (min, max, unit, size), service-picked bins, or the default millisecond bins', async () => {
    const d = await client();
    const custom = await d.sessionLength({ ...WEEK, bins: { min: 0, max: 10, timeUnit: 'minutes', binSize: 1 } });
    expect(custom.xValues).toHaveLength(10);
    expect(custom.xValues[0]).toBe('[0m, 1m)');
    expect((custom.series[0] as number[]).length).toBe(10);
    expect((await d.sessionLength({ ...WEEK, bins: { min: 0, max: 30, timeUnit: 'seconds' } })).xValues).toHaveLength(
      10,
    );
    const defaults = await d.sessionLength(WEEK);
    expect(defaults.xValues).toEqual([
      '[0ms, 3000ms)',
      '[3000ms, 10000ms)',
      '[10000ms, 30000ms)',
      '[30000ms, 60000ms)',
      '[60000ms, 180000ms)',
      '[180000ms, 600000ms)',
      '[600000ms, 1800000ms)',
      '[1800000ms, 3600000ms)',
      '[3600000ms, 86400000ms)',
    ]);
  });

  it('composition, events list, segmentation (with group-by), funnel, retention, revenue, realtime', async () => {
    const d = await client();
    const comp = await d.composition({ ...WEEK, property: 'platform' });
    expect(comp).toMatchObject({ xValues: ['Web', 'iOS', 'Android'], seriesLabels: ['platform'] });
    const events = await d.eventsList();
    expect(events.map((e) => e.value)).toEqual(['Page Viewed', 'Sign Up', 'Purchase Completed', 'Button Clicked']);
    expect(events[0]).toEqual({
      non_active: false,
      value: 'Page Viewed',
      totals: expect.any(Number),
      deleted: false,
      flow_hidden: false,
      hidden: false,
      display: 'Page Viewed',
    });
    const seg = await d.eventSegmentation({
      ...WEEK,
      event: { ...SIGN_UP, group_by: [{ type: 'user', value: 'platform' }] },
    });
    expect(seg.series).toHaveLength(3);
    expect(seg.seriesLabels).toEqual([
      [0, 'Web'],
      [1, 'iOS'],
      [2, 'Android'],
    ]);
    expect(seg.seriesCollapsed.map((c) => c[0]!.value)).toEqual(
      (seg.series as number[][]).map((s) => s.reduce((a, b) => a + b, 0)),
    );
    const [group] = await d.funnel({
      ...WEEK,
      events: [{ event_type: 'Page Viewed' }, SIGN_UP, { event_type: 'Purchase Completed' }],
    });
    expect(group!.events).toEqual(['Page Viewed', 'Sign Up', 'Purchase Completed']);
    expect(group!.cumulativeRaw).toHaveLength(3);
    expect(group!.cumulative[0]).toBe(1);
    expect(group!.dayFunnels).toMatchObject({
      xValues: DAYS,
      formattedXValues: ['Nov 01', 'Nov 02', 'Nov 03', 'Nov 04', 'Nov 05', 'Nov 06', 'Nov 07'],
    });
    const ret = await d.retention({ ...WEEK, startingEvent: SIGN_UP, returningEvent: { event_type: 'Page Viewed' } });
    expect(ret.seriesMeta).toEqual([{ segmentIndex: 0, eventIndex: 0 }]);
    expect(ret.series[0]!.dates).toEqual(DAYS);
    expect(ret.series[0]!.values['2026-11-01']).toHaveLength(7);
    expect(ret.series[0]!.values['2026-11-07']).toEqual([
      { count: expect.any(Number), outof: expect.any(Number), incomplete: true },
    ]);
    expect(ret.series[0]!.combined[0]).toMatchObject({ retainedSetId: null, incomplete: false });
    const ltv = await d.revenueLtv(WEEK);
    expect(Object.keys(ltv.series[0]!.values)).toEqual(DAYS);
    expect(ltv.series[0]!.values['2026-11-03']).toMatchObject({
      r1d: expect.any(Number),
      r90d: expect.any(Number),
      count: expect.any(Number),
      paid: expect.any(Number),
      total_amount: expect.any(Number),
    });
    const rt = await d.realtime();
    expect(rt.seriesLabels).toEqual(['Today', 'Yesterday']);
    expect(rt.xValues).toHaveLength(288);
    expect(rt.xValues.slice(0, 2)).toEqual(['00:00', '00:05']);
    expect(rt.series).toHaveLength(2);
  });

  it('user search and user activity over the sandbox users; chart CSV as text', async () => {
    const d = await client();
    expect(await d.userSearch('user-07')).toEqual({
      matches: [{ user_id: 'user-07', platform_id: 100000007 }],
      type: 'match_user_or_device_id',
    });
    expect(await d.userSearch('device-02')).toMatchObject({ matches: [{ user_id: 'user-02' }] });
    expect((await d.userSearch('user-1')).matches.map((m) => m.user_id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `user-1${i}`),
    );
    expect(await d.userSearch('nobody')).toEqual({ matches: [], type: 'nomatch' });
    const act = await d.userActivity(100000007);
    expect(act.userData).toMatchObject({
      user_id: 'user-07',
      canonical_platform_id: 100000007,
      device_ids: ['device-07'],
      last_location: { lat: expect.any(Number), lng: expect.any(Number) },
    });
    expect(act.events.length).toBe(act.userData.num_events);
    const csv = await d.chartCsv('abc123');
    expect(csv.split('\r\n').slice(0, 2)).toEqual([
      '"Chart abc123"',
      '"Segment","Page Viewed","Sign Up","Purchase Completed"',
    ]);
    expect(await d.chartCsv('abc123')).toBe(csv);
  });
});

describe('sandbox dashboard family: errors', () => {
  it('answers 401 without the project credentials', async () => {
    const d = await client({}, 'wrong');
    await expect(d.eventsList()).rejects.toMatchObject({ status: 401 });
  });

  it('bad parameters get 400 with the dashboard error object; unknown users and charts too', async () => {
    const d = await client();
    const sandbox = rig!.sandbox;
    const auth = rig!.basicAuth();
    for (const [query, message] of [
      ['/api/2/users?start=20261301&end=20261302', 'start must be a date YYYYMMDD'],
      ['/api/2/users?start=20261105&end=20261101', 'is before start'],
      ['/api/2/events/segmentation?start=20261101&end=20261101&e=%7B%7D', 'e must be an event object'],
      ['/api/2/composition?start=20261101&end=20261101', 'p is required'],
      ['/api/2/funnels?start=20261101&end=20261101', 'e is required'],
    ] as const) {
      const res = await fetch(sandbox.url + query, { headers: { authorization: auth } });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: { code: 'invalid_parameter', message: expect.stringContaining(message) },
      });
    }
    await expect(d.userActivity(5)).rejects.toMatchObject({
      status: 400,
      serverMessages: ['no user with platform id 5'],
    });
    const steps = Array.from({ length: 21 }, (_, i) => ({ event_type: `step ${i}` }));
    await expect(d.funnel({ start: '20261101', end: '20261101', events: steps })).rejects.toMatchObject({
      status: 400,
      serverMessages: [expect.stringContaining('at most 20 funnel steps')],
    });
    await expect(d.chartCsv('not a chart')).rejects.toMatchObject({ status: 404 });
    expect(
      (await fetch(`${sandbox.url}/api/2/users`, { method: 'POST', headers: { authorization: auth } })).status,
    ).toBe(405);
  });
});

describe('sandbox dashboard family: limits', () => {
  it('a query over the cost per hour gets 429 naming the limit, with the Retry-After the client keeps as given', async () => {
    const d = await client({ limits: { dashboardCostPerHour: 300 } });
    // Retention over 30 days: 30 days × 1 condition × 8 = 240.
    const month = { start: '20261101', end: '20261130', startingEvent: SIGN_UP, returningEvent: SIGN_UP };
    await d.retention(month);
    await d.activeUsers(WEEK); // 7 days × 1 × 1: still fits
    const err = await d.retention(month).catch((e: unknown) => e);
    expect(err).toMatchObject({
      status: 429,
      limit: expect.stringContaining(
        'dashboard cost per hour limit exceeded: 300 per hour (this query costs 240; 247 spent in the window)',
      ),
    });
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).not.toContain(rig!.basicAuth().slice('Basic '.length));
    // Retry-After is about an hour, and the client keeps it as the server said (no cap of its own).
    expect((err as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(3_500_000);
    expect(rig!.sandbox.limitRefusals()).toEqual({ 'dashboard cost per hour': 1 });
  });

  it('the concurrent cost is held while a query is answered: a second query beside one in flight gets 429', async () => {
    const d = await client({ limits: { dashboardConcurrentCost: 300 }, faults: { latencyMs: 300 } });
    const month = { start: '20261101', end: '20261130', startingEvent: SIGN_UP, returningEvent: SIGN_UP };
    // Two at once, straight to the sandbox (the client would hold the second back itself).
    const q = (end: string) =>
      new URLSearchParams({ se: JSON.stringify(SIGN_UP), re: JSON.stringify(SIGN_UP), start: '20261101', end });
    const get = (end: string) =>
      fetch(`${rig!.sandbox.url}/api/2/retention?${q(end)}`, { headers: { authorization: rig!.basicAuth() } });
    const [a, b] = await Promise.all([get('20261130'), get('20261129')]);
    expect([a.status, b.status].sort()).toEqual([200, 429]);
    const refused = a.status === 429 ? a : b;
    expect(await refused.json()).toMatchObject({
      error: {
        limit: 'dashboard concurrent cost',
        message: expect.stringContaining('300 in flight (this query costs'),
      },
    });
    // Once answered, the cost is given back: the next query goes.
    await d.retention(month);
    expect(rig!.sandbox.limitRefusals()).toEqual({ 'dashboard concurrent cost': 1 });
  });

  it('a query whose cost can never fit is a 429 naming the limit (the spec answers limits with 429 only), without Retry-After', async () => {
    await client({ limits: { dashboardCostPerHour: 100 } });
    // Retention over 30 days costs 240: more than the whole hour's 100, now or later.
    const q = new URLSearchParams({
      se: JSON.stringify(SIGN_UP),
      re: JSON.stringify(SIGN_UP),
      start: '20261101',
      end: '20261130',
    });
    const res = await fetch(`${rig!.sandbox.url}/api/2/retention?${q}`, {
      headers: { authorization: rig!.basicAuth() },
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await res.json()).toMatchObject({
      error: {
        limit: 'dashboard cost per hour',
        message: expect.stringContaining('this query costs 240, more than the whole limit of 100 per hour'),
      },
    });
    expect(rig!.sandbox.limitRefusals()).toEqual({ 'dashboard cost per hour': 1 });
  });

  it('user activity and user search share 360 per hour (here 2)', async () => {
    const d = await client({ limits: { userActivityPerHour: 2 } });
    await d.userSearch('user-01');
    await d.userActivity(100000001);
    await expect(d.userSearch('user-01')).rejects.toMatchObject({
      status: 429,
      limit: expect.stringContaining('user activity and user search queries per hour'),
    });
    // The dashboard's own budgets are apart.
    await d.eventsList();
  });

  it('timeScale shortens the windows: the hour passes in 3.6 s', async () => {
    // The sandbox and the client on a clock of the test's: the 3.6 s pass when the test says.
    const clock = new ManualClock();
    const d = await client({ limits: { dashboardCostPerHour: 300 }, timeScale: 0.001, clock });
    const month = { start: '20261101', end: '20261130', startingEvent: SIGN_UP, returningEvent: SIGN_UP };
    await d.retention(month); // at 0
    await clock.advance(1);
    const err = await d.retention(month).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 4000 });
    // A millisecond before the query at 0 ages out of the window the sandbox still refuses (asked directly: the client
    // holds the family back for the Retry-After, on the same clock); once the Retry-After is over it takes the query.
    await clock.advance(3598);
    const q = new URLSearchParams({
      se: JSON.stringify(SIGN_UP),
      re: JSON.stringify(SIGN_UP),
      start: month.start,
      end: month.end,
    });
    const raw = await fetch(`${rig!.sandbox.url}/api/2/retention?${q}`, {
      headers: { authorization: rig!.basicAuth() },
    });
    expect(raw.status).toBe(429);
    await clock.advance(402);
    await d.retention(month);
    expect(rig!.sandbox.limitRefusals()).toEqual({ 'dashboard cost per hour': 2 });
  });
});
