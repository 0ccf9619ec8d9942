import { batchCount, batchEvents, decodeEventBatches, dropEvents, type EventBatch } from '../../decoders/index.js';
import { DecodeError } from '../../decoders/errors.js';
import { isLimitError, ReplayBudget } from '../../decoders/limits.js';
import type { ByteBudget } from './byte-budget.js';
import { ReplayFailedError, isBrokenTransfer, isExpiredUrl, isFatal, isTransient } from './errors.js';
import { listFilesInKeyOrder } from './file-listing.js';
import { FileUrls } from './file-urls.js';
import { orderedPrefetch, type DownloadBody } from './ordered-prefetch.js';
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
  const { api, download, signal, onNotice } = io;
  const urls = new FileUrls(api, replayId, settings, {
    clock: io.clock,
    signal,
    onRefresh: (r) => onNotice?.({ kind: 'url-refresh', replayId, fileKey: r.key, reason: r.reason }),
  });

  async function* listed(): AsyncGenerator<ListedFile> {
    const files = await listFilesInKeyOrder(api, replayId, settings, {
      signal,
      onDuplicate: (key) => onNotice?.({ kind: 'duplicate-file', replayId, fileKey: key }),
    });
    for (const f of files) urls.record(f);
    yield* files;
  }

  // The URL each download used, so that a 403 refreshes exactly the URL that was refused.
  const usedUrl = new Map<string, string>();
  const replayBudget = new ReplayBudget(settings.maxReplayBytes);
  const openFile = async (file: ListedFile, sig: AbortSignal, refusedUrl?: string): Promise<DownloadBody> => {
    const url = await urls.urlFor(file, refusedUrl);
    usedUrl.set(file.key, url);
    return download(url, { signal: sig, key: file.key });
  };

  try {
    for await (const slot of orderedPrefetch(listed(), {
      open: (f, sig) => openFile(f, sig),
      ahead: settings.filesAhead,
      budget: io.budget,
      ...(signal ? { signal } : {}),
    })) {
      const file = slot.file;
      info.fileKeys.push(file.key);
      info.fileVersions.push(settings.fileVersion);
      const position = info.fileVersions.length - 1;
      let written = 0; // events of this file already yielded
      let retries = 0;
      let refreshes = 0;
      let decodeRetried = false;
      let refusedUrl: string | undefined;
      // Each attempt decodes the file from its start: its bytes are counted from here again.
      const budgetAtFile = replayBudget.used;
      for (let attempt = 0; ; attempt++) {
        signal?.throwIfAborted();
        replayBudget.rewind(budgetAtFile);
        let sourceFailed = false;
        let sourceError: unknown;
        let bytes = 0;
        let size: number | undefined;
        const attemptController = new AbortController();
        const onAbort = (): void => attemptController.abort(signal?.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        const source = async function* (): AsyncGenerator<Uint8Array> {
          try {
            let chunks: AsyncIterable<Uint8Array>;
            if (attempt === 0) chunks = slot.body();
            else {
              const body = await openFile(file, attemptController.signal, refusedUrl);
              chunks = body.chunks;
              size = body.size;
            }
            refusedUrl = undefined;
            for await (const chunk of chunks) {
              bytes += chunk.byteLength;
              yield chunk;
            }
          } catch (err) {
            sourceFailed = true;
            sourceError = err;
            throw err;
          }
        };
        try {
          let seen = 0;
          for await (const batch of decodeEventBatches(source(), {
            version: 'auto',
            file: file.key,
            onVersion: (v: FileVersion) => {
              info.fileVersions[position] = v;
            },
            ...(signal ? { signal } : {}),
            compressedSize: () => (attempt === 0 ? slot.size : size),
            maxEventBytes: settings.maxEventBytes,
            replayBudget,
            fastPath: settings.fastPath,
          })) {
            const count = batchCount(batch);
            let out: EventBatch | undefined = batch;
            if (seen < written) {
              const skip = Math.min(written - seen, count);
              out = dropEvents(batch, skip);
              seen += skip;
            }
            if (out !== undefined) {
              const n = out === batch ? count : batchCount(out);
              seen += n;
              written += n;
              yield out;
            }
          }
          info.downloadedBytes += bytes;
          onNotice?.({ kind: 'file-done', replayId, fileKey: file.key, bytes, events: written });
          break;
        } catch (err) {
          if (attempt === 0) slot.discard();
          if (signal?.aborted) throw signal.reason ?? err;
          const cause = sourceFailed ? sourceError : err;
          if (isExpiredUrl(cause) && refreshes < settings.urlRefreshes) {
            refreshes++;
            refusedUrl = usedUrl.get(file.key);
            continue;
          }
          // A body that broke off (a raw socket or stream error): the transfer failed, not the file. A typed error
          // of the transport or the client already had its retry decision made (isTransient), e.g. a redirect.
          const transient = isTransient(cause) || (sourceFailed && isBrokenTransfer(cause));
          if (transient && retries < settings.fileRetries) {
            onNotice?.({ kind: 'retry', replayId, fileKey: file.key, attempt: retries + 1, error: messageOf(cause) });
            await (io.clock ?? systemClock).sleep(
              backoffDelay(retries, settings.retryBaseMs, settings.retryMaxMs),
              signal,
            );
            retries++;
            continue;
          }
          if (cause instanceof DecodeError && !decodeRetried && !isLimitError(cause)) {
            onNotice?.({ kind: 'retry', replayId, fileKey: file.key, attempt: retries + 1, error: messageOf(cause) });
            decodeRetried = true;
            continue;
          }
          // Credentials refused are about the run, not this replay: thrown as they are (callers catch `AuthError`).
          throw isFatal(cause) ? cause : new ReplayFailedError(replayId, file.key, cause);
        } finally {
          signal?.removeEventListener('abort', onAbort);
          attemptController.abort();
        }
      }
    }
  } catch (err) {
    if (err instanceof ReplayFailedError || isFatal(err)) throw err;
    if (signal?.aborted && err === signal.reason) throw err;
    throw new ReplayFailedError(replayId, undefined, err);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
