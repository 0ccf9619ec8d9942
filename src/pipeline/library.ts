import { checkDecodeLimits } from '../../decoders/limits.js';
import type { ManifestEntry, OutputFormat, OutputSpec, Sink } from '../../sinks/sink.js';
import { openSink, type OpenSinkOptions } from '../../sinks/open.js';
import { validateReplayId } from '../replay/validation.js';
import { runArchive, type ArchiveEvent, type ShardSpec } from './archive.js';
import { ByteBudget } from './byte-budget.js';
import { connect, type ConnectionOptions } from './connection.js';
import { PIPELINE_DEFAULTS } from './defaults.js';
import { ConfigError } from './errors.js';
import { exportReplayToSink, type ReplayInfo } from './export-replay.js';
import { replayEventBatches, type ReplayNotice, type ReplayStreamOptions } from './replay-stream.js';
import type { eventWithTime } from '@rrweb/types';
import type { FileVersion } from './types.js';

/** Tuning of file fetching; every field defaults to PIPELINE_DEFAULTS. */
export interface FetchOptions {
  /** File version requested from the API (default 3). Either version decodes to the same events. */
  fileVersion?: FileVersion;
  filesPageSize?: number;
  /** A replay listing more files than this fails with `too_many_files` (default 100,000). */
  maxFilesPerReplay?: number;
  filesAhead?: number;
  /** Compressed bytes held for files fetched ahead (shared by a run). */
  prefetchBytes?: number;
  urlTtlMs?: number;
  urlRefreshMarginMs?: number;
  fileRetries?: number;
  urlRefreshes?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /**
   * The largest event in bytes (default 256 MiB, at most 1 GiB): a larger one, or a larger array element of a file,
   * fails its replay with `decode_event_too_large`, checked while inflating. Peak memory for one event is about this.
   */
  maxEventBytes?: number;
  /**
   * Inflated bytes one replay may take (default 8 GiB): its files' bytes after gzip, plus each version 2 packed
   * event's inflated payload. More fails the replay with `decode_replay_too_large`, checked while inflating.
   */
  maxReplayBytes?: number;
  /** Clock (tests). */
  now?: () => number;
  signal?: AbortSignal;
  onNotice?: (notice: ReplayNotice) => void;
}

/** Where outputs go: your own `sink`, or a target (`./dir` or `s3://bucket/prefix`) opened with `sinkOptions`. */
export interface OutputOptions {
  sink?: Sink;
  out?: string;
  sinkOptions?: OpenSinkOptions;
  format?: OutputFormat;
  gzip?: boolean;
}

export type ReplayEventsOptions = ConnectionOptions & FetchOptions;
export type ExportReplayOptions = ConnectionOptions & FetchOptions & OutputOptions & { runId?: string };

export interface ArchiveOptions extends ConnectionOptions, FetchOptions, OutputOptions {
  /** Only this user's replays (platform id, sent as `amplitude_id`). */
  platformId?: number | string;
  /** Replays that started at or after this time (ISO 8601; sent as `start_time`). */
  since?: string;
  /** Replays that started at or before this time (sent as `end_time`). */
  until?: string;
  /** Page size of the replay listing. */
  listPageSize?: number;
  /** Skip replays that started less than this long ago (ms, default 24h; 0 never skips). */
  settleMs?: number;
  /** Re-check replays recorded `ok` that started within this window (ms); re-export those whose files changed. */
  recheckMs?: number;
  /** `start` (as listed, default) or `expiry` (closest to deletion first; lists everything before exporting). */
  order?: 'start' | 'expiry';
  /** Replays exported at once (default 4). */
  concurrency?: number;
  shard?: ShardSpec;
  runId?: string;
}

export interface ExportReplaysOptions extends ExportReplayOptions {
  concurrency?: number;
}

/**
 * Stream settings with defaults filled in (the one place the library applies PIPELINE_DEFAULTS). A size limit out
 * of range is a `ConfigError`.
 */
