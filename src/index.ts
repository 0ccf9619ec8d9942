/**
 * replay-export as a library: stream a replay's events, export replays to a folder or S3, archive a whole project
 * resumably. (The sandbox is a development tool and is deliberately not exported from here.)
 */

// Pipeline entry points.
export {
  archiveReplays,
  exportReplay,
  exportReplays,
  replayEventBytes,
  replayEvents,
  resolveFetchOptions,
  resolveOutput,
} from './pipeline/library.js';
export type {
  ArchiveOptions,
  ExportReplayOptions,
  ExportReplaysOptions,
  FetchOptions,
  OutputOptions,
  ReplayEventsOptions,
} from './pipeline/library.js';
export type { ArchiveEvent, ArchiveOutcome, ReplayListApi, ShardSpec } from './pipeline/archive.js';
export { connect, transportDownloader } from './pipeline/connection.js';
export type { Connection, ConnectionOptions } from './pipeline/connection.js';
export type { ReplayInfo } from './pipeline/export-replay.js';
export type { ReplayNotice } from './pipeline/replay-stream.js';
export type { Downloader, ListedFile, ReplayFilesApi } from './pipeline/types.js';
export type { DownloadBody } from './pipeline/ordered-prefetch.js';
export { PIPELINE_DEFAULTS } from './pipeline/defaults.js';
export { resolveSettings } from './pipeline/settings.js';
export type { Settings, SettingsOptions, SettingsSource } from './pipeline/settings.js';
export { parseDuration, DurationError } from './pipeline/duration.js';
export { ReplayExportError, FileListingError, TooManyFilesError, ConfigError } from './pipeline/errors.js';
export { expiresAtIso } from './pipeline/expiry.js';
export { readManifestState } from './pipeline/manifest.js';
export { shardOf, resolveShard, formatShard, ShardConfigError } from './pipeline/shard.js';
export type { Shard } from './pipeline/shard.js';

// Sinks.
export * from '../sinks/index.js';

// Decoders.
export {
  batchEvents,
  decodeEventBatches,
  decodeEventBytes,
  decodeEvents,
  DecodeError,
  DECODE_LIMITS,
  isGzip,
  MAX_EVENT_BYTES_CAP,
  peekEventFields,
  ReplayBudget,
} from '../decoders/index.js';
export type { DecodeErrorCode, DecodeOptions, EventBatch, FileVersion, PeekedFields } from '../decoders/index.js';

// Client and transport.
export { SessionReplayClient, PageLoopError, ListingStalledError, MalformedResponseError } from './replay/index.js';
export type { FilesPage, ReplayRecord, PresignedFile, ListReplaysQuery, SessionReplayClientOptions, SortOrder } from './replay/index.js';
export {
  Transport,
  ApiError,
  AuthError,
  HttpClientError,
  NetworkError,
  RateLimitError,
  StorageRedirectError,
  TimeoutError,
  UrlExpiredError,
  ValidationError,
  MissingCredentialsError,
} from './http/index.js';
export type { Region, TransportOptions, Logger, LogEvent } from './http/index.js';

// Supporting clients for the platform's other REST API families (dashboard, feedback, experiments and flags,
// user mapping, group identify, attribution, taxonomy).
export * from './clients/index.js';
