import { boundedKey } from '../util/bounded-key.js';
import { batchCount, batchEvents, decodeEventBatches, dropEvents, type EventBatch } from '../../decoders/index.js';
import { DecodeError } from '../../decoders/errors.js';
import { isLimitError, ReplayBudget } from '../../decoders/limits.js';
import type { ByteBudget } from './byte-budget.js';
import { ReplayFailedError, isBrokenTransfer, isExpiredUrl, isFatal, isTransient } from './errors.js';
import { listFilesInKeyOrder } from './file-listing.js';
import { FileUrls } from './file-urls.js';
import { orderedPrefetch, type DownloadBody, type PrefetchedFile } from './ordered-prefetch.js';
import { backoffDelay } from './signal.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { Settings } from './settings.js';
import type { Downloader, FileVersion, ListedFile, ReplayFilesApi } from './types.js';

/**
 * What one replay's stream is handed besides the run's settings: the API, the downloader, the run's byte budget and
 * the caller's hooks (no tunables: those are in `Settings`).
 */
export interface ReplayIo {
  api: ReplayFilesApi;
  download: Downloader;
  /** The run's budget of compressed bytes held for files fetched ahead (`Settings.prefetchBytes`). */
  budget: ByteBudget;
  /** The clock waits and time readings go through (default: the real one; tests). */
  clock?: Clock | undefined;
  signal?: AbortSignal | undefined;
  /** Notified of retries and URL refreshes (logs, progress, tests). */
  onNotice?: ((notice: ReplayNotice) => void) | undefined;
}

export type ReplayNotice =
  | { kind: 'retry'; replayId: string; fileKey: string; attempt: number; error: string }
  | { kind: 'url-refresh'; replayId: string; fileKey: string; reason: 'aged' | 'refused' }
  /** The files listing held this key more than once: the file is taken once. */
  | { kind: 'duplicate-file'; replayId: string; fileKey: string }
  | { kind: 'file-done'; replayId: string; fileKey: string; bytes: number; events: number };

/** What was learned about a replay's files while streaming it (filled in as files go by). */
export interface ReplayFilesInfo {
  fileKeys: string[];
  fileVersions: number[];
  /** Compressed bytes downloaded for the files (successful attempts). */
  downloadedBytes: number;
}

/**
 * Every event of one replay, in order, as batches of serialised events (one Buffer per event); redacted when the
 * settings hold a policy.
 *
 * The files are listed in full first, sorted by key and taken once each (listFilesInKeyOrder; a duplicate key is
 * reported as a `duplicate-file` notice), then downloaded ahead in parallel; each file's events are yielded strictly
 * in file-key order. The file being written streams from the HTTP body through
 * the decoder, so a failure can happen after some of its events were already yielded. A retry then downloads the
 * file again, decodes it from the start and skips the events already yielded (decoding is deterministic, so the
 * first N events of a good copy are the N already handed out) — nothing is duplicated, nothing reordered, and the
 * file never has to be held whole in memory. Transient failures (429, 5xx, resets, timeouts, truncated bodies)
 * retry with back-off; a 403 from storage (expired URL) gets a fresh URL for that same file (by key) and goes on;
 * a DecodeError is retried once (bytes damaged in transit) and is then permanent, except a size limit's, which is
 * permanent at once (the same bytes go over the same limit). A permanent failure throws a `ReplayFailedError` naming
 * the file. The replay's inflated bytes are counted over all its files; a file decoded again counts once.
 */
export async function* replayEventBatches(
  replayId: string,
  settings: Settings,
  io: ReplayIo,
  info: ReplayFilesInfo = { fileKeys: [], fileVersions: [], downloadedBytes: 0 },
): AsyncGenerator<Buffer[]> {
  const decoded = replayDecodedBatches(replayId, settings, io, info);
  // The redaction stream is loaded with the first policy that needs it, not with the pipeline.
  const batches =
    settings.redaction === undefined
      ? decoded
      : (await import('../redaction/stream.js')).redactBatches(decoded, settings.redaction);
  for await (const batch of batches) yield batchEvents(batch);
}