export function resolveFetchOptions(o: FetchOptions): Omit<ReplayStreamOptions, 'api' | 'download' | 'budget'> {
  const d = PIPELINE_DEFAULTS;
  try {
    checkDecodeLimits(o);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const out: Omit<ReplayStreamOptions, 'api' | 'download' | 'budget'> = {
    fileVersion: o.fileVersion ?? d.fileVersion,
    filesPageSize: o.filesPageSize ?? d.filesPageSize,
    maxFiles: o.maxFilesPerReplay ?? d.maxFilesPerReplay,
    filesAhead: o.filesAhead ?? d.filesAhead,
    urlTtlMs: o.urlTtlMs ?? d.urlTtlMs,
    urlRefreshMarginMs: o.urlRefreshMarginMs ?? d.urlRefreshMarginMs,
    fileRetries: o.fileRetries ?? d.fileRetries,
    urlRefreshes: o.urlRefreshes ?? d.urlRefreshes,
    retryBaseMs: o.retryBaseMs ?? d.retryBaseMs,
    retryMaxMs: o.retryMaxMs ?? d.retryMaxMs,
    maxEventBytes: o.maxEventBytes ?? d.maxEventBytes,
    maxReplayBytes: o.maxReplayBytes ?? d.maxReplayBytes,
  };
  if (o.now) out.now = o.now;
  if (o.signal) out.signal = o.signal;
  if (o.onNotice) out.onNotice = o.onNotice;
  return out;
}

export function resolveOutput(o: OutputOptions): OutputSpec {
  return { format: o.format ?? PIPELINE_DEFAULTS.format, gzip: o.gzip ?? PIPELINE_DEFAULTS.gzip };
}

async function sinkFor(o: OutputOptions): Promise<{ sink: Sink; owned: boolean }> {
  if (o.sink) return { sink: o.sink, owned: false };
  if (o.out === undefined) throw new TypeError('an output is needed: pass `sink` or `out`');
  return { sink: await openSink(o.out, o.sinkOptions ?? {}), owned: true };
}

/**
 * One rrweb event as recorded (`eventWithTime` of `@rrweb/types`), so that `new Replayer(events)` type-checks. The
 * decoders check each event is a JSON object; its fields are rrweb's, as the platform stored them.
 */
export type ReplayEvent = eventWithTime;

/**
 * Every event of one replay as parsed objects, in order (files fetched ahead, URLs refreshed, transient failures
 * retried without duplicates). For a player or your own processing; nothing is written anywhere.
 */
export async function* replayEvents(replayId: string, options: ReplayEventsOptions = {}): AsyncGenerator<ReplayEvent> {
  for await (const batch of replayEventBytes(replayId, options)) {
    for (const event of batch) yield JSON.parse(event.toString('utf8')) as ReplayEvent;
  }
}

/** Like `replayEvents`, as batches of serialised events (one Buffer of JSON per event; the fast path). */
export async function* replayEventBytes(replayId: string, options: ReplayEventsOptions = {}): AsyncGenerator<Buffer[]> {
  validateReplayId(replayId);
  const conn = connect(options);
  try {
    yield* replayEventBatches(replayId, {
      ...resolveFetchOptions(options),
      api: conn.client,
      download: conn.download,
      budget: new ByteBudget(options.prefetchBytes ?? PIPELINE_DEFAULTS.prefetchBytes),
    });
  } finally {
    await conn.close();
  }
}

/**
 * Exports one replay to a sink and records the outcome in the target's manifest. Resolves with the manifest entry
 * (`ok`, `empty` or `failed` — a failed replay does not throw); authentication errors and aborts throw.
 */
export async function exportReplay(replay: string | ReplayInfo, options: ExportReplayOptions): Promise<ManifestEntry> {
  const info: ReplayInfo = typeof replay === 'string' ? { replay_id: replay } : replay;
  const conn = connect(options);
  const { sink, owned } = await sinkFor(options);
  try {
    const entry = await exportReplayToSink(info, {
      ...resolveFetchOptions(options),
      api: conn.client,
      download: conn.download,
      budget: new ByteBudget(options.prefetchBytes ?? PIPELINE_DEFAULTS.prefetchBytes),
      sink,
      output: resolveOutput(options),
      ...(options.runId !== undefined ? { runId: options.runId } : {}),
    });
    await sink.appendManifest(entry);
    return entry;
  } finally {
    if (owned) await sink.close();
    await conn.close();
  }
}

async function* recordsFor(ids: readonly string[], conn: ReturnType<typeof connect>, signal?: AbortSignal): AsyncGenerator<ReplayInfo> {
  // Look the named replays up (100 ids a request) for their times and retention; ids not listed are still exported.
  for (let i = 0; i < ids.length; i += 100) {
    const chunk = ids.slice(i, i + 100);
    const found = new Map<string, ReplayInfo>();
    for await (const r of conn.client.listReplays({ replayIds: chunk }, signal ? { signal } : {})) found.set(r.replay_id, r);
    for (const id of chunk) yield found.get(id) ?? { replay_id: id };
  }
}

/** Exports the named replays (always, whatever the manifest says), a few at a time; yields per-replay results. */
export async function* exportReplays(replayIds: readonly string[], options: ExportReplaysOptions): AsyncGenerator<ArchiveEvent> {
  for (const id of replayIds) validateReplayId(id);
  const conn = connect(options);
  const { sink, owned } = await sinkFor(options);
  try {
    yield* runArchive(
      { replays: recordsFor(replayIds, conn, options.signal), order: 'start', settleMs: 0, resume: false },
      runOptions(options, conn, sink, options.concurrency),
    );
  } finally {
    if (owned) await sink.close();
    await conn.close();
  }
}

function runOptions(
  o: ExportReplayOptions,
  conn: ReturnType<typeof connect>,
  sink: Sink,
  concurrency: number | undefined,
): Parameters<typeof runArchive>[1] {
  const { signal, onNotice: _n, ...stream } = resolveFetchOptions(o);
  return {
    sink,
    output: resolveOutput(o),
    api: conn.client,
    stream: { ...stream, download: conn.download },
    concurrency: concurrency ?? PIPELINE_DEFAULTS.concurrency,
    prefetchBytes: o.prefetchBytes ?? PIPELINE_DEFAULTS.prefetchBytes,
    ...(o.runId !== undefined ? { runId: o.runId } : {}),
    ...(o.now ? { now: o.now } : {}),
    ...(signal ? { signal } : {}),
  };
}

/**
 * Archives every replay the listing returns into a target, resumably: replays already recorded `ok` with their
 * output present are left alone, the rest are exported (bounded concurrency), recent ones are skipped while they
 * settle, and replays recorded within `recheckMs` are re-exported when their files changed. Yields per-replay
 * results and progress; throws on authentication failure or abort.
 */
export async function* archiveReplays(options: ArchiveOptions): AsyncGenerator<ArchiveEvent> {
  const conn = connect(options);
  const { sink, owned } = await sinkFor(options);
  try {
    const query = {
      ...(options.platformId !== undefined ? { platformId: options.platformId } : {}),
      ...(options.since !== undefined ? { startTime: options.since } : {}),
      ...(options.until !== undefined ? { endTime: options.until } : {}),
      ...(options.listPageSize !== undefined ? { pageSize: options.listPageSize } : {}),
    };
    yield* runArchive(
      {
        replays: conn.client.listReplays(query, options.signal ? { signal: options.signal } : {}),
        order: options.order ?? PIPELINE_DEFAULTS.order,
        settleMs: options.settleMs ?? PIPELINE_DEFAULTS.settleMs,
        recheckMs: options.recheckMs,
        resume: true,
        shard: options.shard,
      },
      runOptions(options, conn, sink, options.concurrency),
    );
  } finally {
    if (owned) await sink.close();
    await conn.close();
  }
}
