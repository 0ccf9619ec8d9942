import { DECODE_LIMITS } from '../../decoders/limits.js';
import {
  DEFAULT_ADAPTIVE,
  DEFAULT_BUDGETS,
  DEFAULT_CONCURRENCY,
  DEFAULT_HOST_CONCURRENCY,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUTS,
} from '../http/options.js';
import { HASH_WORKER_DEFAULTS } from '../../sinks/output-hash.js';
import { S3_DEFAULTS } from '../../sinks/s3-defaults.js';
import type { OutputFormat } from '../../sinks/sink.js';

/**
 * Every default of a run, in one table: the settings (`settings.ts`) start from it, the CLI's help prints it.
 *
 * The pipeline's own values are set here. Values of the lower floors are owned by their module, because decoders/,
 * sinks/ and src/http are used on their own as well and cannot import this one; they are listed here by reference,
 * never restated: `DECODE_LIMITS` (decoders/limits.ts), `HASH_WORKER_DEFAULTS` (sinks/output-hash.ts),
 * `S3_DEFAULTS` (sinks/s3-defaults.ts) and the transport's `DEFAULT_*` (src/http/options.ts).
 */
export const DEFAULTS = Object.freeze({
  /**
   * Most replays exported at the same time. A replay starts only when the API's adaptive window has room for its first
   * request (`transport.adaptive`), so fewer run when the API allows less; this bounds memory (each replay in progress
   * holds an open output and its decoder). A replay holds an API slot for one round trip of the two or more it takes
   * (its files request, then its downloads and writing), so keeping the API's 5 slots busy takes about three times as
   * many replays in progress: with 8, one process kept ~2.5 of 5 busy (docs/PERFORMANCE.md, "Scale, API (g)").
   */
  concurrency: 16,
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
  /** A replay whose files listing holds more files than this fails (`TOO_MANY_FILES`); the listing is held whole. */
  maxFilesPerReplay: 100_000,
  /** Replays per listing page of an archive run (the API's largest; `list` keeps the API's default). */
  archiveListPageSize: 200,
  /** Files API page size (server default when undefined). */
  filesPageSize: undefined as number | undefined,
  /** Replay file version requested from the API. */
  fileVersion: 3 as 2 | 3,
  /** Skip replays that started more recently than this (ms). 24 hours. */
  settleMs: 24 * 60 * 60 * 1000,
  /** `settleMs` with the CLI's `--sandbox`: it serves fixed recordings, nothing there is still being written. */
  sandboxSettleMs: 0,
  /**
   * The manifest is folded into a snapshot at the end of an archive run, and during one each time at least this many
   * entries (or as many as the run read at its start, whichever is more) were appended since the last fold.
   */
  compactEvery: 100_000,
  /**
   * A balanced run (`balance`): how long a shard waits at its end for the replays of its own another shard took
   * before it exports them itself (the other may have died holding them). Replays another shard may take: at most this
   * many of the listing's last ones are kept for that (bounded memory; a night far larger is split evenly by the hash
   * already).
   */
  balance: Object.freeze({ waitMs: 10 * 60 * 1000, tail: 10_000 }),
  /** Runs in a row a replay may fail with the same permanent cause before an archive quarantines it. */
  quarantineAfter: 3,
  /** Output framing. */
  format: 'json' as OutputFormat,
  gzip: false,
  /** Archive order: as listed (`start`) or closest to deletion first (`expiry`). */
  order: 'start' as 'start' | 'expiry',
  /** The largest event in bytes (256 MiB): a larger one fails its replay (`EVENT_TOO_LARGE`). */
  maxEventBytes: DECODE_LIMITS.maxEventBytes,
  /** Inflated bytes one replay may take over all its files (8 GiB): more fails it (`REPLAY_TOO_LARGE`). */
  maxReplayBytes: DECODE_LIMITS.maxReplayBytes,
  /** The decoders' WebAssembly fast paths (`REPLAY_EXPORT_WASM=0` turns them off). */
  fastPath: true,
  /** Longest time one HTTP attempt may take, headers and body (the transport's `timeouts.deadlineMs`). */
  requestDeadlineMs: DEFAULT_TIMEOUTS.deadlineMs,
  /** Retries of one API request after its first attempt (the transport's `retry.retries`). */
  apiRetries: DEFAULT_RETRY.retries,
  /** Asset capture (`--capture-assets`): limits of fetching the assets a replay references, for the whole run. */
  assets: Object.freeze({
    /** Asset requests in flight at once (the run's, all replays together). */
    concurrency: 4,
    /** Largest asset (10 MiB): a larger one is recorded as not captured. */
    maxBytes: 10 * 1024 * 1024,
    /** Longest time one asset may take, redirects included. */
    timeoutMs: 15_000,
    /** Redirects followed, each within the allowed origins. */
    maxRedirects: 3,
    /** Most URLs captured per replay. */
    maxUrls: 1_000,
    /** Levels of stylesheets fetched and scanned for their own URLs (`@import`, fonts, images). */
    cssDepth: 3,
    /** Tries after the first for a transient failure (408, 429, 5xx, reset), within `timeoutMs`. */
    retries: 3,
    /** First backoff ceiling between those tries, ms (doubling each time, full jitter). */
    retryBaseMs: 250,
    /** How long a run remembers a URL's transient failure before a later replay tries it again (1 min). */
    failureMemoryMs: 60_000,
  }),
  /** Data-residency region of the project. */
  region: 'us' as 'us' | 'eu',
  /** The CLI's log lines on stderr. */
  logFormat: 'text' as 'text' | 'json',
  /** The local sink's hashing worker (`REPLAY_EXPORT_HASH_WORKER=0` turns it off). */
  hashWorker: HASH_WORKER_DEFAULTS,
  /** The S3 sink: part size, queue size, region with a custom endpoint. */
  s3: S3_DEFAULTS,
  /** The transport's other settings (the library's `transportOptions`; no flags). */
  transport: Object.freeze({
    retry: DEFAULT_RETRY,
    timeouts: DEFAULT_TIMEOUTS,
    /** Most requests in flight per family: the adaptive windows' maximums (fixed caps with adaptive off). */
    concurrency: DEFAULT_CONCURRENCY,
    /** Adaptive concurrency per family: on/off, initial windows, backoff factors (src/http/options.ts). */
    adaptive: DEFAULT_ADAPTIVE,
    /** Concurrent requests to the API host, all families together (spec: 5); per project, divide between processes. */
    hostConcurrency: DEFAULT_HOST_CONCURRENCY,
    /** Sliding-window cost budgets per family (spec limits); per project, divide between processes. */
    budgets: DEFAULT_BUDGETS,
    maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  }),
});

/**
 * The same table under its earlier name (the pipeline's tunables are its top-level fields).
 * @alias the library's public name for DEFAULTS (README, src/index.ts)
 */
export const PIPELINE_DEFAULTS = DEFAULTS;
