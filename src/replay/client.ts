/**
 * Session replay API client: list replays, list a replay's presigned files, one page at a time or all.
 */
import { boundedKey } from '../util/bounded-key.js';
import { ApiError, AuthError, HttpClientError } from '../http/errors.js';
import { callSpec, type CallSpec } from '../http/call-spec.js';
import type { ApiResponse, Transport } from '../http/transport.js';
import {
  MalformedResponseError,
  nextToken,
  toPresignedFile,
  toReplayRecord,
  type PresignedFile,
  type ReplayRecord,
} from './records.js';
import { DEFAULT_STALL_PAGES, ListingProgress, validateStallPages } from './listing-progress.js';
import { buildFilesParams, buildListParams, type FilesQuery, type ListReplaysQuery } from './validation.js';
import { parseTimestamp } from './timestamps.js';

const LIST_PATH = '/api/1/session-replays';
const FILES_PATH = '/api/1/session-replays/files';

/** The abort signal, and the `api` command's pass-through (src/http/call-spec.ts). */
export interface CallOptions extends CallSpec {}

export interface FilesOptions extends FilesQuery, CallOptions {}

export interface SessionReplayClientOptions {
  /**
   * A listing (replays or a replay's files) that returns this many pages in a row without a new replay id or file
   * key, while still announcing a next page, is stopped with ListingStalledError. Default 3.
   */
  stallPages?: number;
}

export interface ReplaysPage {
  replays: ReplayRecord[];
  nextPageToken: string | null;
  /** Token this page was fetched with (null for the first page). */
  pageToken: string | null;
}

export interface FilesPage {
  files: PresignedFile[];
  nextPageToken: string | null;
  /** Token this page was fetched with (null for the first page). */
  pageToken: string | null;
}

/** Thrown when the server hands back a page token already used in the same listing (it would never end). */
export class PageLoopError extends HttpClientError {
  constructor(path: string) {
    super(
      `${path} returned a next_page_token already used in this listing; stopping instead of looping`,
      'PAGE_TOKEN_LOOP',
    );
  }
}

export class SessionReplayClient {
  readonly #transport: Transport;
  readonly #stallPages: number;

  constructor(transport: Transport, options: SessionReplayClientOptions = {}) {
    this.#transport = transport;
    this.#stallPages = validateStallPages(options.stallPages ?? DEFAULT_STALL_PAGES);
  }

  /**
   * One page of `GET /api/1/session-replays`. Validation happens before any request. Its replays are filtered by
   * `startTime`/`endTime` here too (see `listReplays`): the page holds only replays in the range, whatever the
   * platform did with `start_time`/`end_time`.
   */
  async getReplaysPage(q: ListReplaysQuery & { pageToken?: string | null }, o: CallOptions = {}): Promise<ReplaysPage> {
    const page = await this.#page(q, o);
    const inRange = startTimeFilter(q);
    return { ...page, replays: page.replays.filter(inRange) };
  }

