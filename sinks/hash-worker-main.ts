/**
 * The hashing worker's thread (started by hash-worker.ts). It is not loaded from this file: the build
 * (scripts/build-inlined.mjs) compiles it to CommonJS in sinks/hash-worker-source.ts, which the worker is started
 * from with `eval`, so that it runs the same from the sources (tests), from dist and from a bundled application.
 * It may therefore import only Node's own modules (and types).
 *
 * Messages: `{ id, path, dev, ino }` opens a job (the file the target module handed over: `/proc/self/fd/<fd>` of the
 * writer's own descriptor, or its path where /proc is not there; what is opened must be a regular file of that device
 * and inode, or the job fails); `{ id, upTo }` hashes up to that byte; `{ id, upTo, end: true }` hashes to the
 * end, checks that the file has exactly that size and answers `{ id, sha256 }`; `{ id, cancel: true }` drops a job.
 * Any failure answers `{ id, error, code, size }` (`size`: the file is shorter or longer than reported) and drops the
 * job. Once started it answers `{ ready, tid, niced }`: its thread id and whether its nice value was set.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync } from 'node:fs';
import { setPriority } from 'node:os';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';

export interface HashWorkerData {
  /** The nice value the worker gives its own thread (Linux; 0: left as it is). */
  nice: number;
}

export type HashRequest =
  | { id: number; path: string; dev: number; ino: number }
  | { id: number; upTo: number; end?: true }
  | { id: number; cancel: true };

export type HashReply =
  | { ready: true; tid: number; niced: boolean }
  | { id: number; sha256: string }
  | { id: number; error: string; code?: string | undefined; size: boolean };

/** The worker reads the file back in pieces of this size (one buffer, reused). */
const READ_PIECE = 256 << 10;

interface Job {
  fd: number;
  /** Bytes hashed so far. */
  pos: number;
  hash: Hash;
}

/** The file is shorter or longer than the bytes reported written. */
class SizeMismatch extends Error {}

/** What the path opens is not the file being written (swapped, or the descriptor's number reused). */
class NotTheFile extends Error {
  readonly code = 'ESTALE';
}

/**
 * Opens the file to hash: never blocking (O_NONBLOCK: a FIFO put in its place), never through a link put at a path
 * (O_NOFOLLOW; `/proc/self/fd/<fd>` is the kernel's own link to the open file, followed), and only the very file the
 * writer holds (device and inode), a regular file.
 */
function openChecked(path: string, dev: number, ino: number): number {
  const byDescriptor = path.startsWith('/proc/self/fd/');
  const fd = openSync(
    path,
    constants.O_RDONLY | (constants.O_NONBLOCK || 0) | (byDescriptor ? 0 : constants.O_NOFOLLOW || 0),
  );
  const st = fstatSync(fd);
  if (!st.isFile() || st.dev !== dev || st.ino !== ino) {
    closeSync(fd);
    throw new NotTheFile(`${path} is not the file being written`);
  }
  return fd;
}

function run(port: MessagePort, data: HashWorkerData): void {
  const post = (reply: HashReply): void => port.postMessage(reply);
  let tid = 0;
  let niced = false;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (data.nice !== 0) {
      setPriority(tid, data.nice);
      niced = true;
    }
  } catch {
    // Not Linux, or not allowed: the worker runs at the process's priority.
  }
  post({ ready: true, tid, niced });
  const jobs = new Map<number, Job>();
  const piece = Buffer.allocUnsafe(READ_PIECE);
  function drop(id: number, job: Job): void {
    jobs.delete(id);
    try {
      closeSync(job.fd);
    } catch {
      // Already closed: nothing to release.
    }
  }
  port.on('message', (m: HashRequest) => {
    const job = jobs.get(m.id);
    try {
      if ('path' in m) {
        jobs.set(m.id, { fd: openChecked(m.path, m.dev, m.ino), pos: 0, hash: createHash('sha256') });
        return;
      }
      if (job === undefined) return;
      if ('cancel' in m) return drop(m.id, job);
      while (job.pos < m.upTo) {
        const n = readSync(job.fd, piece, 0, Math.min(piece.length, m.upTo - job.pos), job.pos);
        if (n === 0) throw new SizeMismatch(`the file ends at byte ${job.pos}, ${m.upTo} were written`);
        job.hash.update(n === piece.length ? piece : piece.subarray(0, n));
        job.pos += n;
      }
      if (m.end) {
        const size = fstatSync(job.fd).size;
        if (size !== m.upTo) throw new SizeMismatch(`the file has ${size} bytes, ${m.upTo} were written`);
        drop(m.id, job);
        post({ id: m.id, sha256: job.hash.digest('hex') });
      }
    } catch (e) {
      if (job !== undefined) drop(m.id, job);
      const err = e as NodeJS.ErrnoException | undefined;
      post({ id: m.id, error: String(err?.message || err), code: err?.code, size: e instanceof SizeMismatch });
    }
  });
}

// Run only as the worker (imported on the main thread, it does nothing).
if (parentPort !== null) run(parentPort, workerData as HashWorkerData);
