import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ReplayEncoder } from './encode.js';
import { HashWorkerError } from './hash-worker.js';
import { OutputHash, resolveHashWorker, type HashWorkerOptions, type HashWorkerSettings } from './output-hash.js';
import { writeAll, WriteAhead } from './write-ahead.js';
import { describeCause, SinkError } from './errors.js';
import { replayKey } from './keys.js';
import { parseManifestStream, serializeManifestEntry } from './manifest-lines.js';
import type { CommitResult, EventRun, ManifestEntry, OutputSpec, ReplayWriter, Sink } from './sink.js';

export const MANIFEST_FILE = 'manifest.ndjson';

export interface LocalSinkOptions {
  /**
   * On `open`, delete temporary files left at the same key by processes of this machine that no longer run
   * (default true). Temporary files never occupy a final name, so leaving them is harmless but wastes space.
   */
  cleanStaleTemp?: boolean;
  /**
   * The SHA-256 of an output larger than `fromBytes` (default 4 MiB) that is produced at `minRate` or faster (default
   * 200 MB/s) is computed by a worker thread that reads the written file back at a lowered priority (nice 10 on
   * Linux), instead of by the thread that decodes; `false` hashes every output on the calling thread (as does
   * `REPLAY_EXPORT_HASH_WORKER=0`). See `sinks/output-hash.ts` and `sinks/hash-worker.ts`.
   */
  hashWorker?: HashWorkerOptions | false;
}

const TEMP_SUFFIX = '.tmp';

/** `.<final name>.<pid>.<random>.tmp`, next to the final file. */
function tempName(finalName: string): string {
  return `.${finalName}.${process.pid}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`;
}

function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Flushes a directory entry (rename, create) to disk. Not possible on Windows; skipped there. */
async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel.length > 0 && !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel);
}

/**
 * A sink writing to a folder on this machine: `<dir>/<device>/<session>.json[.gz]` and `<dir>/manifest.ndjson`.
 * Each replay is written to a temporary file beside its final name, fsynced, renamed into place and the folder
 * fsynced, so a final name only ever holds a complete output.
 */
