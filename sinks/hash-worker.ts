/**
 * A worker thread that computes the SHA-256 of files as they are written, by reading the written bytes back (from the
 * page cache, on its own thread), so that the thread that decodes does not hash. One worker per process, started on
 * first use, shared by every job, keeping the process alive only while a digest is awaited, and ended when idle.
 *
 * On Linux the worker lowers its own priority (a nice value, default 10): it then runs on the time that decoding and
 * gunzip leave free and does not take a core from them. Measured on two cores (200 MB export, same-run ratio against
 * gunzip + write): hashing on the main thread 0.69x, on this worker at nice 0 0.66-0.67x (it competes with gunzip), at
 * nice 5-19 0.75-0.81x. A nice value only ranks threads within the process's scheduling group (autogroup, container
 * cgroup); against other busy processes in the same group the worker gets less time, and a commit waits for it.
 */

import { Worker } from 'node:worker_threads';

/** The worker reads the file back in pieces of this size (one buffer, reused). */
const READ_PIECE = 256 << 10;

/** Progress is passed to the worker in steps of at least this many bytes (one message per step). */
const PROGRESS_STEP = 1 << 20;

/**
 * The worker's code (CommonJS, run with `eval`, so that it needs no file of its own next to the compiled module).
 * Messages: `{ id, path }` opens a job; `{ id, upTo }` hashes up to that byte; `{ id, upTo, end: true }` hashes to the
 * end, checks that the file has exactly that size and answers `{ id, sha256 }`; `{ id, cancel: true }` drops a job.
 * Any failure answers `{ id, error, code, size }` (`size`: the file is shorter or longer than reported) and drops the job.
 */
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { closeSync, constants, fstatSync, openSync, readlinkSync, readSync } = require('node:fs');
const { setPriority } = require('node:os');
let tid = 0;
let niced = false;
try {
  tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (workerData.nice !== 0) { setPriority(tid, workerData.nice); niced = true; }
} catch {}
parentPort.postMessage({ ready: true, tid, niced });
const jobs = new Map();
const piece = Buffer.allocUnsafe(${READ_PIECE});
function drop(id, job) {
  jobs.delete(id);
  try { closeSync(job.fd); } catch {}
}
parentPort.on('message', (m) => {
  const job = jobs.get(m.id);
  try {
    if (m.path !== undefined) {
      // O_NOFOLLOW: a symbolic link put in the temporary file's place is not read through (ELOOP).
      jobs.set(m.id, { fd: openSync(m.path, constants.O_RDONLY | (constants.O_NOFOLLOW || 0)), pos: 0, hash: createHash('sha256') });
      return;
    }
    if (job === undefined) return;
    if (m.cancel) return drop(m.id, job);
    while (job.pos < m.upTo) {
      const n = readSync(job.fd, piece, 0, Math.min(piece.length, m.upTo - job.pos), job.pos);
      if (n === 0) throw Object.assign(new Error('the file ends at byte ' + job.pos + ', ' + m.upTo + ' were written'), { size: true });
      job.hash.update(n === piece.length ? piece : piece.subarray(0, n));
      job.pos += n;
    }
    if (m.end) {
      const size = fstatSync(job.fd).size;
      if (size !== m.upTo) throw Object.assign(new Error('the file has ' + size + ' bytes, ' + m.upTo + ' were written'), { size: true });
      drop(m.id, job);
      parentPort.postMessage({ id: m.id, sha256: job.hash.digest('hex') });
    }
  } catch (e) {
    if (job !== undefined) drop(m.id, job);
    parentPort.postMessage({ id: m.id, error: String((e && e.message) || e), code: e && e.code, size: Boolean(e && e.size) });
  }
});
`;

/**
 * Why a job failed: the file does not have the size reported (`kind: 'size'`), reading it failed (`'io'`, with the
 * system error `code`), or the worker ended (`'ended'`).
 */
export class HashWorkerError extends Error {
  override readonly name = 'HashWorkerError';

  constructor(
    message: string,
    readonly kind: 'size' | 'io' | 'ended',
    readonly code?: string,
  ) {
    super(message);
  }
}

type Reply =
  | { ready: true; tid: number; niced: boolean }
  | { id: number; sha256: string }
  | { id: number; error: string; code?: string; size: boolean };

interface Pending {
  resolve(hex: string): void;
  reject(err: Error): void;
}

/** Where the worker runs, once it has started: its thread id and whether its nice value was set. */
export interface HashWorkerInfo {
  tid: number;
  niced: boolean;
}

class HashWorker {
  private readonly worker: Worker;
  private readonly jobs = new Map<number, { pending?: Pending; failure?: Error }>();
  /** Jobs whose digest is awaited (`finish` called, no answer yet). */
  private waiting = 0;
  /** Ends the worker once it has had no job for `idleMs` (a long-running host does not keep its thread for nothing). */
  private idleTimer: NodeJS.Timeout | undefined;
  private idleMs = 0;
  private nextId = 1;
  private failure: Error | undefined;
  readonly ready: Promise<HashWorkerInfo>;

  constructor(
    readonly nice: number,
    private readonly onEnd: (w: HashWorker) => void,
  ) {
    // The worker allocates next to nothing on its heap: a small young generation keeps its memory down (~1 MB less).
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { nice }, resourceLimits: { maxYoungGenerationSizeMb: 1 } });
    let started: (info: HashWorkerInfo) => void = () => undefined;
    let notStarted: (err: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      started = resolve;
      notStarted = reject;
    });
    this.ready.catch(() => undefined);
    this.worker.on('message', (m: Reply) => {
      if ('ready' in m) return started({ tid: m.tid, niced: m.niced });
      const job = this.jobs.get(m.id);
      if (job === undefined) return;
      const outcome = 'sha256' in m ? m.sha256 : new HashWorkerError(m.error, m.size ? 'size' : 'io', m.code);
      if (job.pending === undefined) {
        // Failed before its end was asked for: kept for `finish`.
        if (typeof outcome !== 'string') job.failure = outcome;
        return;
      }
      this.jobs.delete(m.id);
      this.release();
      // Nobody else waiting for a digest: the worker no longer keeps the process alive.
      if (--this.waiting === 0) this.worker.unref();
      if (typeof outcome === 'string') job.pending.resolve(outcome);
      else job.pending.reject(outcome);
    });
    const end = (err: Error): void => {
      if (this.failure !== undefined) return;
      this.failure = err;
      notStarted(err);
      this.onEnd(this);
      for (const job of this.jobs.values()) job.pending?.reject(err);
      this.jobs.clear();
    };
    this.worker.on('error', (err) => end(new HashWorkerError(`the hashing thread failed: ${err.message}`, 'ended')));
    this.worker.on('exit', (code) => end(new HashWorkerError(`the hashing thread ended (exit code ${code})`, 'ended')));
    this.worker.unref();
  }

  open(path: string, idleMs: number): number {
    const id = this.nextId++;
    this.idleMs = idleMs;
    // An ended worker is no longer in `workers`, so jobs only ever open on a running one.
    clearTimeout(this.idleTimer);
    this.jobs.set(id, {});
    this.worker.postMessage({ id, path });
    return id;
  }

  progress(id: number, upTo: number): void {
    if (this.jobs.has(id)) this.worker.postMessage({ id, upTo });
  }

  finish(id: number, upTo: number): Promise<string> {
    const job = this.jobs.get(id);
    if (job === undefined) return Promise.reject(this.failure ?? new HashWorkerError('unknown or finished hash job', 'ended'));
    if (job.failure !== undefined) {
      this.jobs.delete(id);
      this.release();
      return Promise.reject(job.failure);
    }
    return new Promise<string>((resolve, reject) => {
      job.pending = { resolve, reject };
      // While a digest is awaited the worker keeps the process alive (an abandoned writer's job does not).
      if (this.waiting++ === 0) this.worker.ref();
      this.worker.postMessage({ id, upTo, end: true });
    });
  }

  cancel(id: number): void {
    if (!this.jobs.delete(id)) return;
    this.release();
    this.worker.postMessage({ id, cancel: true });
  }

  private release(): void {
    if (this.jobs.size !== 0 || this.failure !== undefined) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.jobs.size === 0) void this.stop();
    }, this.idleMs).unref();
  }

  stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    this.onEnd(this);
    return this.worker.terminate().then(() => undefined);
  }
}

/** The running workers, by nice value (a process normally has one: its sinks share the default). */
const workers = new Map<number, HashWorker>();

function workerFor(nice: number): HashWorker {
  let w = workers.get(nice);
  if (w === undefined) {
    w = new HashWorker(nice, (ended) => {
      if (workers.get(nice) === ended) workers.delete(nice);
    });
    workers.set(nice, w);
  }
  return w;
}

/**
 * The SHA-256 of one file, hashed by the worker as the file's writer reports bytes written. Call `progress` with the
 * number of bytes written so far (in order, from the start of the file), then `finish` with the final size; or
 * `cancel`.
 */
export class FileHashJob {
  private readonly worker: HashWorker;
  private readonly id: number;
  private ended = false;
  /** Bytes reported to the worker so far. */
  private reported = 0;

  /** `idleMs`: how long the worker stays once it has no job (the next job after that starts a new one). */
  constructor(path: string, nice: number, idleMs = 30_000) {
    this.worker = workerFor(nice);
    this.id = this.worker.open(path, idleMs);
  }

  progress(written: number): void {
    if (this.ended || written - this.reported < PROGRESS_STEP) return;
    this.reported = written;
    this.worker.progress(this.id, written);
  }

  /** Hex SHA-256 of the file's `size` bytes; rejects with a `HashWorkerError` when the file is not that long. */
  finish(size: number): Promise<string> {
    this.ended = true;
    return this.worker.finish(this.id, size);
  }

  cancel(): void {
    if (this.ended) return;
    this.ended = true;
    this.worker.cancel(this.id);
  }
}

/** Thread id of the running worker with this nice value and whether the value was set (`undefined`: none runs). */
export function hashWorkerInfo(nice: number): Promise<HashWorkerInfo> | undefined {
  return workers.get(nice)?.ready;
}

/** Ends the workers now (their jobs in flight fail); the next job starts a new one. Not needed before exit. */
export async function stopHashWorkers(): Promise<void> {
  const all = [...workers.values()];
  workers.clear();
  await Promise.all(all.map((w) => w.stop()));
}
