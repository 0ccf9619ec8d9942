/**
 * Pure checks of session replay requests, made before anything is sent. Each rule mirrors a 400 of the
 * spec's error table (or a page-size bound); a violation throws ValidationError naming the API's parameter.
 */
import { ValidationError } from '../http/errors.js';
import { hasLoneSurrogate } from '../http/url-parts.js';
import { toIsoUtc } from './timestamps.js';
import { REPLAY_SPEC } from '../util/spec-constants.js';

export type SortOrder = 'asc' | 'desc';
export type FileVersion = 2 | 3;

const MAX_REPLAY_IDS = REPLAY_SPEC.maxReplayIds;
/**
 * Page sizes: the spec names `page_size` without a default or a maximum. The defaults are the client's choice (an
 * assumption, docs/CLIENTS.md); any positive integer is sent (the API may serve fewer per page; the cursor goes on).
 */
const LIST_PAGE_SIZE = 50;
const FILES_PAGE_SIZE = 100;
const DEFAULT_FILE_VERSION: FileVersion = 3;

export interface ListReplaysQuery {
  /** Platform user id, sent as `amplitude_id`; an integer (number or digit string). */
  platformId?: number | string | undefined;
  /** Up to 100 replay ids (`device_id/session_id`), each sent as its own `replay_id` parameter. */
  replayIds?: readonly string[] | undefined;
  /** Lower bound of a replay's start time, inclusive (`start_time`). A string without zone is UTC. */
  startTime?: Date | string | undefined;
  /** Upper bound of a replay's start time, inclusive (`end_time`). */
  endTime?: Date | string | undefined;
  /** `asc` or `desc`; kept the same on every page. */
  sortOrder?: SortOrder | undefined;
  /** A positive integer, default 50 (ignored by the API with `replayIds`). */
  pageSize?: number | undefined;
}

export interface FilesQuery {
  /** File version, sent as `version` (default 3). */
  version?: FileVersion | undefined;
  /** A positive integer, default 100. */
  pageSize?: number | undefined;
}

/**
 * Checks one replay id: `device_id/session_id`, split at the LAST `/` (session ids never hold one; a custom device
 * id might), both parts non-empty, so no leading or trailing slash; Unicode text (no lone UTF-16 surrogate, which
 * has no UTF-8 form and so cannot be sent).
 */
export function validateReplayId(id: unknown, field = 'replay_id'): string {
  if (typeof id !== 'string') throw new ValidationError(field, `a replay id must be a string (got ${typeof id})`);
  const shown = JSON.stringify(id.length > 200 ? `${id.slice(0, 200)}…` : id);
  const slash = id.lastIndexOf('/');
  if (slash <= 0 || slash === id.length - 1 || id.startsWith('/')) {
    throw new ValidationError(
      field,
      `${shown} is not of the form device_id/session_id (a "/" between two non-empty parts, no leading or trailing slash)`,
    );
  }
  if (hasLoneSurrogate(id)) {
    throw new ValidationError(
      field,
      `${shown} holds a lone UTF-16 surrogate: it is not Unicode text and cannot be sent`,
    );
  }
  return id;
}

/** Checks a platform id (sent as `amplitude_id`): an integer, as a number or a string of digits. */
export function validatePlatformId(value: unknown): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new ValidationError('amplitude_id', `must be an integer (got ${value})`);
    return String(value);
  }
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return value.trim();
  throw new ValidationError('amplitude_id', `must be an integer (got ${JSON.stringify(String(value).slice(0, 100))})`);
}

function validateSortOrder(value: unknown): SortOrder {
  if (value === 'asc' || value === 'desc') return value;
  throw new ValidationError(
    'sort_order',
    `must be "asc" or "desc" (got ${JSON.stringify(String(value).slice(0, 50))})`,
  );
}

function validatePageSize(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new ValidationError('page_size', `must be an integer ≥ 1 (got ${String(value)})`);
  return value;
}

function validateFileVersion(value: unknown): FileVersion {
  if (value === 2 || value === 3) return value;
  throw new ValidationError('version', `must be 2 or 3 (got ${String(value)})`);
}

function validatePageToken(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') throw new ValidationError('page_token', 'must be a non-empty string');
  if (hasLoneSurrogate(value))
    throw new ValidationError('page_token', 'holds a lone UTF-16 surrogate and cannot be sent');
  return value;
}

function validateTime(value: unknown, field: string): string {
  if (!(value instanceof Date) && typeof value !== 'string') {
    throw new ValidationError(field, `must be a Date or an ISO 8601 string (got ${typeof value})`);
  }
  const iso = toIsoUtc(value);
  if (iso === null)
    throw new ValidationError(
      field,
      `is not a readable ISO 8601 time (got ${JSON.stringify(String(value).slice(0, 100))})`,
    );
  return iso;
}

/** Query parameters of `GET /api/1/session-replays`, ready to send. */
export interface ListParams {
  amplitude_id?: string;
  replay_id?: string[];
  start_time?: string;
  end_time?: string;
  sort_order?: SortOrder;
  page_size?: number;
  page_token?: string;
}

/** Validates a list query (and the page token of a later page) and builds its parameters. */
export function buildListParams(q: ListReplaysQuery, pageToken?: string | null): ListParams {
  const out: ListParams = {};
  const token = validatePageToken(pageToken);
  if (q.replayIds !== undefined) {
    if (!Array.isArray(q.replayIds)) throw new ValidationError('replay_id', 'replayIds must be an array');
    if (q.replayIds.length === 0)
      throw new ValidationError(
        'replay_id',
        'an empty list of replay ids would list every replay; leave replayIds out instead',
      );
    if (q.replayIds.length > MAX_REPLAY_IDS) {
      throw new ValidationError(
        'replay_id',
        `at most ${MAX_REPLAY_IDS} replay ids per request (got ${q.replayIds.length})`,
      );
    }
    out.replay_id = q.replayIds.map((id) => validateReplayId(id));
    if (q.platformId !== undefined) throw new ValidationError('amplitude_id', 'cannot be combined with replay_id');
    if (token !== undefined) throw new ValidationError('page_token', 'cannot be combined with replay_id');
  }
  if (q.platformId !== undefined) out.amplitude_id = validatePlatformId(q.platformId);
  if (q.startTime !== undefined) out.start_time = validateTime(q.startTime, 'start_time');
  if (q.endTime !== undefined) out.end_time = validateTime(q.endTime, 'end_time');
  if (q.sortOrder !== undefined) out.sort_order = validateSortOrder(q.sortOrder);
  const pageSize = q.pageSize === undefined ? LIST_PAGE_SIZE : validatePageSize(q.pageSize);
  // With replay_id the API ignores page_size; it is not sent then.
  if (out.replay_id === undefined) out.page_size = pageSize;
  if (token !== undefined) out.page_token = token;
  return out;
}

/** Query parameters of `GET /api/1/session-replays/files`, ready to send. */
export interface FilesParams {
  replay_id: string;
  version: FileVersion;
  page_size: number;
  page_token?: string;
}

export function buildFilesParams(replayId: string, q: FilesQuery, pageToken?: string | null): FilesParams {
  const out: FilesParams = {
    replay_id: validateReplayId(replayId),
    version: q.version === undefined ? DEFAULT_FILE_VERSION : validateFileVersion(q.version),
    page_size: q.pageSize === undefined ? FILES_PAGE_SIZE : validatePageSize(q.pageSize),
  };
  const token = validatePageToken(pageToken);
  if (token !== undefined) out.page_token = token;
  return out;
}
