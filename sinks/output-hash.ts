/**
 * The SHA-256 of a local output file: hashed on the calling thread while the file is small or produced slowly, and
 * handed to the hashing worker (hash-worker.ts) once it has passed `fromBytes` while being produced at `minRate` or
 * faster (checked every `RATE_WINDOW` bytes). The worker then hashes the file from its first byte, reading back what has
 * been written, and the calling thread stops hashing; the bytes hashed before the hand-over are hashed twice.
 *
 * Why a rate: SHA-256 runs at ~2 GB/s on one core (with the CPU's SHA instructions), so at 200 MB/s of output it is
 * ~10% of the calling thread's time, at the 800 MB/s of a version 3 export from memory ~40%. Below that, the worker's
 * thread and ~10 MB of memory buy little: a version 2 export (~90 MB/s) or one bound by the network keeps the hash
 * on the calling thread.
 */

import { createHash, type Hash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { SinkError } from './errors.js';
import { FileHashJob } from './hash-worker.js';
import type { ReadBack } from './target/temp-file.js';

/** Where a local output's SHA-256 is computed (`LocalSinkOptions.hashWorker`). */
export interface HashWorkerOptions {
  /** Outputs up to this many bytes are hashed on the calling thread; a larger one goes to the worker (default 4 MiB). */
  fromBytes?: number;
  /** The worker thread's nice value on Linux, 0-19 (default 10); 0 leaves its priority as it is. */
  nice?: number;
  /**
   * Hand over only while the output is produced at least this fast, bytes per second of wall time (default 200 MB/s,
   * where hashing takes ~10% of the calling thread); 0: always, once past `fromBytes`.
   */
  minRate?: number;
  /** The worker ends after this long without a job (default 30 s); the next large output starts a new one (~30 ms, in the background). */
  idleMs?: number;
}

export const HASH_WORKER_DEFAULTS: Readonly<Required<HashWorkerOptions>> = {
  fromBytes: 4 << 20,
  nice: 10,
  minRate: 200e6,
  idleMs: 30_000,
};

/** Settings in force: every option set, or `false` (hash on the calling thread). */
export type HashWorkerSettings = Readonly<Required<HashWorkerOptions>> | false;

/** The production rate is measured over windows of this many bytes. */
const RATE_WINDOW = 4 << 20;

/**
 * The worker settings to use, or `false` to hash on the calling thread: `options` false, or a machine where the
 * worker's priority cannot be lowered (not Linux) and that has fewer than four cores, where a worker at normal
 * priority was measured slower than no worker. No environment variable is read here: `REPLAY_EXPORT_HASH_WORKER=0`
 * is turned into `hashWorker: false` by the pipeline's settings (`src/pipeline/settings.ts`).
 */
export function resolveHashWorker(options: HashWorkerOptions | false | undefined): HashWorkerSettings {
  if (options === false) return false;
  const resolved = { ...HASH_WORKER_DEFAULTS, ...options };
  const refuse = (name: keyof HashWorkerOptions, what: string): never => {
    throw new SinkError('SINK_CONFIG', `hashWorker.${name} must be ${what}, got ${String(resolved[name])}`);
  };
  const { fromBytes, nice, minRate, idleMs } = resolved;
  if (!Number.isSafeInteger(fromBytes) || fromBytes < 0) refuse('fromBytes', 'a whole number of bytes >= 0');
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) refuse('nice', 'a whole number from 0 to 19');
  if (!Number.isFinite(minRate) || minRate < 0) refuse('minRate', 'a number of bytes per second >= 0');
  if (!Number.isSafeInteger(idleMs) || idleMs < 0) refuse('idleMs', 'a whole number of milliseconds >= 0');
  if (process.platform !== 'linux' && availableParallelism() < 4) return false;
  return resolved;
}

/** One output's SHA-256: fed the bytes as they are handed to the file, told as writes complete. */
export class OutputHash {
  private readonly hash: Hash = createHash('sha256');
  private handed = 0;
  private job: FileHashJob | undefined;
  /** The current rate window: when and at which byte it started, and the byte at which it is looked at. */
  private windowAt = 0;
  private windowFrom = 0;
  private nextLook = 0;

  constructor(
    /** Where the worker reads the file back (`TempFile.readBack`), asked when it is handed over. */
    private readonly file: () => ReadBack,
    private readonly worker: HashWorkerSettings,
  ) {}

  /** Bytes about to be written, in order. */
  update(parts: readonly Buffer[]): void {
    if (this.job !== undefined) return;
    if (this.handed === 0) this.windowAt = performance.now();
    for (const part of parts) this.handed += part.length;
    if (this.worker !== false && this.handed > this.worker.fromBytes && this.handed >= this.nextLook) {
      const now = performance.now();
      const rate = ((this.handed - this.windowFrom) * 1000) / Math.max(now - this.windowAt, 1e-3);
      if (rate >= this.worker.minRate) {
        this.job = new FileHashJob(this.file(), this.worker.nice, this.worker.idleMs);
        return;
      }
      this.windowAt = now;
      this.windowFrom = this.handed;
      this.nextLook = this.handed + RATE_WINDOW;
    }
    for (const part of parts) this.hash.update(part);
  }

  /** The file now holds its first `bytes` bytes (reported by the writer as writes complete). */
  written(bytes: number): void {
    this.job?.progress(bytes);
  }

  /** Hex SHA-256 of the file, once all its `size` bytes are written. */
  digest(size: number): Promise<string> {
    if (this.job !== undefined) return this.job.finish(size);
    return Promise.resolve(this.hash.digest('hex'));
  }

  cancel(): void {
    this.job?.cancel();
  }
}
