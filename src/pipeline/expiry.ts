import { isPlausibleReplayTime, parseTimestamp } from '../replay/timestamps.js';
import type { ReplayInfo } from './types.js';

const DAY_MS = 86_400_000;
const MAX_MS = Date.UTC(9999, 11, 31);

/**
 * When the platform deletes a replay: start time + retention_in_days. `undefined` when the start time is unreadable
 * or absurd (before 2015, more than a day in the future) or the retention is not a number: a garbage record must
 * never crash an archive nor make up a date.
 */
export function expiresAtMs(
  startMs: number | null | undefined,
  retentionDays: unknown,
  now = Date.now(),
): number | undefined {
  if (startMs === undefined || !isPlausibleReplayTime(startMs, now)) return undefined;
  if (typeof retentionDays !== 'number' || !Number.isFinite(retentionDays) || retentionDays < 0) return undefined;
  const at = startMs + retentionDays * DAY_MS;
  return Number.isFinite(at) && at <= MAX_MS ? at : undefined;
}

export function expiresAtIso(
  startMs: number | null | undefined,
  retentionDays: unknown,
  now = Date.now(),
): string | undefined {
  const at = expiresAtMs(startMs, retentionDays, now);
  return at === undefined ? undefined : new Date(at).toISOString();
}

/** A start time usable for settle/recheck decisions, or null when unreadable or absurd. */
export function plausibleStart(startMs: number | null | undefined, now = Date.now()): number | null {
  return startMs !== undefined && isPlausibleReplayTime(startMs, now) ? startMs : null;
}

/** The replay's start in ms when it is readable and plausible, else null (never settling, never re-checked). */
export function startOf(r: ReplayInfo, now = Date.now()): number | null {
  const ms = r.startMs !== undefined ? r.startMs : r.start_time !== undefined ? parseTimestamp(r.start_time) : null;
  return plausibleStart(ms, now);
}
