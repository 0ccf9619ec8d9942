export type {
  CommitResult,
  EmptyEntry,
  EventRun,
  FailedEntry,
  QuarantinedEntry,
  ForgottenEntry,
  ManifestChecks,
  ManifestFacts,
  ManifestEntry,
  ManifestError,
  NotFoundEntry,
  OkEntry,
  OutputFormat,
  OutputSpec,
  ReplayStatus,
  ReplayWriter,
  Sink,
  SkippedEntry,
} from './sink.js';
export type { PlayerOptions } from './player-page.js';
// An archive opened once (the one local/S3 switch), as narrow stores; a sink of your own adapted into one.
export {
  archiveOfSink,
  locateArchive,
  openArchive,
  type Archive,
  type ArchiveLocation,
  type AssetStore,
  type ManifestStore,
  type OpenArchiveOptions,
  type OutputStore,
  type SinkNeed,
} from './archive.js';
export { ArchiveNotFoundError, SinkError, type SinkErrorCode, type SinkErrorContext } from './errors.js';
// Captured assets (`--capture-assets`): `_assets/<sha256>`, what `commit` may embed.
export { ASSETS_DIR, assetKey, isAssetDigest, type CommitOptions, type ReplayAssets } from './assets.js';
export { contentTypeFor } from './encode.js';
export {
  extensionFor,
  isOutputKey,
  outputKeysOf,
  replayIdFromKey,
  replayKey,
  replayKeyBase,
} from './keys.js';
export {
  type ManifestBytes,
  type ManifestFile,
  parseManifestLine,
  parseManifestStream,
  serializeManifestEntry,
} from './manifest-lines.js';
export { createLocalSink, MANIFEST_FILE, type LocalSinkOptions } from './local.js';
export { HASH_WORKER_DEFAULTS, type HashWorkerOptions } from './output-hash.js';
export type { S3Checksums, S3SinkOptions } from './s3.js';
export { defaultChecksums, S3_DEFAULTS } from './s3-defaults.js';
// The S3 store loads the AWS SDK on its first request only (a local export never loads it).
export { createS3Sink } from './s3.js';
// What the built-in stores implement: every member of `Sink`, none optional.
export type { Store } from './store.js';
export { isS3Url, parseS3Url, type S3Location } from './s3-url.js';
export { openSink, type OpenSinkOptions } from './open.js';
