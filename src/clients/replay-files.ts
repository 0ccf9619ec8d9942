/**
 * `replay.files` of the operations catalogue: the files of a replay the API lists, and a not-found error for one it
 * does not. The files endpoint answers an unknown replay like one without files yet (a 404, or an empty list; the
 * spec shows neither), so an empty answer is checked against the listing (`replay_id` lookup) before it is printed.
 */
import { ReplayExportError } from '../errors.js';
import { type SessionReplayClient, startTimeFilter } from '../replay/client.js';
import type { ReplayRecord } from '../replay/records.js';
import { parseTimestamp } from '../replay/timestamps.js';
import type { ListReplaysQuery } from '../replay/validation.js';
import type { CallOptions } from './call-options.js';
import { isPlainObject } from './checks.js';

/** The API lists no replay with this id (code `REPLAY_NOT_FOUND`, as the pipeline's ReplayNotFoundError). */
export class UnknownReplayError extends ReplayExportError {
  constructor(replayId: string) {
    super(`replay ${replayId} not found: the API lists no replay with this id (check the id, or whether it expired)`, {
      code: 'REPLAY_NOT_FOUND',
      category: 'data',
      status: 404,
      replayId,
    });
  }
}

/**
 * Throws UnknownReplayError unless the listing holds `replayId`. Only the signal of `o` goes with the lookup: what
 * was passed through for the files request (`api --query`, `--raw`) is not the listing's.
 */
export async function requireListed(replay: SessionReplayClient, replayId: string, o: CallOptions): Promise<void> {
  const page = await replay.getReplaysPage({ replayIds: [replayId] }, o.signal ? { signal: o.signal } : {});
  if (!page.replays.some((r) => r.replay_id === replayId)) throw new UnknownReplayError(replayId);
}

/** Every file of a listed replay; an empty answer for a replay the API does not list is UnknownReplayError. */
export async function* filesOfListedReplay<T>(
  replay: SessionReplayClient,
  replayId: string,
  files: AsyncIterable<T>,
  o: CallOptions,
): AsyncIterable<T> {
  let any = false;
  for await (const f of files) {
    any = true;
    yield f;
  }
  if (!any) await requireListed(replay, replayId, o);
}

/**
 * A replay list answer (`{session_replays, next_page_token}`) with only the replays whose `start_time` is within
 * `startTime`/`endTime`: the client's own filter (`startTimeFilter`, which `getReplaysPage` applies to its records)
 * on the API's shape. Anything else, or an answer of another shape, is left as it came.
 */
export function replaysInRange(answer: unknown, q: Pick<ListReplaysQuery, 'startTime' | 'endTime'>): unknown {
  if (q.startTime === undefined && q.endTime === undefined) return answer;
  if (!isPlainObject(answer) || !Array.isArray(answer.session_replays)) return answer;
  const inRange = startTimeFilter(q);
  const replays = answer.session_replays.filter((r) => {
    const start = (r as { start_time?: unknown } | null)?.start_time;
    return inRange({ startMs: typeof start === 'string' ? parseTimestamp(start) : null } as ReplayRecord);
  });
  return { ...answer, session_replays: replays };
}