export function createLocalSink(dir: string, opts: LocalSinkOptions = {}): Sink {
  const root = resolve(dir);
  const manifestPath = join(root, MANIFEST_FILE);
  const cleanStale = opts.cleanStaleTemp ?? true;
  const hashWorker = resolveHashWorker(opts.hashWorker);
  let realRoot: Promise<string> | undefined;
  let manifestHandle: Promise<FileHandle> | undefined;
  let manifestChain: Promise<void> = Promise.resolve();
  let firstAppend = true;
  let closed = false;

  const ensureRoot = (): Promise<string> => {
    realRoot ??= (async () => {
      await mkdir(root, { recursive: true });
      return realpath(root);
    })();
    realRoot.catch(() => {
      realRoot = undefined;
    });
    return realRoot;
  };

  /** Absolute path of a key, refusing anything that would land outside the target. */
  const pathOf = (key: string): string => {
    const path = resolve(root, ...key.split('/'));
    if (key.length === 0 || key.includes('\\') || key.includes('\0') || !isInside(root, path)) {
      throw new SinkError('SINK_PATH_ESCAPE', 'key resolves outside the target', { target: root, key });
    }
    return path;
  };

  /** Creates the key's folder and checks that, symlinks resolved, it is still inside the target. */
  const prepareDir = async (path: string, key: string): Promise<string> => {
    const base = await ensureRoot();
    const folder = dirname(path);
    const created = await mkdir(folder, { recursive: true });
    const real = await realpath(folder);
    if (real !== base && !isInside(base, real)) {
      throw new SinkError('SINK_PATH_ESCAPE', 'key folder resolves outside the target (symlink?)', { target: root, key });
    }
    if (created !== undefined) await fsyncDir(dirname(folder));
    return folder;
  };

  const removeStaleTemps = async (folder: string, finalName: string): Promise<void> => {
    const prefix = `.${finalName}.`;
    for (const name of await readdir(folder)) {
      if (!name.startsWith(prefix) || !name.endsWith(TEMP_SUFFIX)) continue;
      const middle = name.slice(prefix.length, -TEMP_SUFFIX.length).split('.');
      const pid = Number(middle[0]);
      if (middle.length !== 2 || !Number.isSafeInteger(pid) || pid <= 0 || pidIsAlive(pid)) continue;
      await unlink(join(folder, name)).catch(() => undefined);
    }
  };

  const sink: Sink = {
    target: root,

    keyFor(replayId: string, output: OutputSpec): string {
      return replayKey(replayId, output);
    },

    async open(replayId: string, output: OutputSpec): Promise<ReplayWriter> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target: root, replayId });
      const key = replayKey(replayId, output);
      const context = { target: root, key, replayId };
      const finalPath = pathOf(key);
      const finalName = basename(finalPath);
      let folder: string;
      let tempPath: string;
      let handle: FileHandle;
      try {
        folder = await prepareDir(finalPath, key);
        if (cleanStale) await removeStaleTemps(folder, finalName);
        tempPath = join(folder, tempName(finalName));
        handle = await open(tempPath, 'wx', 0o644);
      } catch (err) {
        if (err instanceof SinkError) throw err;
        throw new SinkError('SINK_IO', `cannot create the temporary file: ${describeCause(err)}`, { ...context, cause: err });
      }
      return new LocalReplayWriter(key, context, folder, tempPath, finalPath, handle, output, hashWorker);
    },

    async exists(key: string): Promise<boolean> {
      const path = pathOf(key);
      try {
        return (await stat(path)).isFile();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') {
          return false;
        }
        throw new SinkError('SINK_IO', `cannot check ${key}: ${describeCause(err)}`, { target: root, key, cause: err });
      }
    },

    appendManifest(entry: ManifestEntry): Promise<void> {
      if (closed) return Promise.reject(new SinkError('SINK_STATE', 'sink is closed', { target: root }));
      const line = serializeManifestEntry(entry);
      const run = async (): Promise<void> => {
        try {
          const handle = await manifestFile();
          let bytes = line;
          if (firstAppend) {
            // A previous run killed mid-append may have left a line without `\n`: end it, so that this line
            // does not merge into it.
            if (await endsInTornLine(manifestPath)) bytes = Buffer.concat([Buffer.from('\n'), line]);
            firstAppend = false;
          }
          // One write of the whole line with O_APPEND: lines of several processes never interleave.
          await writeAll(handle, bytes);
          await handle.datasync();
        } catch (err) {
          throw new SinkError('SINK_IO', `cannot append to the manifest: ${describeCause(err)}`, {
            target: root,
            key: MANIFEST_FILE,
            replayId: entry.replay_id,
            cause: err,
          });
        }
      };
      const result = manifestChain.then(run);
      manifestChain = result.catch(() => undefined);
      return result;
    },

    async *readManifest(): AsyncIterable<ManifestEntry> {
      try {
        await stat(manifestPath);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw new SinkError('SINK_IO', `cannot read the manifest: ${describeCause(err)}`, { target: root, key: MANIFEST_FILE });
      }
      yield* parseManifestStream(createReadStream(manifestPath) as AsyncIterable<Buffer>, root);
    },

    async close(): Promise<void> {
      closed = true;
      await manifestChain;
      if (manifestHandle !== undefined) {
        const handle = await manifestHandle.catch(() => undefined);
        manifestHandle = undefined;
        await handle?.close();
      }
    },
  };

  const manifestFile = (): Promise<FileHandle> => {
    manifestHandle ??= (async () => {
      await ensureRoot();
      let created = false;
      try {
        await stat(manifestPath);
      } catch {
        created = true;
      }
      const handle = await open(manifestPath, 'a', 0o644);
      if (created) await fsyncDir(root);
      return handle;
    })();
    manifestHandle.catch(() => {
      manifestHandle = undefined;
    });
    return manifestHandle;
  };

  return sink;
}

/** Checks of a manifest end that looks torn, and the pause between them (only on a process's first append). */
const TORN_CHECKS = 4;
const TORN_CHECK_PAUSE_MS = 25;
const TORN_MAX_LOOKS = 40;

/**
 * Whether the manifest ends inside a line that no process is still writing (a writer killed mid-append). A line
 * being appended by another process at this moment also looks unfinished — its size grows page by page — so a
 * missing final `\n` only counts once the size has stopped changing; otherwise this process would add a blank line.
 */
async function endsInTornLine(path: string): Promise<boolean> {
  let size = (await stat(path)).size;
  let stable = 1;
  for (let look = 0; look < TORN_MAX_LOOKS; look++) {
    if (size === 0 || (await endsWithNewline(path, size))) return false;
    if (stable === TORN_CHECKS) return true;
    await delay(TORN_CHECK_PAUSE_MS);
    const now = (await stat(path)).size;
    // Another process is appending: look at the new end afresh.
    stable = now === size ? stable + 1 : 1;
    size = now;
  }
  // Busy with other writers all along: leave it (a reader recovers an entry glued to a torn fragment).
  return false;
}

