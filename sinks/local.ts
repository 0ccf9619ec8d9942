import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ReplayEncoder } from './encode.js';
import { HashWorkerError } from './hash-worker.js';
import { areRealFolders, FolderUsers, makeFolders, NotAFolderError, removeEmptyFolders } from './local-folders.js';
import { OutputHash, resolveHashWorker, type HashWorkerOptions, type HashWorkerSettings } from './output-hash.js';
import { fsyncDir, isSymlinkRefusal, O_NOFOLLOW, TempFile, tempNamePid } from './temp-file.js';
import { writeAll } from './write-ahead.js';
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
   * Linux), instead of by the thread that decodes; `false` hashes every output on the calling thread (the pipeline
   * passes `false` when `REPLAY_EXPORT_HASH_WORKER=0`). See `sinks/output-hash.ts` and `sinks/hash-worker.ts`.
   */
  hashWorker?: HashWorkerOptions | false;
}

/**
 * How many times `open` makes a key's folder again when it vanished before the temporary file was created in it (a
 * replay of another process, failing, removed it while empty). Each retry needs another removal at that very moment.
 */
const FOLDER_ATTEMPTS = 10;

/** The manifest is opened for appending (O_APPEND: each line one write) and reading back its last byte. */
const MANIFEST_APPEND = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | O_NOFOLLOW;
/** O_NONBLOCK: a FIFO planted at the name does not block the open (it is then refused as not a file). */
const MANIFEST_READ = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);

