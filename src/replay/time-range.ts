/**
 * The time bounds a person types (`--since`, `--until`): an ISO 8601 date or time (UTC without a zone), or a time
 * relative to now (`30m`, `24h`, `7d`, `2w` ago). A date-only bound covers its whole day, UTC: `--since 2026-11-01`
 * is that day's first millisecond, `--until 2026-11-01` its last, so `--since D --until D` is the day D.
 */
import { ReplayExportError } from '../errors.js';
import { parseTimestamp } from './timestamps.js';

export type TimeBoundSide = 'since' | 'until';

/** A time bound that cannot be read, or a range that ends before it starts (a usage error). */
export class TimeRangeError extends ReplayExportError {
  constructor(message: string) {
    super(message, { code: 'INVALID_TIME_RANGE', category: 'usage' });
  }
}

const RELATIVE = /^(\d{1,9})(m|h|d|w)$/;
const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** How a bound was written: relative to now, a whole day, or an instant. */
export type TimeBoundKind = 'relative' | 'date' | 'instant';

export interface TimeBound {
  /** ISO 8601 UTC, as sent to the API. */
  iso: string;
  ms: number;
  kind: TimeBoundKind;
}

/** Reads one bound; `name` (e.g. `--since`) is used in the error. Throws `TimeRangeError`. */
export function parseTimeBound(
  text: string,
  side: TimeBoundSide,
  options: { now?: number; name?: string } = {},
): TimeBound {
  const name = options.name ?? side;
  const value = text.trim();
  const rel = RELATIVE.exec(value);
  if (rel) {
    const ms = (options.now ?? Date.now()) - Number(rel[1]) * UNIT_MS[rel[2]!]!;
    return { iso: new Date(ms).toISOString(), ms, kind: 'relative' };
  }
  const t = parseTimestamp(value);
  if (t === null || !Number.isFinite(new Date(t).getTime())) {
    throw new TimeRangeError(
      `${name} must be an ISO 8601 date or time (UTC unless it has a zone) or a time ago such as 30m, 24h, 7d, 2w (got ${JSON.stringify(value.slice(0, 100))})`,
    );
  }
  if (DATE_ONLY.test(value)) {
    const ms = side === 'until' ? t + DAY_MS - 1 : t;
    return { iso: new Date(ms).toISOString(), ms, kind: 'date' };
  }
  return { iso: new Date(t).toISOString(), ms: t, kind: 'instant' };
}

export interface TimeRange {
  since?: TimeBound | undefined;
  until?: TimeBound | undefined;
}

/** Reads both bounds (either may be absent) and refuses a range that ends before it starts. */
export function parseTimeRange(
  given: { since?: string | undefined; until?: string | undefined },
  options: { now?: number; names?: { since: string; until: string } } = {},
): TimeRange {
  const now = options.now ?? Date.now();
  const names = options.names ?? { since: 'since', until: 'until' };
  const since =
    given.since === undefined ? undefined : parseTimeBound(given.since, 'since', { now, name: names.since });
  const until =
    given.until === undefined ? undefined : parseTimeBound(given.until, 'until', { now, name: names.until });
  if (since && until && since.ms > until.ms) {
    throw new TimeRangeError(
      `${names.since} ${given.since} (${since.iso}) is after ${names.until} ${given.until} (${until.iso}): the range is empty`,
    );
  }
  return { since, until };
}

/** How the range's bounds were read, for a "0 replays matched" message. */
export function describeTimeRange(range: TimeRange): string {
  const parts: string[] = [];
  if (range.since) parts.push(`started at or after ${range.since.iso}`);
  if (range.until) parts.push(`at or before ${range.until.iso}`);
  const dated = range.since?.kind === 'date' || range.until?.kind === 'date';
  return (
    parts.join(' and ') + (dated ? ' (a date alone is read as a whole day, UTC: since its start, until its end)' : '')
  );
}
