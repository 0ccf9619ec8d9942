/**
 * What the pipeline needs from the layers below, stated structurally so that the session replay client and the
 * transport plug in directly and tests or library callers can pass their own.
 */
import type { DownloadBody } from './ordered-prefetch.js';

export type FileVersion = 2 | 3;

/** One file of a replay as listed by the files API (a presigned URL valid for a limited time). */
export interface ListedFile {
  url: string;
  /** The URL's decoded path, no query: the object's key. Files are in key order. */
  key: string;
  /** When the URL was obtained (ms since epoch). */
  obtainedAt: number;
  /** The page token that was sent to get the page holding this file (null for the first page). */
  pageToken: string | null;
  index: number;
}

export interface FilesPageResult {
  files: ListedFile[];
  nextPageToken: string | null;
}

export interface FilesQuery {
  version?: FileVersion;
  pageSize?: number;
  signal?: AbortSignal;
}

/** The files side of the session replay client. */
export interface ReplayFilesApi {
  listReplayFiles(replayId: string, options?: FilesQuery): AsyncIterable<ListedFile>;
  getFilesPage(replayId: string, options: FilesQuery & { pageToken?: string | null }): Promise<FilesPageResult>;
}

/** Streams one presigned URL's body (no auth header). `key` is for errors and logs. */
export type Downloader = (url: string, options: { signal: AbortSignal; key: string }) => Promise<DownloadBody>;
