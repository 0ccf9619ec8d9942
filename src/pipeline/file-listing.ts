import { boundedKey } from '../util/bounded-key.js';
import { TooManyFilesError } from './errors.js';
import type { Settings } from './settings.js';
import type { ListedFile, ReplayFilesApi } from './types.js';

/** The settings a listing reads: the version asked for, the page size, and `maxFilesPerReplay` (checked while listing). */
export type FileListingSettings = Pick<Settings, 'fileVersion' | 'filesPageSize' | 'maxFilesPerReplay'>;

export interface FileListingHooks {
  signal?: AbortSignal | undefined;
  /** Called once for each key the listing holds more than once. */
  onDuplicate?: (key: string) => void;
}

/**
 * Every file of a replay, listed in full before any is used, in key order (the key encodes the file's first event
 * time, so key order is time order, whatever order the API listed them in), each key once. A key listed more than
 * once names the same object: it is taken once (with its freshest URL) and reported to `onDuplicate`. Memory is one
 * ListedFile (key and URL) per file, bounded by `maxFiles`.
 */
export async function listFilesInKeyOrder(
  api: ReplayFilesApi,
  replayId: string,
  settings: FileListingSettings,
  o: FileListingHooks = {},
): Promise<ListedFile[]> {
  // Keyed by `boundedKey`: a key from the API may be of any length.
  const byKey = new Map<string, ListedFile>();
  const duplicates = new Map<string, string>();
  let listed = 0;
  for await (const f of api.listReplayFiles(replayId, {
    version: settings.fileVersion,
    pageSize: settings.filesPageSize,
    signal: o.signal,
  })) {
    if (++listed > settings.maxFilesPerReplay) throw new TooManyFilesError(replayId, settings.maxFilesPerReplay);
    const at = boundedKey(f.key);
    const prev = byKey.get(at);
    if (prev === undefined) byKey.set(at, f);
    else {
      duplicates.set(at, f.key);
      if (f.obtainedAt > prev.obtainedAt) byKey.set(at, f);
    }
  }
  for (const key of duplicates.values()) o.onDuplicate?.(key);
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
