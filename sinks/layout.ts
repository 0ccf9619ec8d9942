/**
 * What each object under an archive is, by its key alone: a replay output, a captured asset, an asset claim, one of
 * the archive's own files (its manifest, a fold's lock or snapshot, a temporary file, an S3 staging object), or none
 * of these — something replay-export never writes there (`foreign`), which `verify` reports. Local and S3 layouts
 * share one namespace: their own names never collide. The keys of the assets' claims are made here too.
 */
import { ASSETS_DIR, assetKey, isAssetDigest } from './assets.js';
import { LOCK_LEFTOVER } from './fold-lock.js';
import { isOutputKey, replayKeyBase } from './keys.js';
import { isWorkClaimKey } from './work-claims.js';

/**
 * The claims of the assets: `_assets/_claims/<device>/<session>/<sha256>`, an empty object, written (durably) by an
 * export before it stores an asset that was not there. A replay owns the assets it claimed from that moment, whatever
 * becomes of its export (failed, killed): `forget` removes them with the replay (unless a staying replay's `ok` entry
 * maps them), `verify` reports those no `ok` entry maps as orphans.
 */
const CLAIMS_DIR = `${ASSETS_DIR}/_claims`;

/** The folder of a replay's claims, relative to the target (with its `/`). */
export function claimFolder(replayId: string): string {
  return `${CLAIMS_DIR}/${replayKeyBase(replayId)}/`;
}

/** The key of the claim of `digest` by `replayId`, relative to the target. */
export function claimKey(replayId: string, digest: string, target: string): string {
  return claimFolder(replayId) + assetKey(digest, target).slice(ASSETS_DIR.length + 1);
}

/** What an object under an archive is (see the module's comment). */
export type StoredKind = 'output' | 'asset' | 'claim' | 'own' | 'foreign';

/** `_manifest/…` files of a local archive (log folded, snapshot, lock) and objects of an S3 one (log, snapshots). */
const MANIFEST_NAMES: readonly RegExp[] = [
  /^_manifest\/snapshot\.ndjson$/,
  /^_manifest\/folding-\d{13}-[0-9a-f]+\.ndjson$/,
  /^_manifest\/compact\.lock$/,
  /^_manifest\/\.compact-lock-[0-9a-f]+$/,
  /^_manifest\/\.snapshot-[0-9a-f]+\.tmp$/,
  /^_manifest\/[^/]+\/[^/]+\/\d{13}-[0-9a-f]+-\d+\.json$/,
  /^_manifest\/_snapshots\/(all|\d{1,6}-of-\d{1,6})\/\d{13}-[0-9a-f]+-\d{1,12}\.ndjson\.gz$/,
  // S3's staging area: whatever is there is transient (the bucket's lifecycle rule expires it after a day).
  /^_staging\/[^/]+$/,
];

/** A temporary file of the local sink (`.<final name>.<pid>.<8 hex>.tmp`, temp-file.ts) beside an output or asset. */
const TEMP_NAME = /^\.([^/]+)\.\d+\.[0-9a-f]{8}\.tmp$/;

/** What the object at `key` (relative to the target, `/`-separated) is, by its key alone. */
export function storedKind(key: string): StoredKind {
  if (key === 'manifest.ndjson') return 'own';
  if (key.startsWith('_manifest/') && LOCK_LEFTOVER.test(key.slice('_manifest/'.length))) return 'own';
  if (MANIFEST_NAMES.some((re) => re.test(key))) return 'own';
  if (isWorkClaimKey(key)) return 'own';
  if (isOutputKey(key)) return 'output';
  const slash = key.lastIndexOf('/');
  const folder = key.slice(0, slash + 1);
  const name = key.slice(slash + 1);
  const temp = TEMP_NAME.exec(name)?.[1];
  if (folder === `${ASSETS_DIR}/`) {
    if (isAssetDigest(name)) return 'asset';
    return temp !== undefined && isAssetDigest(temp) ? 'own' : 'foreign';
  }
  if (folder.startsWith(`${CLAIMS_DIR}/`)) {
    const parts = folder.slice(CLAIMS_DIR.length + 1, -1).split('/');
    return parts.length === 2 && isAssetDigest(name) && isOutputKey(`${parts[0]}/${parts[1]}.json`)
      ? 'claim'
      : 'foreign';
  }
  // A temporary output beside its final name.
  if (temp !== undefined && isOutputKey(folder + temp)) return 'own';
  return 'foreign';
}
