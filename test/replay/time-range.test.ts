import { describe, expect, test } from 'vitest';
import {
  describeTimeRange,
  parseTimeBound,
  parseTimeRange,
  ReplayExportError,
  TimeRangeError,
} from '../../src/index.js';

const NOW = Date.UTC(2026, 10, 24, 10, 0, 0);

describe('parseTimeBound: ISO dates and times, and times ago', () => {
  test.each([
    ['30m', NOW - 30 * 60_000],
    ['24h', NOW - 24 * 3_600_000],
    ['7d', NOW - 7 * 86_400_000],
    ['2w', NOW - 14 * 86_400_000],
    [' 1h ', NOW - 3_600_000],
  ])('%s is that long before now, UTC', (text, ms) => {
    expect(parseTimeBound(text, 'since', { now: NOW })).toEqual({
      iso: new Date(ms).toISOString(),
      ms,
      kind: 'relative',
    });
  });

  test('a date-only bound is the whole day, UTC: --since its start, --until its last millisecond', () => {
    expect(parseTimeBound('2026-11-01', 'since').iso).toBe('2026-11-01T00:00:00.000Z');
    expect(parseTimeBound('2026-11-01', 'until').iso).toBe('2026-11-01T23:59:59.999Z');
    expect(parseTimeBound('2026-11-01', 'until').kind).toBe('date');
  });

  test('a time is an instant (UTC without a zone, else its zone)', () => {
    expect(parseTimeBound('2026-11-01T12:30', 'until').iso).toBe('2026-11-01T12:30:00.000Z');
    expect(parseTimeBound('2026-11-01T12:30:00+02:00', 'since').iso).toBe('2026-11-01T10:30:00.000Z');
  });

  test.each(['', 'yesterday', '7', '7y', '-7d', '2026-13-01', '2026-02-30', '7d ago'])(
    '%j is refused as a usage error naming the flag',
    (text) => {
      let caught: unknown;
      try {
        parseTimeBound(text, 'since', { name: '--since' });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(TimeRangeError);
      expect(caught).toBeInstanceOf(ReplayExportError);
      expect((caught as TimeRangeError).category).toBe('usage');
      expect((caught as Error).message).toMatch(/^--since must be an ISO 8601 date or time .* 30m, 24h, 7d, 2w/);
    },
  );
});

describe('parseTimeRange', () => {
  test('a reversed range is refused, saying how both bounds were read', () => {
    expect(() =>
      parseTimeRange({ since: '2026-11-22', until: '2026-11-01' }, { names: { since: '--since', until: '--until' } }),
    ).toThrow(
      /--since 2026-11-22 \(2026-11-22T00:00:00.000Z\) is after --until 2026-11-01 \(2026-11-01T23:59:59.999Z\)/,
    );
    expect(() => parseTimeRange({ since: '1h', until: '2h' }, { now: NOW })).toThrow(TimeRangeError);
  });

  test('--since D --until D is day D; equal instants are one instant; absent bounds are absent', () => {
    const day = parseTimeRange({ since: '2026-11-01', until: '2026-11-01' });
    expect([day.since?.iso, day.until?.iso]).toEqual(['2026-11-01T00:00:00.000Z', '2026-11-01T23:59:59.999Z']);
    expect(describeTimeRange(day)).toContain(
      'a date alone is read as a whole day, UTC: since its start, until its end',
    );
    const instant = parseTimeRange({ since: '2026-11-01T05:00Z', until: '2026-11-01T05:00Z' });
    expect(instant.since?.ms).toBe(instant.until?.ms);
    expect(parseTimeRange({})).toEqual({});
  });
});
