/**
 * `forget`: removes a replay's or a user's outputs from an archive and records tombstones, so that no later run into
 * the same target exports them again (see `ResumeState.forgotten`).
 *
 * Order, for a crash at any point: the tombstone is appended first, then the outputs are deleted, then the result is
 * reported. A run killed between the two leaves a recorded tombstone beside outputs still present — never an output
 * that later runs skip without a record — and running the same `forget` again deletes what is left without a second
 * tombstone (a replay whose last entry is already `forgotten` gets none). A user's tombstone comes before its
 * replays', so that from the first write on every replay of the user is skipped by later runs.
 *
 * The archive is the run's (`run.archive`, `create: false`): a target without a manifest is refused with
 * `ArchiveNotFoundError` and nothing is created there. `dryRun` reports what would be recorded and removed, writing
 * nothing.
 */
import { isAssetDigest } from '../../sinks/assets.js';
import type { Archive } from '../../sinks/archive.js';
import { outputKeysOf } from '../../sinks/keys.js';
import type { ForgottenEntry, ManifestEntry, ManifestError } from '../../sinks/sink.js';
import { forgottenEntry, type TombstoneFields } from './manifest-entries.js';
import { categoryOf, ConfigError } from '../errors.js';
import { validatePlatformId, validateReplayId } from '../replay/validation.js';
import { describeError } from './errors.js';
import { entryRun, releaseRun, type EntryOptions, type Run } from './run.js';
import { forgottenUser, platformKey, userTombstoneId } from './tombstone.js';

/** Longest `reason` a tombstone takes (characters). */
export const MAX_FORGET_REASON = 500;
export const DEFAULT_FORGET_REASON = 'forget requested';

/**
 * What to forget, and the run to do it on: its archive is `out` (a folder or `s3://bucket/prefix`, opened with
 * `sinkOptions`) or your own `sink` (it must be able to remove outputs), or an open `run`'s; `runId`, `now` and
 * `signal` are the run's.
 */
export interface ForgetOptions extends EntryOptions {
  /** Replays to forget (`device_id/session_id`), whether or not the archive holds them yet. */
  replayIds?: readonly string[] | undefined;
  /**
   * A user to forget (platform id): every replay whose manifest entries name it (`platform_id`, recorded by archive
   * runs since it exists), and, through the user's tombstone, every replay of the user a later run lists.
   */
  platformId?: number | string | undefined;
  /** Why, recorded in each tombstone (default `forget requested`; at most 500 characters). */
  reason?: string | undefined;
  /**
   * Report what would be recorded and removed (the tombstones, the outputs and the captured assets now stored),
   * writing nothing: no tombstone, no removal.
   */
  dryRun?: boolean | undefined;
}

export interface ForgottenReplay {
  replayId: string;
  /**
   * The tombstone written now (with `dryRun`: that would be); absent when the replay's last entry already was one (a
   * re-run finishing a removal).
   */
  entry?: ManifestEntry;
  /**
   * Whether the manifest now holds the replay's tombstone (written now or before): false only after an `error`. With
   * `dryRun`: whether it held one before.
   */
  tombstoned: boolean;
  /** The outputs deleted now (keys relative to the target); with `dryRun`, those stored that would be. */
  removed: string[];
  /** The captured assets (SHA-256) deleted now: this replay's, used by no replay that stays; with `dryRun`, would be. */
  removedAssets: string[];
  /** Why deleting its outputs failed: the tombstone is recorded, running the same `forget` again finishes the job. */
  error?: ManifestError;
}

export interface ForgetReport {
  target: string;
  /** Nothing was written: the report says what `forget` would record and remove. */
  dryRun: boolean;
  /** The user forgotten; `entry` is its tombstone, absent when one was already recorded. */
  user?: { platformId: number; entry?: ManifestEntry };
  /** Each replay concerned, in the order found (named ones first). */
  replays: ForgottenReplay[];
}

interface Request {
  dryRun: boolean;
  replayIds: readonly string[];
  user: string | undefined;
  reason: string;
  runId: string | undefined;
  now: () => number;
  signal: AbortSignal | undefined;
}

/** What `o` asks, checked (a `ConfigError` before anything is read); `run` gives its id, clock and signal. */
function requestOf(o: ForgetOptions, run?: Run): Request {
  const replayIds = o.replayIds ?? [];
  if (replayIds.length > 0 === (o.platformId !== undefined)) {
    throw new ConfigError(
      'forget takes either replay ids or a user (platform id), not both and not neither',
      'FORGET_WHAT',
    );
  }
  for (const id of replayIds) validateReplayId(id);
  let user: string | undefined;
  if (o.platformId !== undefined) {
    user = platformKey(validatePlatformId(o.platformId));
    if (user === undefined || !Number.isSafeInteger(Number(user))) {
      throw new ConfigError(
        `platform id ${String(o.platformId).slice(0, 40)} is beyond what the manifest records exactly (2^53)`,
        'FORGET_WHAT',
      );
    }
  }
  const reason = o.reason ?? DEFAULT_FORGET_REASON;
  if (reason.trim() === '' || reason.length > MAX_FORGET_REASON) {
    throw new ConfigError(`the reason must be 1 to ${MAX_FORGET_REASON} characters`, 'FORGET_REASON');
  }
  return {
    dryRun: o.dryRun === true,
    replayIds,
    user,
    reason,
    runId: run?.settings.runId,
    now: run?.now ?? Date.now,
    signal: run?.signal,
  };
}

