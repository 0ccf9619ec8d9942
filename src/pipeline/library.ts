import { archiveOfSink, openArchive, type Archive } from '../../sinks/archive.js';
import type { ManifestEntry, Sink } from '../../sinks/sink.js';
import { ConfigError } from '../errors.js';
import { validateReplayId } from '../replay/validation.js';
import { runArchive, type ArchiveEvent } from './archive.js';
import { ByteBudget } from './byte-budget.js';
import { DEFAULTS } from './defaults.js';
import { connect, type Connection, type ConnectionOptions } from './connection.js';
import { planReplays, type PlannedReplay } from './dry-run.js';
import { ReplayNotFoundError } from './errors.js';
import { exportReplayToSink, type ReplayInfo } from './export-replay.js';
import { replayEventBatches, type ReplayNotice } from './replay-stream.js';
import {
  resolveSettings,
  type FetchSettingsOptions,
  type OutputSettingsOptions,
  type RunSettingsOptions,
  type Settings,
  type SettingsOptions,
} from './settings.js';
import type { eventWithTime } from '@rrweb/types';

/**
 * Tuning of file fetching (every field defaults to `DEFAULTS`, see `settings.ts`), the caller's hooks, and optionally
 * the run's settings resolved beforehand.
 */
export interface FetchOptions extends FetchSettingsOptions {
  /** Clock (tests). */
  now?: () => number;
  signal?: AbortSignal;
  onNotice?: (notice: ReplayNotice) => void;
  /**
   * Settings resolved by `resolveSettings` (e.g. once for many calls, or by the CLI from its flags). When given, they
   * are the run's settings as they are: the tunable options beside them (`fileVersion`, `format`, `concurrency`,
   * `transportOptions.timeouts.deadlineMs`, `sinkOptions`, ...) are not read, and neither is the environment.
   */
  settings?: Settings;
}

/** Where outputs go: your own `sink`, or a target (`./dir` or `s3://bucket/prefix`) opened with `sinkOptions`. */
export interface OutputOptions extends OutputSettingsOptions {
  sink?: Sink;
  out?: string;
}

export type ReplayEventsOptions = ConnectionOptions & FetchOptions;
export type ExportReplayOptions = ConnectionOptions & FetchOptions & OutputOptions & { runId?: string };

/** `archiveReplays`: what to list, and the run's settings (`settleMs`, `recheckMs`, `order`, `concurrency`, `shard`, `runId`). */
export interface ArchiveOptions extends ConnectionOptions, FetchOptions, OutputOptions, RunSettingsOptions {
  /** Only this user's replays (platform id, sent as `amplitude_id`). */
  platformId?: number | string;
  /** Replays that started at or after this time (ISO 8601; sent as `start_time`). */
  since?: string;
  /** Replays that started at or before this time (sent as `end_time`). */
  until?: string;
  /** Replays per listing page (1–200; default `DEFAULTS.archiveListPageSize`, 200). */
  listPageSize?: number;
}

export interface ExportReplaysOptions extends ExportReplayOptions {
  concurrency?: number;
}

/** The run's settings: the caller's, or resolved here from the options, the environment and the defaults. */
function settingsOf(o: FetchOptions & SettingsOptions): Settings {
  return o.settings ?? resolveSettings(o);
}

/** The platform connection of a run: the transport's deadline for one attempt is the settings'. */
function connectFor(o: ConnectionOptions, settings: Settings): Connection {
  const transportOptions = o.transportOptions ?? {};
  return connect({
    ...o,
    transportOptions: { ...transportOptions, timeouts: { ...transportOptions.timeouts, deadlineMs: settings.requestDeadlineMs } },
  });
}

/**
 * The archive the outputs go to: the caller's own `sink` (left open: it is theirs), or the target `out` opened for
 * writing (closed by `close`).
 */
async function archiveFor(o: OutputOptions, settings: Settings): Promise<Archive> {
  if (o.sink) return archiveOfSink(o.sink, settings.captureAssets !== undefined ? ['assets'] : []);
  if (o.out === undefined) throw new ConfigError('an output is needed: pass `sink` or `out`');
  return openArchive(o.out, { create: true, ...settings.sinkOptions });
}

/**
 * One rrweb event as recorded (`eventWithTime` of `@rrweb/types`), so that `new Replayer(events)` type-checks. The
 * decoders check each event is a JSON object; its fields are rrweb's, as the platform stored them.
 */
export type ReplayEvent = eventWithTime;

/**
 * Every event of one replay as parsed objects, in order (files fetched ahead, URLs refreshed, transient failures
 * retried without duplicates). For a player or your own processing; nothing is written anywhere. A replay the API
 * does not list throws `ReplayNotFoundError` (code `REPLAY_NOT_FOUND`) before any file is asked for.
 */
export async function* replayEvents(replayId: string, options: ReplayEventsOptions = {}): AsyncGenerator<ReplayEvent> {
  for await (const batch of replayEventBytes(replayId, options)) {
    for (const event of batch) yield JSON.parse(event.toString('utf8')) as ReplayEvent;
  }
}

