/**
 * Input layer: sniffs the gzip magic bytes and yields the inflated bytes of a file as large chunks.
 * Object storage may serve a file gzip-compressed, already inflated (Content-Encoding handled upstream) or raw.
 */

import { Readable, type TransformOptions } from 'node:stream';
import { createGunzip, type ZlibOptions } from 'node:zlib';
import { DecodeError } from './errors.js';
import { gzipMembersEnd, startsMember } from './gzip-members.js';

/**
 * Size of the chunks produced by gunzip. Large chunks roughly double gunzip's own throughput over 16 KiB ones. With the
 * scanner on the main thread, 512 KiB does as well as 1 MiB or slightly better (the 200 MB export 1–5% faster in
 * alternating runs, within the machine's noise) with half the bytes per chunk in flight: the chunk and its copy in the
 * WebAssembly memory fit the core's cache, and each chunk reaches the scanner sooner.
 */
const INFLATE_CHUNK = 512 << 10;
/** Output chunks gunzip may run ahead of the consumer (in the thread pool, while the main thread scans). */
const READ_AHEAD_CHUNKS = 1;

/** Whether `head` starts with the gzip magic bytes `1f 8b`. */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

export interface InflateOptions {
  file?: string | undefined;
  signal?: AbortSignal | undefined;
  /** The compressed size when known (e.g. a download's Content-Length), asked when gunzip starts. */
  compressedSize?: (() => number | undefined) | undefined;
}

/** Compressed bytes handed to gunzip at a time (fewer, larger thread-pool jobs). */
const FEED_BYTES = 1 << 20;
/**
 * A file's compressed bytes are kept while they total at most this (one piece fed to gunzip), so that when gunzip
 * fails the cold path can find where the valid gzip data ends. A larger file's failure is placed at or after the
 * compressed byte gunzip had got to.
 */
const KEEP_FOR_DIAGNOSIS = FEED_BYTES;
const NOT_YET = Symbol('not yet');
/** Resolves after the event loop's current turn (a source that answers within it wins a race against this). */
function nextTurn(): Promise<typeof NOT_YET> {
  return new Promise((resolve) => setImmediate(resolve, NOT_YET));
}

/** Smallest gunzip output chunk. */
const MIN_INFLATE_CHUNK = 16 << 10;
/** Inflated bytes expected per compressed byte, to size a small file's output chunks (JSON gzips 5–10×). */
const EXPECTED_RATIO = 8;

/**
 * Output chunk size for a file of `compressed` bytes: about the whole inflated file for a small one (so that a small
 * file does not allocate a whole `INFLATE_CHUNK`), `INFLATE_CHUNK` when the size is unknown or large.
 */
function inflateChunkFor(compressed: number | undefined): number {
  if (compressed === undefined || !Number.isFinite(compressed) || compressed <= 0) return INFLATE_CHUNK;
  let size = MIN_INFLATE_CHUNK;
  while (size < INFLATE_CHUNK && size < compressed * EXPECTED_RATIO) size *= 2;
  return size;
}

/**
 * Yields the file's inflated bytes: gunzipped when it starts with the gzip magic, copied as they are otherwise.
 * Chunks never exceed `INFLATE_CHUNK` bytes and are never reused afterwards, so views into them stay valid.
 * Errors of the source itself are rethrown unchanged; a corrupt or truncated gzip layer, or any byte after the last
 * gzip member (node's gunzip ignores bytes after one starting with 0x00), becomes `BAD_GZIP` naming the compressed
 * offset. Members may follow one another (multi-member gzip).
 */
export async function* inflatedChunks(
  source: AsyncIterable<Uint8Array>,
  opts: InflateOptions = {},
): AsyncGenerator<Buffer> {
  const { signal } = opts;
  signal?.throwIfAborted();
  const it = source[Symbol.asyncIterator]();
  let done = false;
  try {
    // Gather at least two bytes to sniff the format.
    const head: Buffer[] = [];
    let headLen = 0;
    while (headLen < 2) {
      const r = await it.next();
      if (r.done) {
        done = true;
        break;
      }
      if (r.value.length === 0) continue;
      head.push(Buffer.from(r.value)); // copy: the caller may reuse its buffer
      headLen += r.value.length;
    }
    const first = head.length === 1 ? head[0]! : Buffer.concat(head);
    if (!isGzip(first)) {
      yield* slices(first);
      while (!done) {
        signal?.throwIfAborted();
        const r = await it.next();
        if (r.done) {
          done = true;
          break;
        }
        if (r.value.length > 0) yield* slices(Buffer.from(r.value));
      }
      return;
    }
    yield* gunzip(first, it, opts, () => {
      done = true;
    });
    done = true;
  } finally {
    if (!done) await it.return?.();
  }
}

function* slices(buf: Buffer): Generator<Buffer> {
  if (buf.length <= INFLATE_CHUNK) {
    yield buf;
    return;
  }
  for (let i = 0; i < buf.length; i += INFLATE_CHUNK) yield buf.subarray(i, i + INFLATE_CHUNK);
}