/** What the manifest says of one replay concerned. */
interface Concerned {
  /** Its last entry is a tombstone. */
  forgotten: boolean;
  platformId?: number;
  /** Captured assets its entries name (`assets`, or a tombstone's `removed_assets`). */
  assets: Set<string>;
}

/** The assets an `ok` line maps URLs to (a manifest is input: only digests count). */
function mappedAssets(entry: ManifestEntry): string[] {
  const assets: unknown = entry.status === 'ok' ? entry.assets : undefined;
  return assets !== null && typeof assets === 'object' ? Object.values(assets).filter(isAssetDigest) : [];
}

/** The assets a line names: those an `ok` line maps, or those a tombstone removes. */
function assetsOf(entry: ManifestEntry): string[] {
  const removed: unknown = entry.status === 'forgotten' ? entry.removed_assets : undefined;
  return [...mappedAssets(entry), ...(Array.isArray(removed) ? removed.filter(isAssetDigest) : [])];
}

/**
 * The replays concerned, from one streaming read of the manifest: the named ones, or every replay with an entry
 * naming the user. Memory grows with the replays forgotten, not with the archive. Also whether the user's
 * tombstone is already recorded.
 */
async function readConcerned(
  archive: Archive,
  req: Request,
): Promise<{ concerned: Map<string, Concerned>; userForgotten: boolean }> {
  const concerned = new Map<string, Concerned>(
    req.replayIds.map((id) => [id, { forgotten: false, assets: new Set<string>() }]),
  );
  const userId = req.user === undefined ? undefined : userTombstoneId(req.user);
  let userForgotten = false;
  for await (const entry of archive.manifest.read()) {
    if (!entry || typeof entry.replay_id !== 'string') continue;
    if (entry.replay_id === userId) {
      userForgotten = forgottenUser(entry) === req.user;
      continue;
    }
    let c = concerned.get(entry.replay_id);
    if (c === undefined) {
      if (
        req.user === undefined ||
        platformKey(entry.platform_id) !== req.user ||
        (entry.status === 'forgotten' && entry.scope === 'user')
      )
        continue;
      c = { forgotten: false, assets: new Set<string>() };
      concerned.set(entry.replay_id, c);
    }
    c.forgotten = entry.status === 'forgotten';
    for (const digest of assetsOf(entry)) c.assets.add(digest);
    if (Number.isSafeInteger(entry.platform_id)) c.platformId = entry.platform_id!;
  }
  return { concerned, userForgotten };
}

/** The tombstone of `replayId` (`scope: user`: a user's, under its reserved id), as `req` asks. */
function tombstone(
  req: Request,
  replayId: string,
  scope: ForgottenEntry['scope'],
  fields: Pick<TombstoneFields, 'platformId' | 'removedKeys' | 'removedAssets'>,
): ForgottenEntry {
  return forgottenEntry(replayId, scope, { ...fields, reason: req.reason, at: req.now(), runId: req.runId });
}

/** A replay's tombstone: the outputs stored now and the assets it removes (recorded before removing). */
function replayTombstone(
  req: Request,
  id: string,
  c: Concerned,
  present: string[],
  unshared: string[],
): ForgottenEntry {
  return tombstone(req, id, 'replay', { platformId: c.platformId, removedKeys: present, removedAssets: unshared });
}

/** Stops at an abort, and on failures that every request would meet (credentials); others fail one replay. */
function rethrowIfFatal(err: unknown, signal: AbortSignal | undefined): void {
  const category = categoryOf(err);
  if (signal?.aborted || category === 'auth' || category === 'interrupted' || category === 'internal') throw err;
}

/**
 * The assets of the replays concerned that a replay staying in the archive names too (any of its entries, so an
 * output an earlier entry describes keeps its assets; a replay whose last entry is a tombstone does not stay): a
 * second streaming read, holding only the candidates and the replays that name one.
 */
