/**
 * `--from` / `--to` of `video`: an offset from the replay's start (`90`, `90s`, `1500ms`, `2m`, `1:30`, `1:02:03.5`)
 * or a time of day as ISO 8601 with a date (`2026-11-22T00:42:53Z`), which is taken from the replay's start.
 */
import { VideoError } from './errors.js';

/** An offset in ms from the replay's start, or an absolute time. */
export type VideoTime = number | Date;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Reads a `--from` / `--to` value (`name` for the message). */
export function parseVideoTime(text: string, name: string): VideoTime {
  const t = text.trim();
  const unit = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(t);
  if (unit) return Number(unit[1]) * UNITS[unit[2] ?? 's']!;
  const clock = /^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/.exec(t);
  if (clock) return ((Number(clock[1] ?? 0) * 60 + Number(clock[2])) * 60 + Number(clock[3])) * 1000;
  if (/^\d{4}-\d{2}-\d{2}T/.test(t)) {
    const ms = Date.parse(t);
    if (Number.isFinite(ms)) return new Date(ms);
  }
  throw new VideoError(
    'VIDEO_BAD_OPTION',
    `${name} must be an offset (90, 90s, 1500ms, 2m, 1:30) or an ISO 8601 time: ${JSON.stringify(text)}`,
  );
}

/** The offset in ms from `start` (ms since the epoch) a time stands for. */
export function offsetOf(time: VideoTime | undefined, start: number): number | undefined {
  if (time === undefined) return undefined;
  return time instanceof Date ? time.getTime() - start : time;
}
