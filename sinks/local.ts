import { constants, createReadStream } from 'node:fs';
import { lstat, mkdir, open as openFile, readdir, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { assetKey, checkAssetBody, isAssetDigest, pageAssetParts, type CommitOptions } from './assets.js';
import { claimFolder, claimKey } from './layout.js';
import { ReplayEncoder } from './encode.js';
import { HashWorkerError } from './hash-worker.js';
import {
  areRealFolders,
  FolderUsers,
  foldersToRemoveIn,
  makeFolders,
  NotAFolderError,
  removeEmptyFolders,
} from './local-folders.js';
import { OutputHash, resolveHashWorker, type HashWorkerOptions, type HashWorkerSettings } from './output-hash.js';
import { fsyncDir, isSymlinkRefusal, O_NOFOLLOW, TempFile, tempNamePid } from './temp-file.js';
import { describeCause, SinkError } from './errors.js';
import { checkOutputKey, replayKey } from './keys.js';
import { LocalManifest } from './local-manifest.js';
import { localWorkClaims } from './work-claims.js';
import { localStoredObjects } from './local-outputs.js';
import type {
  CommitResult,
  EventRun,
  ManifestCompactionResult,
  ManifestEntry,
  OutputSpec,
  ReplayWriter,
  Sink,
} from './sink.js';

export { MANIFEST_FILE } from './local-manifest.js';

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
  const cleanStale = opts.cleanStaleTemp ?? true;
  const hashWorker = resolveHashWorker(opts.hashWorker);
  const folderUsers = new FolderUsers();
  let rootMade: Promise<void> | undefined;
  let closed = false;

  /** Makes the target folder (it may be a symbolic link the user chose: followed, unlike anything below it). */
  const ensureRoot = (): Promise<void> => {
    rootMade ??= mkdir(root, { recursive: true }).then(() => undefined);
    rootMade.catch(() => {
      rootMade = undefined;
    });
    return rootMade;
  };
  const manifest = new LocalManifest(root, ensureRoot);

  /** Absolute path of a key, refusing anything that would land outside the target. */
  const pathOf = (key: string): string => {
    const path = resolve(root, ...key.split('/'));
    if (key.length === 0 || key.includes('\\') || key.includes('\0') || !isInside(root, path)) {
      throw new SinkError('SINK_PATH_ESCAPE', `key ${JSON.stringify(key)} resolves outside the target`, {
        target: root,
        key,
      });
    }
    return path;
  };

  /** Stale temporary files of this key: left by processes of this machine that no longer run. */
  const removeStaleTemps = async (folder: string, finalName: string): Promise<void> => {
    for (const name of await readdir(folder)) {
      const pid = tempNamePid(name, finalName);
      if (pid === undefined || pidIsAlive(pid)) continue;
      await unlink(join(folder, name)).catch(() => undefined);
    }
  };

  /**
   * Temporary files in the assets folder left by dead processes (a run killed while storing an asset): swept once per
   * sink, at its first `putAsset`, since an asset already stored is never written again (and its folder can hold a
   * great many files, too many to list per asset).
   */
  let assetSweep: Promise<void> | undefined;
  const sweepAssetTemps = async (folder: string): Promise<void> => {
    // Best effort, never through a link: a folder that is not (yet) a real one has nothing to sweep.
    if (!(await areRealFolders(root, folder).catch(() => false))) return;
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      const digest = /^\.([0-9a-f]{64})\./.exec(name)?.[1];
      const pid = digest === undefined ? undefined : tempNamePid(name, digest);
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

  /** Whether a regular file (not a link) is at `path`, in real folders below the target. */
  const isStoredFile = async (path: string): Promise<boolean> => {
    try {
      return (await areRealFolders(root, dirname(path))) && (await lstat(path)).isFile();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
        return false;
      throw err;
    }
  };

  const readAsset = async (digest: string): Promise<Readable | undefined> => {
    const key = assetKey(digest, root);
    const path = pathOf(key);
    try {
      if (!(await isStoredFile(path))) return undefined;
      const stream = createReadStream(path);
      await new Promise<void>((ok, fail) => stream.once('open', () => ok()).once('error', fail));
      return stream;
    } catch (err) {
      throw new SinkError('SINK_IO', `cannot read ${key}: ${describeCause(err)}`, { target: root, key, cause: err });
    }
  };

  /** Deletes the file at `key` (an output's or an asset's), never through a link; true when one was there. */
  const removeAt = async (key: string): Promise<boolean> => {
    const path = pathOf(key);
    const folder = dirname(path);
    try {
      if (!(await foldersToRemoveIn(root, folder))) return false;
      // Temporary files of this key left by dead processes hold part of the same output.
      await removeStaleTemps(folder, basename(path));
      // unlink never follows a symbolic link: a link at the key is removed itself, never what it points to.
      const removed = await unlink(path).then(
        () => true,
        (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? false : Promise.reject(err)),
      );
      if (removed) await fsyncDir(folder);
      await removeEmptyFolders(root, folder);
      return removed;
    } catch (err) {
      const escape = err instanceof NotAFolderError && err.kind === 'symlink';
      const what = escape ? `${(err as Error).message}; refusing to remove through it` : describeCause(err);
      throw new SinkError(escape ? 'SINK_PATH_ESCAPE' : 'SINK_IO', `cannot remove ${key}: ${what}`, {
        target: root,
        key,
        cause: err,
      });
    }
  };

  /** Records durably that `replayId` owns the asset of `digest` (an empty file; see `Sink.putAsset`). */
  const claim = async (replayId: string, digest: string): Promise<void> => {
    const key = claimKey(replayId, digest, root);
    const path = pathOf(key);
    const folder = dirname(path);
    try {
      await ensureRoot();
      await makeFolders(root, folder);
      // An empty file: O_NOFOLLOW, so a link planted at the name is refused rather than written through.
      const handle = await openFile(path, constants.O_WRONLY | constants.O_CREAT | O_NOFOLLOW, 0o644);
      await handle.close();
      await fsyncDir(folder);
    } catch (err) {
      const escape = (err instanceof NotAFolderError && err.kind === 'symlink') || isSymlinkRefusal(err);
      throw new SinkError(
        escape ? 'SINK_PATH_ESCAPE' : 'SINK_IO',
        `cannot record the claim ${key}: ${describeCause(err)}`,
        { target: root, key, replayId, cause: err },
      );
    }
  };

  const sink: Sink = {
    target: root,

    async putAsset(digest: string, _type: string, body: Buffer, owner?: string): Promise<void> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target: root });
      const key = assetKey(digest, root);
      checkAssetBody(digest, body, root);
      const path = pathOf(key);
      const folder = dirname(path);
      let file: TempFile | undefined;
      try {
        if (cleanStale) await (assetSweep ??= sweepAssetTemps(folder));
        if (await isStoredFile(path)) return;
        if (owner !== undefined) await claim(owner, digest);
        await ensureRoot();
        await makeFolders(root, folder);
        file = await TempFile.create(folder, basename(path));
        await file.out.write(body);
        await file.drain();
        await file.sync();
        await file.install();
      } catch (err) {
        await file?.discard();
        const escape = err instanceof NotAFolderError && err.kind === 'symlink';
        throw new SinkError(escape ? 'SINK_PATH_ESCAPE' : 'SINK_IO', `cannot store ${key}: ${describeCause(err)}`, {
          target: root,
          key,
          cause: err,
        });
      }
    },

    readAsset,

    async *assetClaims(replayId: string): AsyncIterable<string> {
      const folder = pathOf(claimFolder(replayId).slice(0, -1));
      let names: string[];
      try {
        if (!(await foldersToRemoveIn(root, folder))) return;
        names = await readdir(folder);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        const escape = err instanceof NotAFolderError && err.kind === 'symlink';
        throw new SinkError(
          escape ? 'SINK_PATH_ESCAPE' : 'SINK_IO',
          `cannot list the asset claims of ${replayId}: ${describeCause(err)}`,
          { target: root, replayId, cause: err },
        );
      }
      for (const name of names) if (isAssetDigest(name)) yield name;
    },

    async removeAssetClaims(replayId: string): Promise<void> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target: root });
      const folder = pathOf(claimFolder(replayId).slice(0, -1));
      for await (const digest of sink.assetClaims!(replayId)) {
        await unlink(join(folder, digest)).catch((err: NodeJS.ErrnoException) =>
          err.code === 'ENOENT'
            ? undefined
            : Promise.reject(
                new SinkError('SINK_IO', `cannot remove a claim of ${replayId}: ${describeCause(err)}`, {
                  target: root,
                  replayId,
                  cause: err,
                }),
              ),
        );
      }
      await removeEmptyFolders(root, folder);
    },

    storedObjects: () => localStoredObjects(root),

    workClaims: (run) => localWorkClaims(root, run, pathOf, ensureRoot),

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
            throw new SinkError(
              'SINK_PATH_ESCAPE',
              `cannot write ${key}: ${err.message}; refusing to write through it`,
              { ...context, cause: err },
            );
          }
          throw new SinkError('SINK_IO', `cannot write ${key}: ${err.message}`, { ...context, cause: err });
        }
        throw new SinkError('SINK_IO', `cannot create the temporary file of ${key}: ${describeCause(err)}`, {
          ...context,
          cause: err,
        });
      }
      return new LocalReplayWriter(
        key,
        context,
        file,
        output,
        hashWorker,
        (committed) => leaveFolder(folder, committed),
        readAsset,
      );
    },

    async exists(key: string): Promise<boolean> {
      const path = pathOf(key);
      try {
        // Neither the key nor its folders are followed when they are symbolic links: such an output is not ours.
        return await isStoredFile(path);
      } catch (err) {
        throw new SinkError('SINK_IO', `cannot check ${key}: ${describeCause(err)}`, { target: root, key, cause: err });
      }
    },

    async remove(key: string): Promise<boolean> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target: root, key });
      checkOutputKey(key, root);
      return removeAt(key);
    },

    async removeAsset(digest: string): Promise<boolean> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target: root });
      return removeAt(assetKey(digest, root));
    },

    appendManifest(entry: ManifestEntry): Promise<void> {
      if (closed) return Promise.reject(new SinkError('SINK_STATE', 'sink is closed', { target: root }));
      return manifest.append(entry);
    },

    readManifest(): AsyncIterable<ManifestEntry> {
      return manifest.read();
    },

    manifestStamp(): Promise<string> {
      return manifest.stamp();
    },

    compactManifest(): Promise<ManifestCompactionResult> {
      if (closed) return Promise.reject(new SinkError('SINK_STATE', 'sink is closed', { target: root }));
      return manifest.compact();
    },

    async close(): Promise<void> {
      closed = true;
      await manifest.close();
    },
  };

  return sink;
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
    private readonly readAsset: (digest: string) => Promise<Readable | undefined>,
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

  async commit(options: CommitOptions = {}): Promise<CommitResult> {
    if (this.state !== 'open') throw new SinkError('SINK_STATE', `commit after ${this.state}`, this.context);
    this.state = 'committing';
    try {
      const assets = options.assets;
      const summary = await this.encoder.finish(assets && pageAssetParts(assets, this.readAsset, this.context.target));
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
      return new SinkError('SINK_INTEGRITY', `${what}: the temporary file is not what was written (${err.message})`, {
        ...this.context,
        cause: err,
      });
    }
    return new SinkError('SINK_IO', `${what}: ${describeCause(err)}`, { ...this.context, cause: err });
  }
}
