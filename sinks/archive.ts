/**
 * An archive — a local folder or `s3://bucket/prefix` — opened once, as narrow stores: its replay outputs, its
 * manifest and its captured assets. `openArchive` is the one place that tells a local target from an S3 one; every
 * command and library entry (archive, export, forget, verify, view) goes through it. The local and S3 sinks
 * (`./local.js`, `./s3.js`) do the work underneath; a caller's own `Sink` (the library's `sink` option) is adapted by
 * `archiveOfSink`.
 *
 * `create: false` (what the commands that read use) refuses a target that holds no manifest with
 * `ArchiveNotFoundError`, having created nothing there: no folder, no object.
 */
import { lstat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { assetKey } from './assets.js';
import { ArchiveNotFoundError, SinkError } from './errors.js';
import { createLocalSink, type LocalSinkOptions } from './local.js';
import { MANIFEST_FILE, MANIFEST_FOLDER } from './local-manifest.js';
import { localOutputKeys, readLocalObject } from './local-outputs.js';
import type { S3SinkOptions } from './s3.js';
import { formatS3Url, isS3Url, parseS3Url } from './s3-url.js';
import type {
  ManifestCompaction,
  ManifestCompactionResult,
  ManifestEntry,
  OutputSpec,
  ReplayWriter,
  Sink,
  WorkClaims,
} from './sink.js';

/** The replay outputs of an archive, by key (`<device>/<session>.<ext>[.gz]`, relative to the target). */
export interface OutputStore {
  /** Final key for a replay id in this layout (pure; the key `open(...)` writes). */
  keyFor(replayId: string, output: OutputSpec): string;
  /** Starts writing one replay; it appears at its key only when committed, whole. */
  open(replayId: string, output: OutputSpec): Promise<ReplayWriter>;
  /** Whether a complete output is stored at `key` (never through a symbolic link). */
  exists(key: string): Promise<boolean>;
  /** The stored object at `key`, streamed; undefined when there is none. */
  read(key: string): Promise<Readable | undefined>;
  /** The key of every stored output (not the manifest, assets or staging objects), once each. */
  list(): AsyncIterable<string>;
  /**
   * Whether `list` costs far less than an `exists` per key (S3: 1,000 keys a request against a HEAD each), so that a
   * resume lists once instead of asking per archived replay. Local: false (an `lstat` per replay is cheap).
   */
  readonly listsInBulk: boolean;
  /**
   * Deletes the output at `key` and resolves whether one was there. Only a replay output key of the layout is taken
   * (`isOutputKey`); anything else is refused with `SinkError` `SINK_PATH_ESCAPE`. A link is never followed.
   */
  remove(key: string): Promise<boolean>;
}

/** The archive's manifest: one line per outcome; the last entry of a replay is its state. */
export interface ManifestStore {
  /** Records one outcome durably; safe with several processes writing to the same target. */
  append(entry: ManifestEntry): Promise<void>;
  /**
   * Every entry recorded so far, each replay's oldest first. With `keep`, exactly the entries of the replays it takes,
   * on either backend (S3 fetches less; a local archive reads and drops the others).
   */
  read(keep?: (replayId: string) => boolean): AsyncIterable<ManifestEntry>;
  /**
   * Folds the entries into a snapshot, removing what it folded; the state `read` gives is the same before, during and
   * after, on either backend. `layout` names the snapshot on S3 (a local archive keeps one snapshot of everything).
   */
  compact(options: ManifestCompaction): Promise<ManifestCompactionResult>;
  /**
   * A string that changes whenever `read` may give something else (an append, a fold); undefined when the sink cannot
   * tell (a caller's sink without `manifestStamp`). What a catalogue of the archive compares to know it is current.
   */
  stamp(): Promise<string | undefined>;
}

/** Captured assets (`--capture-assets`), content-addressed at `_assets/<sha256>`. */
export interface AssetStore {
  /**
   * Stores an asset unless it is there already (`digest`: the hex SHA-256 of `body`, checked); whole or not at all.
   * With `owner` (a replay id), an asset not stored yet is claimed by it first, durably (a caller's own sink may not).
   */
  put(digest: string, type: string, body: Buffer, owner?: string): Promise<void>;
  /** Whether the asset of `digest` is stored. */
  has(digest: string): Promise<boolean>;
  /** The stored asset of `digest`, streamed; undefined when there is none. */
  read(digest: string): Promise<Readable | undefined>;
  /** Deletes the asset of `digest` (never through a link); true when it was there. */
  remove(digest: string): Promise<boolean>;
  /** The digests `replayId` claimed (none for a sink without `assetClaims`). */
  claims(replayId: string): AsyncIterable<string>;
  /** Removes every claim of `replayId`. */
  unclaim(replayId: string): Promise<void>;
}

export interface Archive extends AsyncDisposable {
  /** Human-readable target: a resolved path or `s3://bucket/prefix`. Never contains credentials. */
  readonly target: string;
  readonly outputs: OutputStore;
  readonly manifest: ManifestStore;
  readonly assets: AssetStore;
  /**
   * The key of every object under the target, the archive's own included (what `verify` checks); undefined for a
   * caller's sink that cannot list them (`storedObjects`).
   */
  objects(): AsyncIterable<string> | undefined;
  /**
   * The work claims of the balanced run `run` (sinks/work-claims.ts); `SinkError` `SINK_CONFIG` for a caller's sink
   * without `workClaims`, or a name that is not a run's name.
   */
  work(run: string): WorkClaims;
  /** Ends what the archive holds open (files, the S3 client). Safe to call more than once. */
  close(): Promise<void>;
}

export interface OpenArchiveOptions {
  /**
   * `true` (writers: `archive`, `export`): the folder or prefix is made when first written to. `false` (readers:
   * `forget`, `verify`, `view`): a target without a manifest is refused with `ArchiveNotFoundError`, creating nothing.
   */
  create: boolean;
  /** Options for local folders. */
  local?: LocalSinkOptions;
  /** Options for `s3://` targets. */
  s3?: S3SinkOptions;
}

/** Where a target is: an S3 prefix or a local folder. */
export type ArchiveLocation = { kind: 's3'; url: string; target: string } | { kind: 'local'; target: string };

/**
 * Tells where `target` is: `s3://bucket/prefix` → S3, `file:///abs/path` or a plain path → a local folder (resolved).
 * Other `scheme://` targets are refused (`SINK_CONFIG`) rather than taken as folder names. The one local/S3 switch.
 */
export function locateArchive(target: string): ArchiveLocation {
  if (target.length === 0) throw new SinkError('SINK_CONFIG', 'empty output target');
  if (isS3Url(target)) return { kind: 's3', url: target, target: formatS3Url(parseS3Url(target)) };
  if (/^file:\/\//i.test(target)) return { kind: 'local', target: resolve(fileURLToPath(target)) };
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(target)) {
    throw new SinkError(
      'SINK_CONFIG',
      `unsupported target scheme: ${target.slice(0, target.indexOf(':'))} (a folder, a file:// URL or s3://bucket/prefix)`,
    );
  }
  return { kind: 'local', target: resolve(target) };
}

/** What an archive is made of underneath: a sink, and the reading the `Sink` contract leaves out. */
interface Backend {
  sink: Sink;
  read(key: string): Promise<Readable | undefined>;
  list(): AsyncIterable<string>;
  listsInBulk: boolean;
}

/**
 * Opens the archive at `target` (see `locateArchive`). The AWS SDK is loaded only for an `s3://` target. With
 * `create: false`, resolves only when the target holds a manifest (else `ArchiveNotFoundError`, nothing created).
 */
export async function openArchive(target: string, options: OpenArchiveOptions): Promise<Archive> {
  const location = locateArchive(target);
  if (location.kind === 'local') {
    const root = location.target;
    if (!options.create && !(await hasLocalManifest(root))) throw new ArchiveNotFoundError(root);
    const sink = createLocalSink(root, options.local);
    return archiveOf(
      { sink, read: (key) => readLocalObject(root, key), list: () => localOutputKeys(root), listsInBulk: false },
      true,
    );
  }
  const { createS3Store } = await import('./s3.js');
  const store = createS3Store(location.url, options.s3);
  if (!options.create) {
    const found = await store.hasManifest().catch(async (err: unknown) => {
      await store.sink.close();
      throw err;
    });
    if (!found) {
      await store.sink.close();
      throw new ArchiveNotFoundError(store.sink.target);
    }
  }
  return archiveOf(
    { sink: store.sink, read: store.read, list: () => store.sink.storedKeys!(), listsInBulk: true },
    true,
  );
}

/** Whether a local folder holds a manifest: the log `manifest.ndjson`, or the folder of its snapshot. */
async function hasLocalManifest(root: string): Promise<boolean> {
  for (const name of [MANIFEST_FILE, MANIFEST_FOLDER]) {
    try {
      await lstat(resolve(root, name));
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        throw new SinkError('SINK_IO', `cannot look for the manifest in ${root}: ${(err as Error).message}`, {
          target: root,
          cause: err,
        });
    }
  }
  return false;
}

/**
 * Refuses a key that could leave the target or name something else than it says: empty, absolute, with an empty,
 * `.` or `..` segment, a backslash or a NUL. The layout's keys never are.
 */
function checkKey(key: string, target: string): void {
  const segments = key.split('/');
  if (
    key.length === 0 ||
    key.includes('\\') ||
    key.includes('\0') ||
    segments.some((s) => s === '' || s === '.' || s === '..')
  ) {
    throw new SinkError('SINK_PATH_ESCAPE', `key ${JSON.stringify(key.slice(0, 300))} resolves outside the target`, {
      target,
      key,
    });
  }
}

function archiveOf(backend: Backend, owned: boolean): Archive {
  const { sink } = backend;
  const target = sink.target;
  const unsupported = (what: string): SinkError =>
    new SinkError('SINK_CONFIG', `the sink of ${target} cannot ${what}`, { target });
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => (closed ??= owned ? sink.close() : Promise.resolve());
  return {
    target,
    outputs: {
      keyFor: (replayId, output) => sink.keyFor(replayId, output),
      open: (replayId, output) => sink.open(replayId, output),
      async exists(key) {
        checkKey(key, target);
        return sink.exists(key);
      },
      async read(key) {
        checkKey(key, target);
        return backend.read(key);
      },
      list: () => backend.list(),
      listsInBulk: backend.listsInBulk,
      async remove(key) {
        if (sink.remove === undefined) throw unsupported('remove outputs (it has no remove method)');
        return sink.remove(key);
      },
    },
    manifest: {
      append: (entry) => sink.appendManifest(entry),
      async *read(keep) {
        for await (const entry of sink.readManifest(keep)) if (keep === undefined || keep(entry.replay_id)) yield entry;
      },
      async compact(options) {
        if (sink.compactManifest === undefined) return { compacted: false, entries: 0, folded: 0, removed: 0 };
        return sink.compactManifest(options);
      },
      stamp: async () => sink.manifestStamp?.(),
    },
    assets: {
      async put(digest, type, body, owner) {
        if (sink.putAsset === undefined) throw unsupported('store assets (it has no putAsset method)');
        return sink.putAsset(digest, type, body, owner);
      },
      has: (digest) => sink.exists(assetKey(digest, target)),
      async read(digest) {
        if (sink.readAsset === undefined) throw unsupported('read assets (it has no readAsset method)');
        return sink.readAsset(digest);
      },
      async remove(digest) {
        if (sink.removeAsset === undefined) throw unsupported('remove assets (it has no removeAsset method)');
        return sink.removeAsset(digest);
      },
      claims: (replayId) => sink.assetClaims?.(replayId) ?? none(),
      unclaim: async (replayId) => sink.removeAssetClaims?.(replayId),
    },
    objects: () => sink.storedObjects?.(),
    work(run) {
      if (sink.workClaims === undefined) throw unsupported('hold work claims (it has no workClaims method)');
      return sink.workClaims(run);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** What a caller's own sink must be able to do for an entry: checked when it is adapted, before anything is written. */
export type SinkNeed = 'remove' | 'assets';

/**
 * A caller's own `Sink` as an `Archive` (the library's `sink` option). Its optional members become the stores'
 * methods; one it lacks fails with `SinkError` `SINK_CONFIG` when used — at once, here, when `needs` names it. The
 * archive's `close` leaves the sink open: it is the caller's. Reading stored outputs back (`outputs.read`, `list`) is
 * not part of the `Sink` contract: a sink that lists (`storedKeys`) lists, `read` is refused.
 */
export function archiveOfSink(sink: Sink, needs: readonly SinkNeed[] = []): Archive {
  const target = sink.target;
  for (const need of needs) {
    const missing = need === 'remove' ? sink.remove === undefined : sink.putAsset === undefined;
    if (missing) {
      const what =
        need === 'remove' ? 'remove outputs (it has no remove method)' : 'store assets (it has no putAsset method)';
      throw new SinkError('SINK_CONFIG', `the sink of ${target} cannot ${what}`, { target });
    }
  }
  const storedKeys = sink.storedKeys?.bind(sink);
  return archiveOf(
    {
      sink,
      read: () =>
        Promise.reject(new SinkError('SINK_CONFIG', `the sink of ${target} cannot read outputs back`, { target })),
      list:
        storedKeys ??
        (() => rejecting(new SinkError('SINK_CONFIG', `the sink of ${target} cannot list its outputs`, { target }))),
      listsInBulk: storedKeys !== undefined,
    },
    false,
  );
}

async function* none(): AsyncGenerator<string> {}

async function* rejecting(err: Error): AsyncGenerator<string> {
  throw err;
}
