/**
 * Captured assets in a local target (`_assets/<sha256>`) and the claims of the replays that stored them
 * (`_assets/_claims/<device>/<session>/<sha256>`), every file through the target module.
 */
import type { Readable } from 'node:stream';
import { ASSETS_DIR, assetKey, checkAssetBody, isAssetDigest } from './assets.js';
import { SinkError } from './errors.js';
import { claimFolder, claimKey } from './layout.js';
import { isStoredFile, pidIsAlive, refusedOr, removeFile } from './local-files.js';
import { readLocalObject } from './local-outputs.js';
import type { Dir, Target } from './target/target.js';
import { TempFile, tempNamePid as tempPid } from './target/temp-file.js';
import { removeEmptyFolders } from './target/tree.js';

/** The asset members of the local sink (see `Sink`). */
export interface LocalAssets {
  putAsset(digest: string, type: string, body: Buffer, owner?: string): Promise<void>;
  readAsset(digest: string): Promise<Readable | undefined>;
  removeAsset(digest: string): Promise<boolean>;
  assetClaims(replayId: string): AsyncIterable<string>;
  removeAssetClaims(replayId: string): Promise<void>;
}

/** `sweep`: whether temporary files of dead processes are swept from the assets folder (once, at the first store). */
export function localAssets(target: Target, sweep: boolean, open: () => void): LocalAssets {
  const root = target.path;
  let swept: Promise<void> | undefined;
  const assets: LocalAssets = {
    async putAsset(digest, _type, body, owner) {
      open();
      const key = assetKey(digest, root);
      checkAssetBody(digest, body, root);
      try {
        if (sweep) await (swept ??= sweepAssetTemps(target));
        if (await isStoredFile(target, key)) return;
        if (owner !== undefined) await claim(target, owner, digest);
        await storeAsset(target, digest, body);
      } catch (err) {
        throw refusedOr(`cannot store ${key}`, 'write', err, { target: root, key });
      }
    },
    readAsset: (digest) => readLocalObject(target, assetKey(digest, root)),
    async removeAsset(digest) {
      open();
      return removeFile(target, assetKey(digest, root));
    },
    async *assetClaims(replayId) {
      let dir: Dir | undefined;
      try {
        dir = await target.folder(claimFolder(replayId).slice(0, -1), false);
      } catch (err) {
        throw refusedOr(`cannot list the asset claims of ${replayId}`, 'read', err, {
          target: root,
          replayId,
        });
      }
      if (dir === undefined) return;
      try {
        for await (const entry of dir.entries()) if (isAssetDigest(entry.name)) yield entry.name;
      } finally {
        await dir.close();
      }
    },
    async removeAssetClaims(replayId) {
      open();
      for await (const digest of assets.assetClaims(replayId)) {
        const key = claimKey(replayId, digest, root);
        await target
          .inParent(key, false, (dir, name) => dir.unlink(name))
          .catch((err: unknown) => {
            throw refusedOr(`cannot remove a claim of ${replayId}`, 'remove', err, {
              target: root,
              replayId,
            });
          });
      }
      await removeEmptyFolders(target, claimFolder(replayId).slice(0, -1));
    },
  };
  return assets;
}

/** Stores `body` as `_assets/<digest>`: a temporary file renamed into place (never a partial asset). */
async function storeAsset(target: Target, digest: string, body: Buffer): Promise<void> {
  const dir = (await target.folder(ASSETS_DIR, true))!;
  let file: TempFile;
  try {
    file = await TempFile.create(dir, digest);
  } catch (err) {
    await dir.close();
    throw err;
  }
  try {
    await file.out.write(body);
    await file.drain();
    await file.sync();
    await file.install();
  } catch (err) {
    await file.discard();
    throw err;
  }
}

/** Records durably that `replayId` owns the asset of `digest` (an empty file, its folder flushed; see `Sink.putAsset`). */
async function claim(target: Target, replayId: string, digest: string): Promise<void> {
  const key = claimKey(replayId, digest, target.path);
  try {
    await target.inParent(key, true, async (dir, name) => {
      await (await dir.open(name, 'replace')).close();
      await dir.sync();
    });
  } catch (err) {
    throw refusedOr(`cannot record the claim ${key}`, 'write', err, { target: target.path, key, replayId });
  }
}

/**
 * Temporary files in the assets folder left by dead processes (a run killed while storing an asset): swept once per
 * sink, at its first store, since an asset already stored is never written again (and its folder can hold a great
 * many files, too many to list per asset). Best effort: a folder that is not (yet) a real one has nothing to sweep.
 */
async function sweepAssetTemps(target: Target): Promise<void> {
  const dir = await target.folder(ASSETS_DIR, false).catch(() => undefined);
  if (dir === undefined) return;
  try {
    const stale: string[] = [];
    for await (const entry of dir.entries()) {
      const digest = /^\.([0-9a-f]{64})\./.exec(entry.name)?.[1];
      const pid = digest === undefined ? undefined : tempPid(entry.name, digest);
      if (pid !== undefined && !pidIsAlive(pid)) stale.push(entry.name);
    }
    for (const name of stale) await dir.unlink(name).catch(() => undefined);
  } catch {
    // Best effort.
  } finally {
    await dir.close();
  }
}

/** A closed sink's refusal. */
export function closedError(target: string, more: { key?: string; replayId?: string } = {}): SinkError {
  return new SinkError('SINK_STATE', 'sink is closed', { target, ...more });
}