async function sharedAssets(archive: Archive, concerned: Map<string, Concerned>): Promise<Set<string>> {
  const candidates = new Set<string>();
  for (const c of concerned.values()) for (const digest of c.assets) candidates.add(digest);
  const shared = new Set<string>();
  if (candidates.size === 0) return shared;
  const others = new Map<string, { forgotten: boolean; digests: Set<string> }>();
  for await (const entry of archive.manifest.read()) {
    if (!entry || typeof entry.replay_id !== 'string' || concerned.has(entry.replay_id)) continue;
    const names = mappedAssets(entry).filter((d) => candidates.has(d));
    let other = others.get(entry.replay_id);
    if (other === undefined) {
      if (names.length === 0) continue;
      other = { forgotten: false, digests: new Set() };
      others.set(entry.replay_id, other);
    }
    other.forgotten = entry.status === 'forgotten';
    for (const digest of names) other.digests.add(digest);
  }
  for (const other of others.values()) if (!other.forgotten) for (const digest of other.digests) shared.add(digest);
  return shared;
}

/**
 * Tombstone first (naming the assets it removes), then the outputs — every key the replay's output can have in the
 * layout (each format) — then its assets no staying replay uses (once per call: `removedAssets` holds those gone).
 */
async function forgetReplay(
  archive: Archive,
  id: string,
  c: Concerned,
  req: Request,
  unshared: string[],
  assetsGone: Set<string>,
): Promise<ForgottenReplay> {
  const result: ForgottenReplay = { replayId: id, tombstoned: c.forgotten, removed: [], removedAssets: [] };
  const keys = outputKeysOf(id);
  try {
    const present: string[] = [];
    for (const key of keys) if (await archive.outputs.exists(key)) present.push(key);
    if (req.dryRun) {
      if (!c.forgotten) result.entry = replayTombstone(req, id, c, present, unshared);
      result.removed = present;
      for (const digest of unshared)
        if (!assetsGone.has(digest) && (await archive.assets.has(digest))) result.removedAssets.push(digest);
      for (const digest of unshared) assetsGone.add(digest);
      return result;
    }
    if (!c.forgotten) {
      result.entry = replayTombstone(req, id, c, present, unshared);
      await archive.manifest.append(result.entry);
      result.tombstoned = true;
    }
    // Every layout key, not only those seen: a link at a key (not an output to `exists`) goes too.
    for (const key of keys) if (await archive.outputs.remove(key)) result.removed.push(key);
    for (const digest of unshared) {
      if (assetsGone.has(digest)) continue;
      if (await archive.assets.remove(digest)) result.removedAssets.push(digest);
      assetsGone.add(digest);
    }
    // Its claims last: a run killed before this point leaves them, and the same `forget` finds the assets again.
    await archive.assets.unclaim(id);
  } catch (err) {
    rethrowIfFatal(err, req.signal);
    const { code, message } = describeError(err);
    result.error = { code, message };
  }
  return result;
}

/** Forgets in an open archive (see `forgetReplays`). */
async function forgetInArchive(archive: Archive, req: Request): Promise<ForgetReport> {
  const { concerned, userForgotten } = await readConcerned(archive, req);
  const report: ForgetReport = { target: archive.target, dryRun: req.dryRun, replays: [] };
  if (req.signal?.aborted) throw req.signal.reason;
  if (req.user !== undefined) {
    const platformId = Number(req.user);
    report.user = { platformId };
    if (!userForgotten) {
      report.user.entry = tombstone(req, userTombstoneId(req.user), 'user', { platformId });
      if (!req.dryRun) await archive.manifest.append(report.user.entry);
    }
  }
  // The assets each replay claimed before storing them (a failed or killed export's included): its own as well.
  for (const [id, c] of concerned) for await (const digest of archive.assets.claims(id)) c.assets.add(digest);
  const shared = await sharedAssets(archive, concerned);
  const assetsGone = new Set<string>();
  for (const [id, c] of concerned) {
    if (req.signal?.aborted) throw req.signal.reason;
    const unshared = [...c.assets].filter((digest) => !shared.has(digest)).sort();
    report.replays.push(await forgetReplay(archive, id, c, req, unshared, assetsGone));
  }
  return report;
}

/**
 * Forgets replays in an archive (a folder or `s3://bucket/prefix`): the named `replayIds`, or every replay of the
 * user `platformId`. Each gets a `forgotten` tombstone in the manifest (with `reason`, `recorded_at` and the outputs
 * it removes), then its outputs are deleted; a user also gets a tombstone of its own, so that later archive runs
 * skip every replay of the user, including replays listed only later. Later runs never export a forgotten replay
 * into this target again. Resolves with what was recorded and removed; a replay whose outputs could not be deleted
 * carries `error` (run the same call again to finish). Bad options throw `ConfigError` before anything is read; a
 * target `out` that holds no manifest throws `ArchiveNotFoundError` (nothing is created there). With `dryRun`, nothing
 * is written: the report says what would be.
 */
export async function forgetReplays(options: ForgetOptions): Promise<ForgetReport> {
  requestOf(options);
  const entry = entryRun(options);
  try {
    const { run } = entry;
    const archive = await run.archive({ create: false, needs: ['remove'] });
    return await forgetInArchive(archive, requestOf(options, run));
  } finally {
    await releaseRun(entry);
  }
}
