/**
 * Lenient reading of the session replay API's timestamps.
 *
 * Records carry ISO 8601 strings that sometimes lack a time-zone designator (they are UTC) and sometimes hold
 * absurd values (1970, 2120). This never throws: an unreadable value gives null, a readable one its epoch ms,
 * absurd or not (whether a time is plausible is the caller's call; see `isPlausibleReplayTime`).
 */

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(?:([Zz])|([+-])(\d{2}):?(\d{2})?)?$/;

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** Epoch ms of an ISO 8601 timestamp (UTC when it has no zone), or null when it cannot be read. */
export function parseTimestamp(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const m = ISO.exec(value.trim());
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = m[4] !== undefined ? Number(m[4]) : 0;
  const minute = m[5] !== undefined ? Number(m[5]) : 0;
  const second = m[6] !== undefined ? Number(m[6]) : 0;
  const ms = m[7] !== undefined ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 24 || minute > 59 || second > 60) return null;
  if (hour === 24 && (minute !== 0 || second !== 0 || ms !== 0)) return null;
  let offsetMin = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = m[11] !== undefined ? Number(m[11]) : 0;
    if (oh > 23 || om > 59) return null;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, Math.min(second, 59), ms);
  const t = d.getTime() - offsetMin * 60_000 + (second === 60 ? 1000 : 0);
  return Number.isFinite(t) ? t : null;
}

/** Earliest plausible replay time: the platform's session replay did not exist before 2015. */
const EARLIEST_PLAUSIBLE_MS = Date.UTC(2015, 0, 1);

/** Whether a replay time is plausible: not before 2015 and not more than a day in the future. */
export function isPlausibleReplayTime(ms: number | null, now = Date.now()): ms is number {
  return ms !== null && ms >= EARLIEST_PLAUSIBLE_MS && ms <= now + 86_400_000;
}

/** ISO 8601 UTC form of a query time given as a Date or a string (a string without zone is UTC); null if unreadable. */
export function toIsoUtc(value: Date | string): string | null {
  if (value instanceof Date) {
    const t = value.getTime();
    return Number.isFinite(t) ? value.toISOString() : null;
  }
  const t = parseTimestamp(value);
  if (t === null) return null;
  const d = new Date(t);
  return Number.isFinite(d.getTime()) ? d.toISOString() : null;
}
