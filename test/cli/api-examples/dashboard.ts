import { expect } from 'vitest';
import type { ApiExample } from './types.js';

/**
 * The 14 dashboard operations through `replay-export api` against the sandbox's deterministic data. Short ranges keep
 * the whole file's cost near 230, far inside the default budget of 1,000 per five minutes (days × conditions ×
 * query-type cost; the costs are noted per call). The sandbox's users are `user-01` … `user-20`, platform ids
 * 100000001 … 100000020.
 */
const WEEK = ['--param', 'start=20261101', '--param', 'end=20261107'];
const DAYS = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-07'];
const param = (name: string, value: unknown): string[] => [
  '--param',
  `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
];

/** The `data` of a dashboard answer (`{data: …}`, spec document 3), checked to be there. */
function data(answer: unknown): unknown {
  expect(answer).toHaveProperty('data');
  return (answer as { data: unknown }).data;
}

/** A `{data: {series, xValues}}` answer with one value per day of WEEK. */
function daySeries(answer: unknown): void {
  const r = data(answer);
  expect(r).toMatchObject({ xValues: DAYS });
  const series = (r as { series: unknown[][] }).series;
  expect(series.length).toBeGreaterThan(0);
  for (const s of series) expect(s).toHaveLength(DAYS.length);
}

export const EXAMPLES: readonly ApiExample[] = [
  {
    operation: 'dashboard.chart-csv', // cost 1
    args: param('chartId', 'abc123'),
    check: (r) => {
      expect(typeof r).toBe('string');
      expect((r as string).split('\r\n').slice(0, 2)).toEqual([
        '"Chart abc123"',
        '"Segment","Page Viewed","Sign Up","Purchase Completed"',
      ]);
    },
  },
  { operation: 'dashboard.active-users', args: WEEK, check: daySeries }, // 7 days × 1 × 1 = 7
  {
    operation: 'dashboard.active-users', // with one segment: 7 × 2 × 1 = 14
    args: [...WEEK, ...param('segments', [{ prop: 'country', op: 'is', values: ['Germany'] }])],
    check: daySeries,
  },
  {
    operation: 'dashboard.session-length', // 7 × 1 × 4 = 28
    args: [...WEEK, ...param('bins', { min: 0, max: 10, timeUnit: 'minutes', binSize: 1 })],
    check: (answer) => {
      const r = data(answer);
      expect((r as { xValues: string[] }).xValues).toHaveLength(10);
      expect((r as { series: unknown[][] }).series[0]).toHaveLength(10);
    },
  },
  {
    operation: 'dashboard.average-session-length',
    args: WEEK,
    check: (r) => (daySeries(r), expect(data(r)).toMatchObject({ seriesMeta: [{ segmentIndex: 0 }] })),
  }, // 28
  {
    operation: 'dashboard.sessions-per-user',
    args: WEEK,
    check: (r) => (daySeries(r), expect(data(r)).toMatchObject({ seriesMeta: [{ segmentIndex: 0 }] })),
  }, // 28
  {
    operation: 'dashboard.composition', // 7
    args: [...WEEK, ...param('property', 'platform')],
    check: (r) => expect(data(r)).toMatchObject({ xValues: ['Web', 'iOS', 'Android'], seriesLabels: ['platform'] }),
  },
  {
    operation: 'dashboard.events-list', // 1
    args: [],
    check: (answer) => {
      const r = data(answer);
      expect((r as { value: string }[]).map((e) => e.value)).toEqual([
        'Page Viewed',
        'Sign Up',
        'Purchase Completed',
        'Button Clicked',
      ]);
      expect((r as object[])[0]).toEqual({
        non_active: false,
        value: 'Page Viewed',
        totals: expect.any(Number),
        deleted: false,
        flow_hidden: false,
        hidden: false,
        display: 'Page Viewed',
      });
    },
  },
  {
    operation: 'dashboard.segmentation', // one day, one group-by: 1 × (1 + 4) × (1 + 4) = 25
    args: [
      '--param',
      'start=20261101',
      '--param',
      'end=20261101',
      ...param('event', { event_type: 'Sign Up', group_by: [{ type: 'user', value: 'platform' }] }),
    ],
    check: (r) =>
      expect(data(r)).toMatchObject({
        xValues: ['2026-11-01'],
        seriesLabels: [
          [0, 'Web'],
          [1, 'iOS'],
          [2, 'Android'],
        ],
        seriesCollapsed: expect.any(Array),
      }),
  },
  {
    operation: 'dashboard.funnel', // 7 × 1 × (2 × 2) = 28
    args: [...WEEK, ...param('events', [{ event_type: 'Page Viewed' }, { event_type: 'Sign Up' }])],
    check: (answer) => {
      const r = data(answer);
      expect(r).toHaveLength(1);
      expect((r as object[])[0]).toMatchObject({
        meta: { segmentIndex: 0 },
        events: ['Page Viewed', 'Sign Up'],
        cumulative: [1, expect.any(Number)],
        dayFunnels: { xValues: DAYS },
      });
    },
  },
  {
    operation: 'dashboard.retention', // 7 × 1 × 8 = 56
    args: [
      ...WEEK,
      ...param('startingEvent', { event_type: 'Sign Up' }),
      ...param('returningEvent', { event_type: 'Page Viewed' }),
    ],
    check: (answer) => {
      const r = data(answer);
      expect(r).toMatchObject({ seriesMeta: [{ segmentIndex: 0, eventIndex: 0 }], series: [{ dates: DAYS }] });
      expect((r as { series: { values: Record<string, unknown[]> }[] }).series[0]!.values['2026-11-01']).toHaveLength(
        7,
      );
    },
  },
  {
    operation: 'dashboard.user-activity', // the user activity budget (360 per hour)
    args: param('user', '100000001'),
    check: (r) =>
      expect(r).toMatchObject({
        userData: { user_id: 'user-01', canonical_platform_id: 100000001, device_ids: ['device-01'] },
        events: expect.any(Array),
      }),
  },
  {
    operation: 'dashboard.user-search',
    args: param('user', 'device-07'),
    check: (r) =>
      expect(r).toEqual({ matches: [{ user_id: 'user-07', platform_id: 100000007 }], type: 'match_user_or_device_id' }),
  },
  {
    operation: 'dashboard.user-search',
    args: param('user', 'nobody'),
    check: (r) => expect(r).toEqual({ matches: [], type: 'nomatch' }),
  },
  {
    operation: 'dashboard.realtime', // 1
    args: [],
    check: (answer) => {
      const r = data(answer);
      expect(r).toMatchObject({ seriesLabels: ['Today', 'Yesterday'] });
      expect((r as { xValues: string[] }).xValues).toHaveLength(288);
    },
  },
  {
    operation: 'dashboard.revenue-ltv', // 7
    args: WEEK,
    check: (r) => expect((data(r) as { series: { dates: string[] }[] }).series[0]!.dates).toEqual(DAYS),
  },
];