  /** One page as the platform answered it (not filtered by time: the listing's progress counts every record). */
  async #page(q: ListReplaysQuery & { pageToken?: string | null }, o: CallOptions): Promise<ReplaysPage> {
    const params = buildListParams(q, q.pageToken);
    const res = await this.#transport.request({
      host: 'analytics',
      path: LIST_PATH,
      query: { ...params },
      auth: 'basic',
      family: 'replay',
      ...callSpec(o),
    });
    const data = res.json<Record<string, unknown>>();
    try {
      if (!data || typeof data !== 'object' || !Array.isArray(data.session_replays)) {
        throw new MalformedResponseError('the response has no session_replays array');
      }
      return {
        replays: data.session_replays.map((r, i) => toReplayRecord(r, i)),
        nextPageToken: nextToken(data.next_page_token),
        pageToken: params.page_token ?? null,
      };
    } catch (err) {
      if (err instanceof MalformedResponseError) throw new MalformedResponseError(`GET ${LIST_PATH}: ${err.message}`);
      throw err;
    }
  }

  /**
   * Every replay matching the query, across all pages: each `next_page_token` is passed back unchanged as
   * `page_token`, with the same `sort_order` and filters. A token already used throws PageLoopError; pages that
   * bring no new replay id (`stallPages` in a row) throw ListingStalledError. With `readAhead`, the next page is
   * requested as soon as a page arrives, while its replays are being consumed (a long archive run); without it, only
   * when they are used up (a consumer that stops early costs no extra request).
   *
   * `startTime`/`endTime` are sent as `start_time`/`end_time`, which the spec does not name: every record is also
   * filtered here by its own `start_time`, so that the result is right when the platform ignores them (a record
   * whose `start_time` cannot be read is kept: nothing says it is outside).
   */
  listReplays(q: ListReplaysQuery, o: CallOptions & { readAhead?: boolean } = {}): AsyncIterable<ReplayRecord> {
    buildListParams(q); // throws ValidationError here, at the call, before any request
    return this.#listReplays(q, o);
  }

  async *#listReplays(q: ListReplaysQuery, o: CallOptions & { readAhead?: boolean }): AsyncIterable<ReplayRecord> {
    const seen = new Set<string>();
    const inRange = startTimeFilter(q);
    const progress = new ListingProgress(LIST_PATH, '', this.#stallPages);
    const call = callSpec(o);
    const fetchPage = (pageToken: string | null): Promise<ReplaysPage> => {
      const p = this.#page({ ...q, pageToken }, call);
      p.catch(() => undefined); // a page read ahead and never awaited (the consumer stopped) fails quietly
      return p;
    };
    let pending = fetchPage(null);
    for (;;) {
      const page: ReplaysPage = await pending;
      const token = q.replayIds === undefined ? page.nextPageToken : null;
      // The next page's checks run now; what they throw, after this page's replays (as without read-ahead).
      let stop: { error: unknown } | undefined;
      let next: string | null = null;
      if (token !== null) {
        try {
          progress.pageWithMore(page.replays.map((r) => r.replay_id));
          if (seen.has(boundedKey(token))) throw new PageLoopError(LIST_PATH);
          seen.add(boundedKey(token));
          next = token;
        } catch (error) {
          stop = { error };
        }
      }
      if (next !== null && o.readAhead === true) pending = fetchPage(next);
      yield* page.replays.filter(inRange);
      if (stop !== undefined) throw stop.error;
      if (next === null) return;
      if (o.readAhead !== true) pending = fetchPage(next);
    }
  }

  /**
   * One page of `GET /api/1/session-replays/files`. A 404 on the first page (no `pageToken`) means the replay has
   * no files yet and gives an empty page; on a later page it is an error. Re-requesting a page with the same
   * token gives fresh presigned URLs.
   */
  async getFilesPage(replayId: string, o: FilesOptions & { pageToken?: string | null } = {}): Promise<FilesPage> {
    const params = buildFilesParams(replayId, o, o.pageToken);
    const pageToken = params.page_token ?? null;
    let res: ApiResponse;
    try {
      res = await this.#transport.request({
        host: 'analytics',
        path: FILES_PATH,
        query: { ...params },
        auth: 'basic',
        family: 'replay',
        ...callSpec(o),
      });
    } catch (err) {
      if (pageToken === null && err instanceof ApiError && !(err instanceof AuthError) && err.status === 404) {
        return { files: [], nextPageToken: null, pageToken };
      }
      throw err;
    }
    const obtainedAt = this.#transport.clock.now();
    const data = res.json<Record<string, unknown>>();
    try {
      if (!data || typeof data !== 'object' || !Array.isArray(data.files)) {
        throw new MalformedResponseError('the response has no files array');
      }
      return {
        files: data.files.map((f, i) => toPresignedFile(f, i, pageToken, obtainedAt)),
        nextPageToken: nextToken(data.next_page_token),
        pageToken,
      };
    } catch (err) {
      if (err instanceof MalformedResponseError) {
        throw new MalformedResponseError(`GET ${FILES_PATH} for replay ${replayId}: ${err.message}`);
      }
      throw err;
    }
  }

  /**
   * Every file of a replay, in the API's order (by key, which encodes start time), across all pages. A token already
   * used throws PageLoopError; pages that bring no new file key (`stallPages` in a row) throw ListingStalledError.
   */
  listReplayFiles(replayId: string, o: FilesOptions = {}): AsyncIterable<PresignedFile> {
    buildFilesParams(replayId, o); // throws ValidationError here, at the call, before any request
    return this.#listReplayFiles(replayId, o);
  }

  async *#listReplayFiles(replayId: string, o: FilesOptions): AsyncIterable<PresignedFile> {
    const seen = new Set<string>();
    const progress = new ListingProgress(FILES_PATH, `for replay ${replayId}`, this.#stallPages);
    let token: string | null = null;
    for (;;) {
      const page: FilesPage = await this.getFilesPage(replayId, { ...o, pageToken: token });
      yield* page.files;
      if (page.nextPageToken === null) return;
      progress.pageWithMore(page.files.map((f) => f.key));
      if (seen.has(boundedKey(page.nextPageToken))) throw new PageLoopError(FILES_PATH);
      seen.add(boundedKey(page.nextPageToken));
      token = page.nextPageToken;
    }
  }
}

/**
 * The client-side half of `startTime`/`endTime` (inclusive bounds of a replay's `start_time`): a predicate over
 * listed records. Without bounds every record passes.
 */
export function startTimeFilter(q: Pick<ListReplaysQuery, 'startTime' | 'endTime'>): (r: ReplayRecord) => boolean {
  const bound = (v: Date | string | undefined): number | null =>
    v === undefined ? null : v instanceof Date ? v.getTime() : parseTimestamp(v);
  const from = bound(q.startTime);
  const to = bound(q.endTime);
  if (from === null && to === null) return () => true;
  return (r) => r.startMs === null || ((from === null || r.startMs >= from) && (to === null || r.startMs <= to));
}
