/**
 * `replay-export/archive`: what an archive job needs besides `archiveReplays` — the manifest's resume state, shards
 * (from a flag or the job environment), durations and sizes as the CLI reads them, a replay's expiry, `forget`, and
 * verifying an archive against its manifest.
 */
export { readManifestState } from './pipeline/manifest.js';
export {
  DEFAULT_FORGET_REASON,
  forgetReplays,
  MAX_FORGET_REASON,
  type ForgetOptions,
  type ForgetReport,
  type ForgottenReplay,
} from './pipeline/forget.js';
export { platformKey, userTombstoneId } from './pipeline/tombstone.js';
export { formatShard, resolveShard, shardOf, ShardConfigError, MAX_SHARD_COUNT, SHARD_ENV } from './pipeline/shard.js';
export type { Shard } from './pipeline/shard.js';
/** The environment variables the settings read (names), and every default. */
export { DEFAULTS, ENV } from './pipeline/settings.js';
export { PLATFORM_ENV } from './pipeline/platform.js';
export { expiresAtIso } from './pipeline/expiry.js';
export { FileListingError, TooManyFilesError } from './pipeline/errors.js';
export type { Downloader, ListedFile, ReplayFilesApi, ReplayListApi } from './pipeline/types.js';
export type { DownloadBody } from './pipeline/ordered-prefetch.js';
export { verifyArchive, VERIFY_PROBLEM_KINDS } from './verify/verify-archive.js';
export type {
  ArchiveVerification,
  VerifyOptions,
  VerifyProblem,
  VerifyProblemKind,
  VerifySummary,
} from './verify/verify-archive.js';
export { VerifyError, type VerifyErrorCode } from './verify/errors.js';
/** What `forget`, `verify` and `view` throw for a target that holds no manifest (nothing is created there). */
export { ArchiveNotFoundError } from '../sinks/errors.js';
/** The archive's catalogue (docs/VIEW.md "The catalogue"): the query of `find` and of `view`'s index. */
export {
  type CatalogueOptions,
  type CatalogueQuery,
  type CatalogueRow,
  CatalogueError,
  type CatalogueErrorCode,
  SORTABLE as CATALOGUE_SORTS,
} from './catalogue/index.js';
export { type FindOptions, findReplays } from './pipeline/find.js';
