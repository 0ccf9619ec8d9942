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
import type { HashReply, HashRequest, HashWorkerData } from './hash-worker-main.js';
import { HASH_WORKER_SOURCE } from './hash-worker-source.js';
import type { ReadBack } from './target/temp-file.js';

/** Progress is passed to the worker in steps of at least this many bytes (one message per step). */
const PROGRESS_STEP = 1 << 20;

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
    // The worker's code is compiled from hash-worker-main.ts into a string (scripts/build-inlined.mjs): it needs no file
    // of its own next to this module.
    const workerData: HashWorkerData = { nice };
    this.worker = new Worker(HASH_WORKER_SOURCE, {
      eval: true,
      workerData,
      resourceLimits: { maxYoungGenerationSizeMb: 1 },
    });
    let started: (info: HashWorkerInfo) => void = () => undefined;
    let notStarted: (err: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      started = resolve;
      notStarted = reject;
    });
    this.ready.catch(() => undefined);
    this.worker.on('message', (m: HashReply) => {
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

  open(file: ReadBack, idleMs: number): number {
    const id = this.nextId++;
    this.idleMs = idleMs;
    // An ended worker is no longer in `workers`, so jobs only ever open on a running one.
    clearTimeout(this.idleTimer);
    this.jobs.set(id, {});
    this.send({ id, path: file.path, dev: file.dev, ino: file.ino });
    return id;
  }

  progress(id: number, upTo: number): void {
    if (this.jobs.has(id)) this.send({ id, upTo });
  }

  finish(id: number, upTo: number): Promise<string> {
    const job = this.jobs.get(id);
    if (job === undefined)
      return Promise.reject(this.failure ?? new HashWorkerError('unknown or finished hash job', 'ended'));
    if (job.failure !== undefined) {
      this.jobs.delete(id);
      this.release();
      return Promise.reject(job.failure);
    }
    return new Promise<string>((resolve, reject) => {
      job.pending = { resolve, reject };
      // While a digest is awaited the worker keeps the process alive (an abandoned writer's job does not).
      if (this.waiting++ === 0) this.worker.ref();
      this.send({ id, upTo, end: true });
    });
  }

  cancel(id: number): void {
    if (!this.jobs.delete(id)) return;
    this.release();
    this.send({ id, cancel: true });
  }

  private send(request: HashRequest): void {
    this.worker.postMessage(request);
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

  /** `file`: where the worker opens the file being written (`TempFile.readBack`). `idleMs`: how long the worker stays once it has no job (the next job after that starts a new one). */
  constructor(file: ReadBack, nice: number, idleMs = 30_000) {
    this.worker = workerFor(nice);
    this.id = this.worker.open(file, idleMs);
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
