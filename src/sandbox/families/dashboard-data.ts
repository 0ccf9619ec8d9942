/**
 * Deterministic dashboard results of the documented shapes (spec document 3): every number comes from a generator
 * seeded by the request's path and parameters, so the same query always gets the same answer, and different queries
 * different ones. Nothing here is real analytics: the shapes and the relations between members (lengths, sums,
 * labels) are what the data is for.
 */
import { createHash } from 'node:crypto';
import type { QueryEvent } from './dashboard-query.js';

/** Numbers from a seed (mulberry32 over the first 4 bytes of SHA-256 of the seed text). */
export class Seeded {
  #state: number;

  constructor(seed: string) {
    this.#state = createHash('sha256').update(seed).digest().readUInt32BE(0);
  }

  /** The next number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
}

/** One series of a value per day, each in [min, max]. */
export function perDay(r: Seeded, days: readonly string[], min: number, max: number): number[][] {
  return [days.map(() => r.int(min, max))];
}

/** Values of a user property for composition, and of a group-by (built-ins known, others invented). */
const PROPERTY_VALUES: Readonly<Record<string, readonly string[]>> = {
  country: ['United States', 'Germany', 'France', 'Japan', 'Brazil'],
  platform: ['Web', 'iOS', 'Android'],
  os: ['Windows', 'macOS', 'iOS', 'Android', 'Linux'],
  device_type: ['Desktop', 'Mobile', 'Tablet'],
  language: ['English', 'German', 'French', 'Japanese'],
  version: ['1.0.0', '1.1.0', '2.0.0'],
  paying: ['true', 'false'],
};

export function propertyValues(property: string): readonly string[] {
  return PROPERTY_VALUES[property.toLowerCase()] ?? ['(none)', `${property} value 1`, `${property} value 2`];
}

/** `Nov 01`-style labels of YYYY-MM-DD days. */
function formattedDays(days: readonly string[]): string[] {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  return days.map((d) => `${months[Number(d.slice(5, 7)) - 1]} ${d.slice(8, 10)}`);
}

export function segmentation(r: Seeded, days: readonly string[], e: QueryEvent): object {
  const groupBy = e.group_by[0];
  const groups = groupBy ? propertyValues(groupBy.value) : [null];
  const series = groups.map(() => days.map(() => r.int(0, 500)));
  return {
    series,
    seriesLabels: groups.map((g, i) => (g === null ? 0 : [i, g])),
    seriesCollapsed: series.map((s) => [{ setId: '', value: s.reduce((a, b) => a + b, 0) }]),
    xValues: [...days],
  };
}

export function funnel(r: Seeded, days: readonly string[], events: readonly QueryEvent[]): object[] {
  const n = events.length;
  const cumulativeRaw: number[] = [];
  for (let i = 0, left = r.int(500, 5000); i < n; i++, left = Math.floor(left * (0.3 + 0.6 * r.next())))
    cumulativeRaw.push(left);
  const first = cumulativeRaw[0] || 1;
  const times = () => Array.from({ length: n }, (_, i) => (i === 0 ? 0 : r.int(1_000, 600_000)));
  const perDayTimes = () => ({
    series: days.map(() => times()),
    xValues: [...days],
    formattedXValues: formattedDays(days),
  });
  return [
    {
      meta: { segmentIndex: 0 },
      dayMedianTransTimes: perDayTimes(),
      dayAvgTransTimes: perDayTimes(),
      dayFunnels: {
        series: days.map(() => cumulativeRaw.map((c) => Math.floor(c / days.length))),
        xValues: [...days],
        formattedXValues: formattedDays(days),
      },
      stepByStep: cumulativeRaw.map((c, i) => (i === 0 ? 1 : c / (cumulativeRaw[i - 1] || 1))),
      medianTransTimes: times(),
      cumulative: cumulativeRaw.map((c) => c / first),
      cumulativeRaw,
      avgTransTimes: times(),
      events: events.map((e) => e.event_type),
    },
  ];
}

export function retention(r: Seeded, days: readonly string[]): object {
  const values: Record<string, object[]> = {};
  const combinedCounts = days.map(() => ({ count: 0, outof: 0 }));
  days.forEach((d, i) => {
    const outof = r.int(100, 1000);
    values[d] = days.slice(i).map((_, k) => {
      const count = k === 0 ? outof : Math.floor(outof * 0.7 ** k * (0.8 + 0.2 * r.next()));
      combinedCounts[k]!.count += count;
      combinedCounts[k]!.outof += outof;
      return { count, outof, incomplete: i + k === days.length - 1 };
    });
  });
  return {
    series: [
      {
        dates: [...days],
        values,
        combined: combinedCounts.map((c, k) => ({ ...c, retainedSetId: null, incomplete: k === days.length - 1 })),
      },
    ],
    seriesMeta: [{ segmentIndex: 0, eventIndex: 0 }],
  };
}

export function revenueLtv(r: Seeded, days: readonly string[]): object {
  const values: Record<string, object> = {};
  for (const d of days) {
    const count = r.int(50, 500);
    const paid = r.int(0, Math.floor(count / 4));
    const r1d = Math.round(paid * (1 + 20 * r.next()) * 100) / 100;
    const grow = (x: number) => Math.round(x * (1 + 0.3 * r.next()) * 100) / 100;
    const r7d = grow(r1d);
    const r14d = grow(r7d);
    const r30d = grow(r14d);
    const r60d = grow(r30d);
    const r90d = grow(r60d);
    values[d] = { r1d, r7d, r14d, r30d, r60d, r90d, count, paid, total_amount: r90d };
  }
  return { seriesLabels: [0], series: [{ dates: [...days], values }] };
}

/** Active users at 5-minute steps, today and yesterday (288 steps each, `HH:MM`). */
export function realtime(r: Seeded): object {
  const xValues = Array.from(
    { length: 288 },
    (_, i) => `${String(Math.floor(i / 12)).padStart(2, '0')}:${String((i % 12) * 5).padStart(2, '0')}`,
  );
  return {
    xValues,
    seriesLabels: ['Today', 'Yesterday'],
    series: [xValues.map(() => r.int(0, 200)), xValues.map(() => r.int(0, 200))],
  };
}

/** The event types of `/api/2/events/list`; the hidden one is left out of the answer. */
const EVENTS = [
  { value: 'Page Viewed', hidden: false },
  { value: 'Sign Up', hidden: false },
  { value: 'Purchase Completed', hidden: false },
  { value: 'Button Clicked', hidden: false },
  { value: 'Internal Heartbeat', hidden: true },
];

export function eventsList(r: Seeded): object[] {
  return EVENTS.map((e) => ({
    non_active: false,
    value: e.value,
    totals: r.int(100, 100_000),
    deleted: false,
    flow_hidden: e.hidden,
    hidden: e.hidden,
    display: e.value,
  })).filter((e) => !e.hidden);
}

/** The chart CSV: a title line, then the data table without start or end dates (as the spec says). */
export function chartCsv(r: Seeded, chartId: string): string {
  const labels = ['Segment', 'Page Viewed', 'Sign Up', 'Purchase Completed'];
  const rows = ['All Users', 'New Users'].map((s) => [s, ...labels.slice(1).map(() => String(r.int(0, 10_000)))]);
  const line = (cells: readonly string[]) => cells.map((c) => `"${c.replace(/"/g, '""')}"`).join(',');
  return [line([`Chart ${chartId}`]), line(labels), ...rows.map(line)].join('\r\n') + '\r\n';
}
