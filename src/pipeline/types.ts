/**
 * What the pipeline needs from the layers below, stated structurally so that the session replay client and the
 * transport plug in directly and tests or library callers can pass their own.
 */
import type { FilesPage } from '../replay/client.js';
import type { PresignedFile } from '../replay/records.js';
import type { FilesQuery as ReplayFilesQuery, ListReplaysQuery } from '../replay/validation.js';
import type { DownloadBody } from './ordered-prefetch.js';

export type FileVersion = 2 | 3;

/** One file of a replay as listed by the files API (a presigned URL valid for a limited time), in key order. */
export type ListedFile = PresignedFile;

type FilesQuery = ReplayFilesQuery & { signal?: AbortSignal | undefined };
type FilesPageResult = Pick<FilesPage, 'files' | 'nextPageToken'>;

/** The files side of the session replay client. */
export interface ReplayFilesApi {
  listReplayFiles(replayId: string, options?: FilesQuery): AsyncIterable<ListedFile>;
  getFilesPage(replayId: string, options: FilesQuery & { pageToken?: string | null }): Promise<FilesPageResult>;
}

/** Streams one presigned URL's body (no auth header). `key` is for errors and logs. */
export type Downloader = (url: string, options: { signal: AbortSignal; key: string }) => Promise<DownloadBody>;

/** The listing side of the session replay client. */
export interface ReplayListApi {
  listReplays(
    query: ListReplaysQuery,
    options?: { signal?: AbortSignal | undefined; readAhead?: boolean | undefined },
  ): AsyncIterable<ReplayInfo>;
}

/** The session replay API as the pipeline uses it: listing replays and their files. */
export type ReplayApi = ReplayListApi & ReplayFilesApi;

/** What the pipeline knows about a replay before exporting it (a listing record, or just an id). */
export interface ReplayInfo {
  replay_id: string;
  start_time?: string;
  end_time?: string;
  retention_in_days?: number;
  /** The user's platform id, as the listing gave it (NaN or absent when unknown); recorded in the manifest. */
  platform_id?: number;
  startMs?: number | null;
  /** The listing, asked for this id, did not return it: the API does not know the replay (`not_found`). */
  notFound?: boolean;
  /**
   * The listed id took this many bytes, over `MAX_REPLAY_ID_BYTES`: `replay_id` is its stand-in (`standInReplayId`),
   * and the replay fails without a request.
   */
  idBytes?: number;
}
