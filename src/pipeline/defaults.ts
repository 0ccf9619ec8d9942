import { DECODE_LIMITS } from '../../decoders/limits.js';
import type { OutputFormat } from '../../sinks/sink.js';
/**
 * Every tunable of the pipeline with its default, in one place. The CLI and the library both start from these.
 */
export const PIPELINE_DEFAULTS = {
  /** Replays exported at the same time. The API's request families are capped by the transport as well. */
  concurrency: 4,
  /** Files of one replay downloaded ahead of the one being written. */
  filesAhead: 3,
  /** Compressed bytes held in memory for files fetched ahead, shared by all replays of a run. */
  prefetchBytes: 8 * 1024 * 1024,
  /** Presigned URLs are valid for 15 minutes (spec). */
  urlTtlMs: 15 * 60 * 1000,
  /** A URL older than its validity minus this margin is refreshed before use. */
  urlRefreshMarginMs: 2 * 60 * 1000,
  /** Re-downloads of one file after a transient failure (429, 5xx, reset, truncated body). */
  fileRetries: 5,
  /** Fresh-URL requests for one file after storage answered 403 (expired). */
  urlRefreshes: 3,
  /** First back-off before a file retry; doubles each time, with full jitter. */
  retryBaseMs: 250,
  /** Upper bound of one back-off. */
  retryMaxMs: 8_000,
  /** A replay whose files listing holds more files than this fails (`too_many_files`); the listing is held whole. */
  maxFilesPerReplay: 100_000,
  /** Files API page size (server default when undefined). */
  filesPageSize: undefined as number | undefined,
  /** Replay file version requested from the API. */
  fileVersion: 3 as 2 | 3,
  /** Skip replays that started more recently than this (ms). 24 hours. */
  settleMs: 24 * 60 * 60 * 1000,
  /** Output framing. */
  format: 'json' as OutputFormat,
  gzip: false,
  /** Archive order: as listed (`start`) or closest to deletion first (`expiry`). */
  order: 'start' as 'start' | 'expiry',
  /** The largest event in bytes (256 MiB): a larger one fails its replay (`decode_event_too_large`). */
  maxEventBytes: DECODE_LIMITS.maxEventBytes,
  /** Inflated bytes one replay may take over all its files (8 GiB): more fails it (`decode_replay_too_large`). */
  maxReplayBytes: DECODE_LIMITS.maxReplayBytes,
} as const;