/** The same events as `replayEventBatches`, as the decoders give them (runs of a compact version 3 file in place). */
export async function* replayDecodedBatches(
  replayId: string,
  settings: Settings,
  io: ReplayIo,
  info: ReplayFilesInfo = { fileKeys: [], fileVersions: [], downloadedBytes: 0 },
): AsyncGenerator<EventBatch> {
  const files = new ReplayFiles(replayId, settings, io);
  try {
    for await (const slot of orderedPrefetch(files.listed(), {
      open: (f, sig) => files.open(f, sig),
      ahead: settings.filesAhead,
      budget: io.budget,
      ...(io.signal ? { signal: io.signal } : {}),
    }))
      yield* fileBatches(files, slot, info);
  } catch (err) {
    if (err instanceof ReplayFailedError || isFatal(err)) throw err;
    if (io.signal?.aborted && err === io.signal.reason) throw err;
    throw new ReplayFailedError(replayId, undefined, err);
  }
}

/** One replay's files: listed in key order, each opened at its current URL; the replay's inflated bytes counted. */
class ReplayFiles {
  readonly #urls: FileUrls;
  /** The URL each download used, so that a 403 refreshes exactly the URL that was refused. */
  readonly #usedUrl = new Map<string, string>();
  readonly budget: ReplayBudget;

  constructor(
    readonly replayId: string,
    readonly settings: Settings,
    readonly io: ReplayIo,
  ) {
    const onNotice = io.onNotice;
    this.#urls = new FileUrls(io.api, replayId, settings, {
      clock: io.clock,
      signal: io.signal,
      onRefresh: (r) => onNotice?.({ kind: 'url-refresh', replayId, fileKey: r.key, reason: r.reason }),
    });
    this.budget = new ReplayBudget(settings.maxReplayBytes);
  }

  async *listed(): AsyncGenerator<ListedFile> {
    const { replayId, io } = this;
    const files = await listFilesInKeyOrder(io.api, replayId, this.settings, {
      signal: io.signal,
      onDuplicate: (key) => io.onNotice?.({ kind: 'duplicate-file', replayId, fileKey: key }),
    });
    for (const f of files) this.#urls.record(f);
    yield* files;
  }

  /** Downloads `file` at its URL, or a fresh one when `refusedUrl` (the one storage refused) is given. */
  async open(file: ListedFile, signal: AbortSignal, refusedUrl?: string): Promise<DownloadBody> {
    const url = await this.#urls.urlFor(file, refusedUrl);
    this.#usedUrl.set(boundedKey(file.key), url);
    return this.io.download(url, { signal, key: file.key });
  }

  usedUrl(key: string): string | undefined {
    return this.#usedUrl.get(boundedKey(key));
  }
}

/** What one file's attempts have spent so far (each kind of retry has its own allowance). */
interface FileTries {
  retries: number;
  refreshes: number;
  decodeRetried: boolean;
}

/**
 * What to do after an attempt at a file failed with `cause` (`broken`: the bytes broke off, not the decoder's
 * verdict): `refresh` its URL, `retry` it after a back-off, `decode-again` at once (bytes damaged in transit), or
 * `fail` the replay.
 */
function nextTry(
  cause: unknown,
  broken: boolean,
  tries: Readonly<FileTries>,
  settings: Pick<Settings, 'urlRefreshes' | 'fileRetries'>,
): 'refresh' | 'retry' | 'decode-again' | 'fail' {
  if (isExpiredUrl(cause) && tries.refreshes < settings.urlRefreshes) return 'refresh';
  // A body that broke off (a raw socket or stream error): the transfer failed, not the file. A typed error of the
  // transport or the client already had its retry decision made (isTransient), e.g. a redirect.
  const transient = isTransient(cause) || (broken && isBrokenTransfer(cause));
  if (transient && tries.retries < settings.fileRetries) return 'retry';
  if (cause instanceof DecodeError && !tries.decodeRetried && !isLimitError(cause)) return 'decode-again';
  return 'fail';
}

/** The bytes of one attempt at a file: the prefetched body first, a new download after; what broke it is kept. */
class AttemptSource {
  bytes = 0;
  size: number | undefined;
  failed: { error: unknown } | undefined;

