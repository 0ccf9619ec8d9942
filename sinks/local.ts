/**
 * The local store: a folder on this machine, `<dir>/<device>/<session>.json[.gz]` and `<dir>/manifest.ndjson`, every
 * file reached through the target module (sinks/target/). Each replay is written to a temporary file beside its final
 * name, fsynced, renamed into place and the folder fsynced, so a final name only ever holds a complete output.
 */
import { assetKey } from './assets.js';
import { MANIFEST_FILE, MANIFEST_FOLDER, LocalManifest } from './local-manifest.js';
import { localAssets, closedError } from './local-assets.js';
import { createTemp, isStoredFile, refusedOr, removeFile, splitKey } from './local-files.js';
import { localOutputKeys, localStoredObjects, readLocalObject } from './local-outputs.js';
import { LocalReplayWriter } from './local-writer.js';
import { checkOutputKey, replayKey } from './keys.js';
import { resolveHashWorker, type HashWorkerOptions, type HashWorkerSettings } from './output-hash.js';
import type { OutputSpec, ReplayWriter } from './sink.js';
import { branded, type Store } from './store.js';
import { Target, type Resolution } from './target/target.js';
import type { TempFile } from './target/temp-file.js';
import { FolderUsers, removeEmptyFolders } from './target/tree.js';
import { localWorkClaims } from './work-claims.js';
import { describeCause, SinkError } from './errors.js';

export { MANIFEST_FILE } from './local-manifest.js';

export interface LocalSinkOptions {
  /**
   * On `open`, delete temporary files left at the same key by processes of this machine that no longer run
   * (default true). Temporary files never occupy a final name, so leaving them is harmless but wastes space.
   */
  cleanStaleTemp?: boolean | undefined;
  /**
   * The SHA-256 of an output larger than `fromBytes` (default 4 MiB) that is produced at `minRate` or faster (default
   * 200 MB/s) is computed by a worker thread that reads the written file back at a lowered priority (nice 10 on
   * Linux), instead of by the thread that decodes; `false` hashes every output on the calling thread (the pipeline
   * passes `false` when `REPLAY_EXPORT_HASH_WORKER=0`). See `sinks/output-hash.ts` and `sinks/hash-worker.ts`.
   */
  hashWorker?: HashWorkerOptions | false | undefined;
  /** @internal How names are resolved below the target (tests run the fallback too); see sinks/target/target.ts. */
  resolution?: Resolution | undefined;
}

/** A store writing to the folder `dir` (made when first written to; opening it writes nothing). */
export function createLocalSink(dir: string, opts: LocalSinkOptions = {}): Store {
  const target = new Target(dir, opts.resolution === undefined ? {} : { resolution: opts.resolution });
  const root = target.path;
  const manifest = new LocalManifest(target);
  let closed = false;
  const open = (more: { key?: string; replayId?: string } = {}): void => {
    if (closed) throw closedError(root, more);
  };
  const outputs = localOutputs(target, resolveHashWorker(opts.hashWorker), opts.cleanStaleTemp ?? true, open);
  const assets = localAssets(target, opts.cleanStaleTemp ?? true, () => open());
  return branded({
    target: root,
    ...outputs,
    ...assets,
    listsInBulk: false,
    read: (key) => readLocalObject(target, key),
    storedKeys: () => localOutputKeys(target),
    storedObjects: () => localStoredObjects(target),
    hasManifest: () => hasLocalManifest(target),
    workClaims: (run) => localWorkClaims(target, run),
    async appendManifest(entry) {
      open();
      return manifest.append(entry);
    },
    readManifest: () => manifest.read(),
    readManifestBytes: () => ({ newest: 'last', files: manifest.files() }),
    manifestStamp: () => manifest.stamp(),
    async compactManifest(options) {
      open();
      return manifest.compact(options.signal);
    },
    async close() {
      closed = true;
      await manifest.close();
      await target.close();
    },
  });
}

/** The output members of the local store: writers, and finding and removing stored outputs. */
function localOutputs(
  target: Target,
  hashWorker: HashWorkerSettings,
  cleanStale: boolean,
  open: (more?: { key?: string; replayId?: string }) => void,
): Pick<Store, 'keyFor' | 'open' | 'exists' | 'remove'> {
  const root = target.path;
  const folderUsers = new FolderUsers();
  /** A writer of `folder` ended: the last one to end without an output removes the folder if it is empty. */
  const leaveFolder = async (folder: string, committed: boolean): Promise<void> => {
    if (folderUsers.leave(folder) && !committed) await removeEmptyFolders(target, folder);
  };
  const readAsset = (digest: string) => readLocalObject(target, assetKey(digest, root));
  return {
    keyFor: (replayId: string, output: OutputSpec) => replayKey(replayId, output),
    async open(replayId: string, output: OutputSpec): Promise<ReplayWriter> {
      open({ replayId });
      const key = replayKey(replayId, output);
      const context = { target: root, key, replayId };
      const { folder } = splitKey(key);
      folderUsers.enter(folder);
      let file: TempFile;
      try {
        file = await createTemp(target, key, cleanStale);
      } catch (err) {
        await leaveFolder(folder, false);
        throw refusedOr(`cannot write ${key}`, 'write', err, context);
      }
      const release = (committed: boolean): Promise<void> => leaveFolder(folder, committed);
      return new LocalReplayWriter(key, context, file, output, hashWorker, release, readAsset);
    },
    async exists(key: string): Promise<boolean> {
      try {
        // Neither the key nor its folders are followed when they are symbolic links: such an output is not ours.
        return await isStoredFile(target, key);
      } catch (err) {
        if (err instanceof SinkError) throw err;
        throw new SinkError('SINK_IO', `cannot check ${key}: ${describeCause(err)}`, { target: root, key, cause: err });
      }
    },
    async remove(key: string): Promise<boolean> {
      open({ key });
      checkOutputKey(key, root);
      return removeFile(target, key);
    },
  };
}

/** Whether a local folder holds a manifest: the log `manifest.ndjson`, or the folder of its snapshot. */
async function hasLocalManifest(target: Target): Promise<boolean> {
  try {
    const root = await target.root(false);
    if (root === undefined) return false;
    for (const name of [MANIFEST_FILE, MANIFEST_FOLDER]) if ((await root.lstat(name)) !== undefined) return true;
    return false;
  } catch (err) {
    throw new SinkError('SINK_IO', `cannot look for the manifest in ${target.path}: ${describeCause(err)}`, {
      target: target.path,
      cause: err,
    });
  }
}