async function* gunzip(
  first: Buffer,
  it: AsyncIterator<Uint8Array>,
  opts: InflateOptions,
  onSourceDone: () => void,
): AsyncGenerator<Buffer> {
  let sourceError: { error: unknown } | undefined;
  let sourceDone = false;
  /** Compressed bytes handed to gunzip so far. */
  let fed = 0;
  /** Those bytes while they fit KEEP_FOR_DIAGNOSIS (undefined after). */
  let kept: Buffer[] | undefined = [];
  const compressed = opts.compressedSize?.();
  // Compressed input goes to gunzip in pieces of up to FEED_BYTES (the source's chunks copied together): each piece
  // is one or two jobs in the thread pool, and every job costs a round trip through the main thread's event loop.
  const known = compressed !== undefined && Number.isFinite(compressed) && compressed > 0;
  const feedBytes = known ? Math.min(FEED_BYTES, Math.max(MIN_INFLATE_CHUNK, compressed)) : FEED_BYTES;
  /** Notes a piece handed to gunzip. */
  function fedPiece(bytes: Buffer): Buffer {
    fed += bytes.length;
    if (kept !== undefined) {
      if (fed <= KEEP_FOR_DIAGNOSIS) kept.push(bytes);
      else kept = undefined;
    }
    return bytes;
  }
  async function* feed(): AsyncGenerator<Buffer> {
    // Copied as they come (gunzip reads them later, and the caller may reuse its buffers meanwhile).
    let piece = Buffer.allocUnsafe(feedBytes);
    let used = 0;
    function* add(bytes: Uint8Array): Generator<Buffer> {
      let at = 0;
      while (at < bytes.length) {
        const n = Math.min(bytes.length - at, piece.length - used);
        piece.set(bytes.subarray(at, at + n), used);
        used += n;
        at += n;
        if (used === piece.length) {
          yield fedPiece(piece);
          piece = Buffer.allocUnsafe(feedBytes);
          used = 0;
        }
      }
    }
    yield* add(first);
    let pending: Promise<IteratorResult<Uint8Array>> | undefined;
    for (;;) {
      let r: IteratorResult<Uint8Array> | typeof NOT_YET;
      try {
        if (pending === undefined) {
          pending = it.next();
          pending.catch(() => undefined); // awaited below; never left unhandled if the consumer stops first
        }
        // With a piece begun, wait for more only while the source answers at once (bytes already in memory): a
        // source still waiting on the network gets what has come so far decoded now.
        r = used > 0 ? await Promise.race([pending, nextTurn()]) : await pending;
      } catch (error) {
        sourceError = { error };
        onSourceDone();
        throw error;
      }
      if (r === NOT_YET) {
        yield fedPiece(piece.subarray(0, used));
        piece = Buffer.allocUnsafe(feedBytes);
        used = 0;
        continue;
      }
      pending = undefined;
      if (r.done) {
        sourceDone = true;
        onSourceDone();
        if (used > 0) yield fedPiece(piece.subarray(0, used));
        return;
      }
      yield* add(r.value);
    }
  }
  const input = Readable.from(feed(), { objectMode: false });
  // Read-ahead lets gunzip (libuv threadpool) work while the scanner (main thread) runs; one chunk is enough.
  const chunkSize = inflateChunkFor(compressed);
  const options: ZlibOptions & TransformOptions = {
    chunkSize,
    readableHighWaterMark: READ_AHEAD_CHUNKS * chunkSize,
    writableHighWaterMark: chunkSize,
  };
  const inflater = createGunzip(options);
  input.on('error', (err) => inflater.destroy(err));
  input.pipe(inflater);
  const badGzip = (detail: string, cause?: unknown): DecodeError =>
    new DecodeError('BAD_GZIP', detail, { file: opts.file, cause });
  let failure: unknown;
  try {
    for await (const chunk of inflater) {
      opts.signal?.throwIfAborted();
      yield chunk as Buffer;
    }
    // Gunzip stops before bytes that start with 0x00 after a member (bytesWritten is then where the member ended);
    // it ends with everything used only once the source is done.
    const used = inflater.bytesWritten;
    if (used < fed || !sourceDone) throw badGzip(`stray bytes after the gzip data, from compressed byte ${used}`);
    return;
  } catch (err) {
    if (err instanceof DecodeError || sourceError !== undefined || (opts.signal?.aborted && err === opts.signal.reason))
      throw sourceError?.error ?? err;
    failure = err;
  } finally {
    input.destroy();
    inflater.destroy();
  }
  throw await describeGunzipFailure(failure, { fed, reached: inflater.bytesWritten, kept }, badGzip);
}

/**
 * The `BAD_GZIP` error for gunzip's failure, with the compressed offset: the end of the input for a truncated
 * member; otherwise, when the file's bytes were kept, where its valid members end (what follows is stray bytes, or
 * a member that does not decode); else the compressed byte gunzip had got to (the failure is at or after it).
 */
async function describeGunzipFailure(
  err: unknown,
  at: { fed: number; reached: number; kept: Buffer[] | undefined },
  badGzip: (detail: string, cause?: unknown) => DecodeError,
): Promise<DecodeError> {
  const detail = err instanceof Error ? err.message : String(err);
  if ((err as { code?: unknown }).code === 'Z_BUF_ERROR') {
    return badGzip(
      `the gzip data is truncated: the file ends inside a gzip member, after ${at.fed} compressed bytes (${detail})`,
      err,
    );
  }
  if (at.kept !== undefined) {
    const bytes = Buffer.concat(at.kept);
    const end = await gzipMembersEnd(bytes);
    if (end > 0 && end < bytes.length && !startsMember(bytes, end))
      return badGzip(`stray bytes after the gzip data, from compressed byte ${end}`, err);
    if (end < bytes.length) return badGzip(`the gzip member from compressed byte ${end} is corrupt: ${detail}`, err);
  }
  return badGzip(`the gzip layer is corrupt at or after compressed byte ${at.reached}: ${detail}`, err);
}