  constructor(
    private readonly open: () => Promise<DownloadBody> | undefined,
    private readonly first: () => AsyncIterable<Uint8Array>,
  ) {}

  async *chunks(): AsyncGenerator<Uint8Array> {
    try {
      const body = await this.open();
      if (body !== undefined) this.size = body.size;
      for await (const chunk of body?.chunks ?? this.first()) {
        this.bytes += chunk.byteLength;
        yield chunk;
      }
    } catch (err) {
      this.failed = { error: err };
      throw err;
    }
  }
}

/**
 * One file's events, skipping the first `done.events` (yielded by an earlier attempt): a retry decodes the file from
 * its start and hands out only what comes after; `done.events` counts what is yielded, whatever happens next.
 */
async function* skipWritten(batches: AsyncIterable<EventBatch>, done: { events: number }): AsyncGenerator<EventBatch> {
  let seen = 0;
  for await (const batch of batches) {
    const count = batchCount(batch);
    let out: EventBatch | undefined = batch;
    if (seen < done.events) {
      const skip = Math.min(done.events - seen, count);
      out = dropEvents(batch, skip);
      seen += skip;
    }
    if (out !== undefined) {
      const n = out === batch ? count : batchCount(out);
      seen += n;
      done.events += n;
      yield out;
    }
  }
}

/** The events of one file, retried as `nextTry` says; a permanent failure throws a `ReplayFailedError` naming it. */
async function* fileBatches(
  files: ReplayFiles,
  slot: PrefetchedFile<ListedFile>,
  info: ReplayFilesInfo,
): AsyncGenerator<EventBatch> {
  const { replayId, settings, io } = files;
  const { signal, onNotice } = io;
  const file = slot.file;
  info.fileKeys.push(file.key);
  info.fileVersions.push(settings.fileVersion);
  const position = info.fileVersions.length - 1;
  const written = { events: 0 }; // events of this file already yielded
  const tries: FileTries = { retries: 0, refreshes: 0, decodeRetried: false };
  let refusedUrl: string | undefined;
  // Each attempt decodes the file from its start: its bytes are counted from here again.
  const budgetAtFile = files.budget.used;
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    files.budget.rewind(budgetAtFile);
    const attemptController = new AbortController();
    const onAbort = (): void => attemptController.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const refused = refusedUrl;
    refusedUrl = undefined;
    const source = new AttemptSource(
      () => (attempt === 0 ? undefined : files.open(file, attemptController.signal, refused)),
      () => slot.body(),
    );
    try {
      yield* skipWritten(
        decodeEventBatches(source.chunks(), {
          version: 'auto',
          file: file.key,
          onVersion: (v: FileVersion) => {
            info.fileVersions[position] = v;
          },
          ...(signal ? { signal } : {}),
          compressedSize: () => (attempt === 0 ? slot.size : source.size),
          maxEventBytes: settings.maxEventBytes,
          replayBudget: files.budget,
          fastPath: settings.fastPath,
        }),
        written,
      );
      info.downloadedBytes += source.bytes;
      onNotice?.({ kind: 'file-done', replayId, fileKey: file.key, bytes: source.bytes, events: written.events });
      return;
    } catch (err) {
      if (attempt === 0) slot.discard();
      if (signal?.aborted) throw signal.reason ?? err;
      const cause = source.failed !== undefined ? source.failed.error : err;
      const next = nextTry(cause, source.failed !== undefined, tries, settings);
      // Credentials refused are about the run, not this replay: thrown as they are (callers catch `AuthError`).
      if (next === 'fail') throw isFatal(cause) ? cause : new ReplayFailedError(replayId, file.key, cause);
      if (next === 'refresh') {
        tries.refreshes++;
        refusedUrl = files.usedUrl(file.key);
        continue;
      }
      onNotice?.({ kind: 'retry', replayId, fileKey: file.key, attempt: tries.retries + 1, error: messageOf(cause) });
      if (next === 'decode-again') tries.decodeRetried = true;
      else {
        await (io.clock ?? systemClock).sleep(
          backoffDelay(tries.retries, settings.retryBaseMs, settings.retryMaxMs),
          signal,
        );
        tries.retries++;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      attemptController.abort();
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