function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
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
  const folderUsers = new FolderUsers();
  let rootMade: Promise<void> | undefined;
  let manifestHandle: Promise<FileHandle> | undefined;
  let manifestChain: Promise<void> = Promise.resolve();
  let firstAppend = true;
  let closed = false;

  /** Makes the target folder (it may be a symbolic link the user chose: followed, unlike anything below it). */
  const ensureRoot = (): Promise<void> => {
    rootMade ??= mkdir(root, { recursive: true }).then(() => undefined);
    rootMade.catch(() => {
      rootMade = undefined;
    });
    return rootMade;
  };

  /** Absolute path of a key, refusing anything that would land outside the target. */
  const pathOf = (key: string): string => {
    const path = resolve(root, ...key.split('/'));
    if (key.length === 0 || key.includes('\\') || key.includes('\0') || !isInside(root, path)) {
      throw new SinkError('SINK_PATH_ESCAPE', `key ${JSON.stringify(key)} resolves outside the target`, { target: root, key });
    }
    return path;
  };

  /** A manifest that is not a regular file (a symbolic link, a FIFO, a folder) is refused: it is the run's record. */
  const manifestRefused = (what: string, cause?: unknown): SinkError =>
    new SinkError('SINK_PATH_ESCAPE', `${MANIFEST_FILE} in ${root} ${what}; refusing to use it as the manifest`, {
      target: root,
      key: MANIFEST_FILE,
      ...(cause === undefined ? {} : { cause }),
    });

  const openManifest = async (flags: number): Promise<FileHandle> => {
    let handle: FileHandle;
    try {
      handle = await open(manifestPath, flags, 0o644);
    } catch (err) {
      if (isSymlinkRefusal(err)) throw manifestRefused('is a symbolic link', err);
      throw err;
    }
    const st = await handle.stat().catch(async (err: unknown) => {
      await handle.close();
      throw err;
    });
    if (!st.isFile()) {
      await handle.close();
      throw manifestRefused('is not a regular file');
    }
    return handle;
  };

  /** Stale temporary files of this key: left by processes of this machine that no longer run. */
  const removeStaleTemps = async (folder: string, finalName: string): Promise<void> => {
    for (const name of await readdir(folder)) {
      const pid = tempNamePid(name, finalName);
      if (pid === undefined || pidIsAlive(pid)) continue;
      await unlink(join(folder, name)).catch(() => undefined);
    }
  };

  /** A writer of `folder` ended: the last one to end without an output removes the folder if it is empty. */
  const leaveFolder = async (folder: string, committed: boolean): Promise<void> => {
    if (folderUsers.leave(folder) && !committed) await removeEmptyFolders(root, folder);
  };

  /** Makes the key's folder (each component a real folder) and creates the temporary file in it. */
  const createTemp = async (folder: string, finalName: string): Promise<TempFile> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await ensureRoot();
        await makeFolders(root, folder);
        if (cleanStale) await removeStaleTemps(folder, finalName);
        return await TempFile.create(folder, finalName);
      } catch (err) {
        // Another process's replay, failing, removed the folder while it was empty: make it again.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === FOLDER_ATTEMPTS) throw err;
      }
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
      const folder = dirname(finalPath);
      folderUsers.enter(folder);
      let file: TempFile;
      try {
        file = await createTemp(folder, basename(finalPath));
      } catch (err) {
        await leaveFolder(folder, false);
        if (err instanceof NotAFolderError) {
          if (err.kind === 'symlink') {
            throw new SinkError('SINK_PATH_ESCAPE', `cannot write ${key}: ${err.message}; refusing to write through it`, { ...context, cause: err });
          }
          throw new SinkError('SINK_IO', `cannot write ${key}: ${err.message}`, { ...context, cause: err });
        }
        throw new SinkError('SINK_IO', `cannot create the temporary file of ${key}: ${describeCause(err)}`, { ...context, cause: err });
      }
      return new LocalReplayWriter(key, context, file, output, hashWorker, (committed) => leaveFolder(folder, committed));
    },

    async exists(key: string): Promise<boolean> {
      const path = pathOf(key);
      try {
        // Neither the key nor its folders are followed when they are symbolic links: such an output is not ours.
        return (await areRealFolders(root, dirname(path))) && (await lstat(path)).isFile();
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
            if (await endsInTornLine(handle)) bytes = Buffer.concat([Buffer.from('\n'), line]);
            firstAppend = false;
          }
          // One write of the whole line with O_APPEND: lines of several processes never interleave.
          await writeAll(handle, bytes);
          await handle.datasync();
        } catch (err) {
          if (err instanceof SinkError) throw err;
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
      let handle: FileHandle;
      try {
        handle = await openManifest(MANIFEST_READ);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        if (err instanceof SinkError) throw err;
        throw new SinkError('SINK_IO', `cannot read the manifest: ${describeCause(err)}`, { target: root, key: MANIFEST_FILE, cause: err });
      }
      // The stream closes the handle when it ends or is destroyed (an error, or a reader that stops early).
      yield* parseManifestStream(handle.createReadStream() as AsyncIterable<Buffer>, root);
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
      const handle = await openManifest(MANIFEST_APPEND);
      // The manifest may have just been created: its folder entry is flushed (once per sink).
      await fsyncDir(root).catch(async (err: unknown) => {
        await handle.close();
        throw err;
      });
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
async function endsInTornLine(manifest: FileHandle): Promise<boolean> {
  let size = (await manifest.stat()).size;
  let stable = 1;
  for (let look = 0; look < TORN_MAX_LOOKS; look++) {
    if (size === 0 || (await endsWithNewline(manifest, size))) return false;
    if (stable === TORN_CHECKS) return true;
    await delay(TORN_CHECK_PAUSE_MS);
    const now = (await manifest.stat()).size;
    // Another process is appending: look at the new end afresh.
    stable = now === size ? stable + 1 : 1;
    size = now;
  }
  // Busy with other writers all along: leave it (a reader recovers an entry glued to a torn fragment).
  return false;
}

async function endsWithNewline(manifest: FileHandle, size: number): Promise<boolean> {
  const buf = Buffer.alloc(1);
  await manifest.read(buf, 0, 1, size - 1);
  return buf[0] === 0x0a;
}

type WriterState = 'open' | 'committing' | 'committed' | 'aborted';

class LocalReplayWriter implements ReplayWriter {
  private state: WriterState = 'open';
  private readonly encoder: ReplayEncoder;
  private readonly hash: OutputHash;
  private released = false;

  /** `release` is called once, when the writer ends, with whether an output was committed. */
  constructor(
    readonly key: string,
    private readonly context: { target: string; key: string; replayId: string },
    private readonly file: TempFile,
    output: OutputSpec,
    hashWorker: HashWorkerSettings,
    private readonly release: (committed: boolean) => Promise<void>,
  ) {
    const hash = new OutputHash(file.path, hashWorker);
    this.hash = hash;
    file.onWritten = (bytes) => hash.written(bytes);
    const target = {
      write: (chunk: Buffer) => {
        hash.update([chunk]);
        return file.out.write(chunk);
      },
      writev: (chunks: readonly Buffer[]) => {
        hash.update(chunks);
        return file.out.writev(chunks);
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
      const [hashed, synced] = await Promise.allSettled([this.hash.digest(summary.bytes), this.file.sync()]);
      if (synced.status === 'rejected') throw synced.reason;
      if (hashed.status === 'rejected') throw hashed.reason;
      const sha256 = hashed.value;
      await this.file.install();
      this.state = 'committed';
      await this.end(true);
      return { key: this.key, bytes: summary.bytes, sha256, eventCount: summary.eventCount };
    } catch (err) {
      if (this.file.installed) {
        // Renamed into place; only flushing its folder failed.
        this.state = 'committed';
        await this.end(true);
      } else {
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
    await this.file.discard();
    await this.end(false);
  }

  private async end(committed: boolean): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.release(committed);
  }

  private wrap(err: unknown, what: string): SinkError {
    if (err instanceof SinkError) return err;
    if (err instanceof HashWorkerError && err.kind === 'size') {
      return new SinkError('SINK_INTEGRITY', `${what}: the temporary file is not what was written (${err.message})`, { ...this.context, cause: err });
    }
    return new SinkError('SINK_IO', `${what}: ${describeCause(err)}`, { ...this.context, cause: err });
  }
}
