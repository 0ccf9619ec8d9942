/**
 * `replay-export/archive`: what an archive job needs besides `archiveReplays` — the manifest's resume state, shards
 * (from a flag or the job environment), durations and sizes as the CLI reads them, and a replay's expiry.
 */
export { readManifestState } from './pipeline/manifest.js';
export { formatShard, resolveShard, shardOf, ShardConfigError, MAX_SHARD_COUNT } from './pipeline/shard.js';
export type { Shard } from './pipeline/shard.js';
export { DurationError, parseDuration } from './pipeline/duration.js';
export { ByteSizeError, parseByteSize } from './pipeline/byte-size.js';
export { expiresAtIso } from './pipeline/expiry.js';
export { FileListingError, TooManyFilesError } from './pipeline/errors.js';
export { resolveFetchOptions, resolveOutput } from './pipeline/library.js';
export type { Downloader, ListedFile, ReplayFilesApi } from './pipeline/types.js';
export type { DownloadBody } from './pipeline/ordered-prefetch.js';
export type { ReplayListApi } from './pipeline/archive.js';
