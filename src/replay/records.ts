/**
 * Turning the API's JSON into typed records, leniently: odd timestamps never crash, originals are kept.
 */
import { HttpClientError } from '../http/errors.js';
import { urlKey } from '../http/redact.js';
import { hasLoneSurrogate } from '../http/url-parts.js';
import { parseTimestamp } from './timestamps.js';

export interface ReplayRecord {
  replay_id: string;
  session_id: string;
  device_id: string;
  /** Platform user id; NaN when the response did not carry a number. */
  platform_id: number;
  /** As received ('' when absent). */
  start_time: string;
  /** As received ('' when absent). */
  end_time: string;
  /** NaN when the response did not carry a number. */
  retention_in_days: number;
  /** `start_time` in epoch ms (UTC when it has no zone); null when unreadable. May be absurd (1970, 2120). */
  startMs: number | null;
  /** `end_time` in epoch ms; null when unreadable. */
  endMs: number | null;
}

export interface PresignedFile {
  /** The presigned URL (secret: never log it; log `key`). */
  url: string;
  /** Decoded URL path, no query. */
  key: string;
  /** When the page holding this URL was received (ms epoch); URLs expire 15 minutes after issue. */
  obtainedAt: number;
  /** `page_token` used to fetch this file's page (null for the first page): re-request it for a fresh URL. */
  pageToken: string | null;
  /** Position of the file within its page (0-based): `(pageToken, index)` addresses it for a refresh. */
  index: number;
}

/** A 2xx response whose JSON does not have the documented shape. */
export class MalformedResponseError extends HttpClientError {
  constructor(message: string) {
    super(message, 'MALFORMED_RESPONSE');
  }
}

function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return '';
}

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return Number.NaN;
}

/** One record of `session_replays`; throws MalformedResponseError when no replay id can be found or built. */
export function toReplayRecord(raw: unknown, position: number): ReplayRecord {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new MalformedResponseError(`session_replays[${position}] is not an object`);
  }
  const r = raw as Record<string, unknown>;
  let replayId = str(r.replay_id);
  let deviceId = str(r.device_id);
  let sessionId = str(r.session_id);
  if (!replayId && deviceId && sessionId) replayId = `${deviceId}/${sessionId}`;
  if (!replayId) throw new MalformedResponseError(`session_replays[${position}] has no replay_id`);
  const slash = replayId.indexOf('/');
  if (!deviceId && slash > 0) deviceId = replayId.slice(0, slash);
  if (!sessionId && slash > 0) sessionId = replayId.slice(slash + 1);
  const start = str(r.start_time);
  const end = str(r.end_time);
  return {
    replay_id: replayId,
    session_id: sessionId,
    device_id: deviceId,
    platform_id: num(r.platform_id),
    start_time: start,
    end_time: end,
    retention_in_days: num(r.retention_in_days),
    startMs: parseTimestamp(r.start_time),
    endMs: parseTimestamp(r.end_time),
  };
}

/** One entry of `files`: a URL string (as documented) or an object with a `url` field. */
export function toPresignedFile(
  raw: unknown,
  index: number,
  pageToken: string | null,
  obtainedAt: number,
): PresignedFile {
  const url =
    typeof raw === 'string' ? raw : raw && typeof raw === 'object' ? str((raw as Record<string, unknown>).url) : '';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new MalformedResponseError(`files[${index}] is not an absolute URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new MalformedResponseError(`files[${index}] is not an http(s) URL`);
  }
  return { url, key: urlKey(parsed), obtainedAt, pageToken, index };
}

/**
 * `next_page_token`: a non-empty string, else null (absent, null or "" all end the paging). A token holding a lone
 * UTF-16 surrogate (possible in JSON, `"\ud800"`) cannot be sent back: MalformedResponseError.
 */
export function nextToken(v: unknown): string | null {
  if (typeof v !== 'string' || v === '') return null;
  if (hasLoneSurrogate(v))
    throw new MalformedResponseError('next_page_token holds a lone UTF-16 surrogate and cannot be sent back');
  return v;
}
