/**
 * replay-export as a library: stream a replay's events, export replays to a folder or S3, archive a whole project
 * resumably. This root holds the entry points, their option and result types, the sinks' factories and the errors.
 * The rest is published under subpaths, each with its types:
 *   replay-export/decoders  — replay file decoding (bytes → events), limits, peeking
 *   replay-export/sinks     — sink interface, local and S3 sinks, manifest lines, output keys
 *   replay-export/clients   — the Session Replay client, the transport, and the other API families' clients
 *   replay-export/archive   — what archive jobs use: manifest state, shards, durations and sizes, expiry
 *   replay-export/sandbox   — the loopback sandbox that behaves like the platform (development and tests)
 *   replay-export/redaction — redaction policies (load, compile, digest) and the per-replay redactor
 */

// Entry points.
export {
  archiveReplays,
  exportReplay,
  exportReplays,
  planArchive,
  replayEventBytes,
  replayEvents,
} from './pipeline/library.js';
export type { PlannedReplay } from './pipeline/dry-run.js';
export { openRun } from './pipeline/run.js';
export type {
  ArchiveAccess,
  ConnectionOptions,
  EntryOptions,
  Run,
  ReplayApi,
  RunOptions,
  RunParts,
  RunSource,
} from './pipeline/run.js';
export type { PlatformOptions, PlatformSettings } from './pipeline/platform.js';
export type {
  ArchiveOptions,
  ExportReplayOptions,
  ExportReplaysOptions,
  ReplayEventsOptions,
} from './pipeline/library.js';
// The events, as the project's own types (no DOM types: rrweb's `eventWithTime` is assignable to `ReplayEvent`).
export type {
  CustomReplayEvent,
  DomContentLoadedEvent,
  FullSnapshotEvent,
  IncrementalSnapshotEvent,
  LoadEvent,
  MetaEvent,
  PluginReplayEvent,
  ReplayEvent,
  ReplayEventType,
} from './events.js';
export type { ArchiveEvent, ArchiveOutcome, ReplayDecision } from './pipeline/archive.js';
export type { ReplayInfo } from './pipeline/export-replay.js';
export type { ReplayNotice } from './pipeline/replay-stream.js';
export { PIPELINE_DEFAULTS } from './pipeline/defaults.js';
export { resolveSettings } from './pipeline/settings.js';
export type { Settings, SettingsOptions, SettingsSource } from './pipeline/settings.js';

// Redaction at export: the `redact` option's types (the functions are in replay-export/redaction; docs/REDACTION.md).
export type { PatternSpec, RedactionPolicy, RedactionPolicySpec } from './redaction/index.js';
export type { AssetCaptureOptions } from './pipeline/settings.js';

// Decoding one file.
export { decodeEventBytes, decodeEvents } from '../decoders/index.js';
export type { DecodeOptions, FileVersion } from '../decoders/index.js';

// Sinks.
export { createLocalSink, createS3Sink, openSink } from '../sinks/index.js';
export type {
  LocalSinkOptions,
  ManifestEntry,
  OpenSinkOptions,
  OutputFormat,
  OutputSpec,
  PlayerOptions,
  ReplayWriter,
  S3SinkOptions,
  Sink,
} from '../sinks/index.js';

// Errors: one base, a category per error, one table from category to exit code.
export {
  categoryOf,
  ConfigError,
  ERROR_CODES,
  EXIT_CODES,
  exitCodeOf,
  InterruptedError,
  ReplayExportError,
} from './errors.js';
export type { ErrorCategory, ErrorCode, ErrorContext } from './errors.js';
export { ReplayFailedError, ReplayNotFoundError } from './pipeline/errors.js';
export { describeTimeRange, parseTimeBound, parseTimeRange, TimeRangeError } from './replay/time-range.js';
export type { TimeBound, TimeBoundKind, TimeBoundSide, TimeRange } from './replay/time-range.js';
export {
  ApiError,
  AuthError,
  NetworkError,
  RateLimitError,
  TimeoutError,
  UrlExpiredError,
  ValidationError,
} from './http/errors.js';
export { DecodeError, type DecodeErrorCode } from '../decoders/errors.js';
export { SinkError, type SinkErrorCode } from '../sinks/errors.js';
