/**
 * Builds a catalogue file from an archive's manifest alone: the entries streamed once (each replay's state wins, as
 * the resume reads the manifest), inserted a few hundred rows a statement, then the indexes and the full-text index
 * made over the whole table. Written to a temporary file beside `path` and renamed over it: a reader holding the old
 * file keeps reading it, and a build that fails leaves the old one.
 *
 * The parsing and inserting run on a thread of their own (build-worker-main.ts): this thread reads the manifest's
 * bytes (`archive.manifest.bytes()`: the archive is opened by the run only) and hands them over, at most 1 MiB unread.
 * Two reasons. Memory: parsing a million lines allocates fast, and V8 grows a thread's young generation to its
 * maximum under such a rate (at 1,000,000 replays ~137 MB committed for ~8 MB live after each scavenge); the thread's own
 * heap has a small young generation (`resourceLimits`, Node's public way to bound it; a process-wide V8 flag is no
 * library's to set). And `view`'s event loop stays free during a build of 30 s or more.
 */
import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { Archive } from '../../sinks/archive.js';
import { SinkError, type SinkErrorCode } from '../../sinks/errors.js';
import type { ManifestBytes } from '../../sinks/manifest-lines.js';
import type { BuildReply, BuildRequest, BuildWorkerData, ThreadError } from './build-worker-main.js';
import { BUILD_WORKER_SOURCE } from './build-worker-source.js';
import { CatalogueError, type CatalogueErrorCode } from './errors.js';

/**
 * The build thread's young generation, in MB (`resourceLimits.maxYoungGenerationSizeMb`). Measured at 1,000,000
 * replays (a 1.08 GB local manifest; the process's peak RSS and CPU, two runs each, on two shared cores): 4 MB
 * 165/165 MB and 36.1/36.2 s (smaller is not less); 8 MB 143/137 MB, 36.7/33.2 s; 12 MB 136/136 MB, 34.1/37.0 s;
 * 32 MB 150/149 MB, 35.7/30.3 s. CPU differs by no more than the runs do; 12 MB has the lowest peak.
 */
const YOUNG_GENERATION_MB = 12;
/**
 * The manifest's bytes go to the thread in pieces of this size (a chunk of at least a quarter of it that is its own
 * buffer is given whole: an S3 body's chunks of 64 KiB, a local file's of 1 MiB)...
 */
const PIECE_BYTES = 256 << 10;
/**
 * ...and at most this many bytes are on their way or waiting there at once. Every byte an S3 body brings is first
 * garbage on this thread (node:http's socket reads), which V8 collects only once 64 MB of it pile up (its external
 * memory soft limit); what is in flight adds to that and waits in the thread's heap too. At 1,000,000 replays from
 * s3rver, `view` cold, peak RSS and CPU on two shared cores: 1 MiB pieces, 4 MiB in flight (S3 chunks copied into
 * pieces) 207/198/206 MB, 36.5/36.2/31.7 s; 256 KiB and 1 MiB (S3 chunks given whole) 184/186/181/181/177/183 MB,
 * 38.7/36.5/32.0/32.8/32.7/33.8 s.
 */
const IN_FLIGHT_BYTES = 1 << 20;

export interface BuildResult {
  /** Replays in the catalogue. */
  rows: number;
  /** Manifest entries read. */
  entries: number;
  /** The manifest stamp the rows were read at (undefined: the sink cannot tell, so never current). */
  stamp: string | undefined;
}

/** An error of the build thread as the class it was there. */
function errorOf(e: ThreadError, target: string): Error {
  const context = { index: e.index, target: e.target, key: e.key };
  if (e.kind === 'sink') return new SinkError(e.code as SinkErrorCode, e.message, context);
  if (e.kind === 'catalogue') return new CatalogueError(e.code as CatalogueErrorCode, e.message);
  return new CatalogueError('CATALOGUE_IO', `cannot build the catalogue of ${target}: ${e.message}`);
}

/** The build thread, fed under flow control: `send` waits while `IN_FLIGHT_BYTES` are unanswered. */
class BuildThread {
  readonly #worker: Worker;
  #inFlight = 0;
  #failure: Error | undefined;
  #wake: (() => void) | undefined;
  #done: { rows: number; entries: number } | undefined;