/** Like `replayEvents`, as batches of serialised events (one Buffer of JSON per event; the fast path). */
export async function* replayEventBytes(replayId: string, options: ReplayEventsOptions = {}): AsyncGenerator<Buffer[]> {
  validateReplayId(replayId);
  const settings = settingsOf(options);
  const conn = connectFor(options, settings);
  try {
    // One listing request by id says whether the replay exists (a files listing of an unknown id is just empty).
    let listed = false;
    for await (const r of conn.client.listReplays({ replayIds: [replayId] }, options.signal ? { signal: options.signal } : {})) {
      if (r.replay_id === replayId) listed = true;
    }
    if (!listed) throw new ReplayNotFoundError(replayId);
    yield* replayEventBatches(replayId, settings, {
      api: conn.client,
      download: conn.download,
      budget: new ByteBudget(settings.prefetchBytes),
      now: options.now,
      signal: options.signal,
      onNotice: options.onNotice,
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
  const settings = settingsOf(options);
  const conn = connectFor(options, settings);
  const archive = await archiveFor(options, settings);
  try {
    const entry = await exportReplayToSink(info, settings, {
      api: conn.client,
      download: conn.download,
      budget: new ByteBudget(settings.prefetchBytes),
      archive,
      now: options.now,
      signal: options.signal,
      onNotice: options.onNotice,
    });
    await archive.manifest.append(entry);
    return entry;
  } finally {
    await archive.close();
    await conn.close();
  }
}

async function* recordsFor(ids: readonly string[], conn: ReturnType<typeof connect>, signal?: AbortSignal): AsyncGenerator<ReplayInfo> {
  // Look the named replays up (100 ids a request) for their times and retention; ids not listed are `notFound`.
  for (let i = 0; i < ids.length; i += 100) {
    const chunk = ids.slice(i, i + 100);
    const found = new Map<string, ReplayInfo>();
    for await (const r of conn.client.listReplays({ replayIds: chunk }, signal ? { signal } : {})) found.set(r.replay_id, r);
    for (const id of chunk) yield found.get(id) ?? { replay_id: id, notFound: true };
  }
}

/** The settings of `exportReplays`: every named replay, in the order given, whatever its start or shard. */
function forNamedReplays(settings: Settings): Settings {
  return Object.freeze({ ...settings, order: 'start', settleMs: 0, recheckMs: undefined, shard: undefined });
}

/** Exports the named replays (always, whatever the manifest says), a few at a time; yields per-replay results. */
export async function* exportReplays(replayIds: readonly string[], options: ExportReplaysOptions): AsyncGenerator<ArchiveEvent> {
  for (const id of replayIds) validateReplayId(id);
  const settings = forNamedReplays(settingsOf(options));
  const conn = connectFor(options, settings);
  const archive = await archiveFor(options, settings);
  try {
    yield* runArchive({ replays: recordsFor(replayIds, conn, options.signal), resume: false }, settings, {
      api: conn.client,
      download: conn.download,
      archive,
      room: conn.room,
      now: options.now,
      signal: options.signal,
    });
  } finally {
    await archive.close();
    await conn.close();
  }
}

/** The listing an archive run goes through. */
function listingOf(options: ArchiveOptions, conn: Connection): AsyncIterable<ReplayInfo> {
  const query = {
    ...(options.platformId !== undefined ? { platformId: options.platformId } : {}),
    ...(options.since !== undefined ? { startTime: options.since } : {}),
    ...(options.until !== undefined ? { endTime: options.until } : {}),
    pageSize: options.listPageSize ?? DEFAULTS.archiveListPageSize,
  };
  // The next page is read while this one's replays are exported.
  return conn.client.listReplays(query, { readAhead: true, ...(options.signal ? { signal: options.signal } : {}) });
}

/**
 * What `archiveReplays` with the same options would do with each listed replay (export, recheck, or skip as done,
 * settling or of another shard), without doing it: the listing and the target's manifest are read; nothing is
 * downloaded and nothing is written (not even the manifest or the target folder).
 */
export async function* planArchive(options: ArchiveOptions): AsyncGenerator<PlannedReplay> {
  const settings = settingsOf(options);
  const conn = connectFor(options, settings);
  const archive = await archiveFor(options, settings);
  try {
    yield* planReplays(listingOf(options, conn), archive, settings, options.now ?? Date.now);
  } finally {
    await archive.close();
    await conn.close();
  }
}

/**
 * Archives every replay the listing returns into a target, resumably: replays already recorded `ok` with their
 * output present are left alone, the rest are exported (bounded concurrency), recent ones are skipped while they
 * settle, and replays recorded within `recheckMs` are re-exported when their files changed. Yields per-replay
 * results and progress; throws on authentication failure or abort.
 */
export async function* archiveReplays(options: ArchiveOptions): AsyncGenerator<ArchiveEvent> {
  const settings = settingsOf(options);
  const conn = connectFor(options, settings);
  const archive = await archiveFor(options, settings);
  try {
    yield* runArchive({ replays: listingOf(options, conn), resume: true }, settings, {
      api: conn.client,
      download: conn.download,
      archive,
      room: conn.room,
      now: options.now,
      signal: options.signal,
    });
  } finally {
    await archive.close();
    await conn.close();
  }
}
