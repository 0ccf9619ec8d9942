import { openStore, type OpenStoreOptions } from './locate.js';
import type { Store } from './store.js';

export type OpenSinkOptions = OpenStoreOptions;

/**
 * Opens the store of a target, as `openArchive` tells them apart (`locateArchive`): `s3://bucket/prefix` → S3,
 * `file:///abs/path` or a plain path → local folder; other `scheme://` targets are refused. For your own code that
 * writes through the `Sink` contract; a built-in store has every member of it (`Store`), on either backend, and the S3
 * store loads the AWS SDK on its first request only.
 */
export function openSink(target: string, options: OpenSinkOptions = {}): Store {
  return openStore(target, options);
}
