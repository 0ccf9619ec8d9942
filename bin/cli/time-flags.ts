import { describeTimeRange, parseTimeRange, type ArchiveEvent, type TimeRange } from '../../src/index.js';

/** `--since` / `--until` of `list` and `archive`: read once, by the library's parser, before any request. */
export function timeRangeOf(flags: { since?: string | undefined; until?: string | undefined }): TimeRange {
  return parseTimeRange(flags, { names: { since: '--since', until: '--until' } });
}

/** The query bounds of a range (ISO 8601 UTC), ready for `listReplays` or `archiveReplays`. */
export function queryBounds(range: TimeRange): { since: string | undefined; until: string | undefined } {
  return { since: range.since?.iso, until: range.until?.iso };
}

/** The message for a filtered listing that returned nothing: how the bounds were read. */
export function noMatchMessage(range: TimeRange): string | undefined {
  if (!range.since && !range.until) return undefined;
  return `0 replays matched: none ${describeTimeRange(range)}`;
}

/** Passes a run's events through, counting what the listing returned (`listed` events). */
export async function* countListed(
  events: AsyncIterable<ArchiveEvent>,
  counter: { listed: number },
): AsyncGenerator<ArchiveEvent> {
  for await (const ev of events) {
    if (ev.type === 'listed') counter.listed = ev.count;
    yield ev;
  }
}

/** `--since` / `--until` help, shared by `list` and `archive`. */
export const TIME_FLAG_HELP = {
  since:
    "replays that started at or after this time: ISO 8601 (UTC unless zoned; a date is that day's start) or ago: 30m, 24h, 7d, 2w",
  until:
    "replays that started at or before this time: ISO 8601 (a date is that day's end, UTC) or ago: 30m, 24h, 7d, 2w",
} as const;