  constructor(data: BuildWorkerData) {
    this.#worker = new Worker(BUILD_WORKER_SOURCE, {
      eval: true,
      workerData: data,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    this.#worker.on('message', (m: BuildReply) => {
      if ('ack' in m) this.#inFlight -= m.ack;
      else if ('done' in m) this.#done = m.done;
      else this.#fail(errorOf(m.error, data.target));
      this.#wake?.();
    });
    this.#worker.on('error', (err) =>
      this.#fail(
        new CatalogueError('CATALOGUE_IO', `the catalogue build of ${data.target} failed: ${err.message}`, {
          cause: err,
        }),
      ),
    );
    this.#worker.on('exit', (code) =>
      this.#fail(new CatalogueError('CATALOGUE_IO', `the catalogue build of ${data.target} ended (exit code ${code})`)),
    );
  }

  #fail(err: Error): void {
    this.#failure ??= err;
    this.#wake?.();
  }

  /** Resolves once `ready()` holds; throws the thread's failure. */
  async #until(ready: () => boolean): Promise<void> {
    for (;;) {
      if (this.#failure !== undefined) throw this.#failure;
      if (ready()) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }

  async send(request: BuildRequest): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    if ('bytes' in request) {
      this.#inFlight += request.length;
      this.#worker.postMessage(request, [request.bytes]);
      await this.#until(() => this.#inFlight <= IN_FLIGHT_BYTES - PIECE_BYTES);
    } else this.#worker.postMessage(request);
  }

  async end(): Promise<{ rows: number; entries: number }> {
    await this.send({ end: true });
    await this.#until(() => this.#done !== undefined);
    return this.#done!;
  }

  async terminate(): Promise<void> {
    this.#failure ??= new CatalogueError('CATALOGUE_IO', 'the catalogue build was stopped');
    await this.#worker.terminate();
  }
}

/**
 * Whether a chunk is its buffer's whole (a file's fresh buffer, as the local manifest reads; an S3 body's chunk, which
 * node:http copies out of each socket read), and so given to the thread as it is: this thread then keeps no garbage
 * of it. Copied instead, the dead buffers wait here for a collection that a heap allocating little rarely makes: at
 * 1,000,000 replays 188 MB peak RSS against 141 MB.
 */
function whole(chunk: Uint8Array): chunk is Uint8Array<ArrayBuffer> {
  return (
    chunk.buffer instanceof ArrayBuffer &&
    chunk.byteOffset === 0 &&
    chunk.byteLength === chunk.buffer.byteLength &&
    chunk.byteLength >= PIECE_BYTES / 4
  );
}

/** The manifest's bytes to the thread: each file announced, its bytes gathered into pieces of `PIECE_BYTES`. */
async function feed(thread: BuildThread, bytes: ManifestBytes): Promise<void> {
  for await (const file of bytes.files) {
    await thread.send({ file: file.key, gzip: file.gzip === true });
    let piece = new Uint8Array(PIECE_BYTES);
    let length = 0;
    const flush = async (): Promise<void> => {
      if (length === 0) return;
      // Transferred, not copied: the thread owns the piece from here.
      await thread.send({ bytes: piece.buffer, length });
      piece = new Uint8Array(PIECE_BYTES);
      length = 0;
    };
    for await (const chunk of file.chunks) {
      if (whole(chunk)) {
        await flush();
        await thread.send({ bytes: chunk.buffer, length: chunk.byteLength });
        continue;
      }
      for (let at = 0; at < chunk.length; ) {
        const n = Math.min(chunk.length - at, PIECE_BYTES - length);
        piece.set(chunk.subarray(at, at + n), length);
        length += n;
        at += n;
        if (length === PIECE_BYTES) await flush();
      }
    }
    await flush();
  }
}

/** Builds the catalogue of `archive` at `path` (replacing the file there once complete). */
export async function buildCatalogue(archive: Archive, path: string): Promise<BuildResult> {
  // The stamp before the read: whatever is appended meanwhile makes the catalogue stale, never silently missing.
  const stamp = await archive.manifest.stamp();
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const bytes = archive.manifest.bytes();
  const thread = new BuildThread({ temp, target: archive.target, newest: bytes.newest, stamp });
  try {
    await feed(thread, bytes);
    const { rows, entries } = await thread.end();
    await rename(temp, path);
    return { rows, entries, stamp };
  } catch (err) {
    // The thread ended before the file is removed: it no longer writes it.
    await thread.terminate();
    await rm(temp, { force: true });
    if (err instanceof Error && 'category' in err) throw err;
    throw new CatalogueError(
      'CATALOGUE_IO',
      `cannot build the catalogue of ${archive.target}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  } finally {
    await thread.terminate();
  }
}