async function endsWithNewline(path: string, size: number): Promise<boolean> {
  const reader = await open(path, 'r');
  try {
    const buf = Buffer.alloc(1);
    await reader.read(buf, 0, 1, size - 1);
    return buf[0] === 0x0a;
  } finally {
    await reader.close();
  }
}

type WriterState = 'open' | 'committing' | 'committed' | 'aborted';

class LocalReplayWriter implements ReplayWriter {
  private state: WriterState = 'open';
  private readonly encoder: ReplayEncoder;
  private readonly file: WriteAhead;
  private handleClosed = false;
  private readonly hash: OutputHash;

  constructor(
    readonly key: string,
    private readonly context: { target: string; key: string; replayId: string },
    private readonly folder: string,
    private readonly tempPath: string,
    private readonly finalPath: string,
    private readonly handle: FileHandle,
    output: OutputSpec,
    hashWorker: HashWorkerSettings,
  ) {
    const hash = new OutputHash(tempPath, hashWorker);
    this.hash = hash;
    const file = new WriteAhead(handle, (bytes) => hash.written(bytes));
    this.file = file;
    const target = {
      write: (chunk: Buffer) => {
        hash.update([chunk]);
        return file.write(chunk);
      },
      writev: (chunks: readonly Buffer[]) => {
        hash.update(chunks);
        return file.writev(chunks);
      },
    };
    this.encoder = new ReplayEncoder(output, target, context, { hash: false });
  }

  write(events: readonly Buffer[]): Promise<void> {
    return this.feed(() => this.encoder.write(events));
  }

  writeRuns(runs: readonly EventRun[]): Promise<void> {
    return this.feed(() => this.encoder.writeRuns(runs));
  }

  /** Hands events to the encoder while open; any failure aborts the output (temporary file removed). */
  private async feed(encode: () => Promise<void>): Promise<void> {
    if (this.state !== 'open') throw new SinkError('SINK_STATE', `write after ${this.state}`, this.context);
    try {
      await encode();
    } catch (err) {
      await this.abort(err);
      throw this.wrap(err, 'cannot write the temporary file');
    }
  }

  async commit(): Promise<CommitResult> {
    if (this.state !== 'open') throw new SinkError('SINK_STATE', `commit after ${this.state}`, this.context);
    this.state = 'committing';
    try {
      const summary = await this.encoder.finish();
      await this.file.drain();
      // The worker finishes hashing while the file is flushed; both are waited for before anything else happens.
      const [hashed, synced] = await Promise.allSettled([this.hash.digest(summary.bytes), this.handle.sync()]);
      if (synced.status === 'rejected') throw synced.reason;
      if (hashed.status === 'rejected') throw hashed.reason;
      const sha256 = hashed.value;
      await this.closeHandle();
      await rename(this.tempPath, this.finalPath);
      this.state = 'committed';
      await fsyncDir(this.folder);
      return { key: this.key, bytes: summary.bytes, sha256, eventCount: summary.eventCount };
    } catch (err) {
      if (this.state !== 'committed') {
        this.state = 'open';
        await this.abort(err);
      }
      throw this.wrap(err, 'cannot commit the replay');
    }
  }

  async abort(reason?: unknown): Promise<void> {
    if (this.state === 'aborted' || this.state === 'committed') return;
    this.state = 'aborted';
    this.encoder.destroy(reason);
    this.hash.cancel();
    await this.file.settle();
    await this.closeHandle().catch(() => undefined);
    await unlink(this.tempPath).catch(() => undefined);
  }

  private async closeHandle(): Promise<void> {
    if (this.handleClosed) return;
    this.handleClosed = true;
    await this.handle.close();
  }

  private wrap(err: unknown, what: string): SinkError {
    if (err instanceof SinkError) return err;
    if (err instanceof HashWorkerError && err.kind === 'size') {
      return new SinkError('SINK_INTEGRITY', `${what}: the temporary file is not what was written (${err.message})`, { ...this.context, cause: err });
    }
    return new SinkError('SINK_IO', `${what}: ${describeCause(err)}`, { ...this.context, cause: err });
  }
}
