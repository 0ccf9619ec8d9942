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
import type { Readable } from 'node:stream';
import { assetKey } from './assets.js';
import { ArchiveNotFoundError, SinkError } from './errors.js';
import { openStore, type OpenStoreOptions } from './locate.js';
import { type ManifestBytes, type ManifestFile, manifestLines } from './manifest-lines.js';
import { isStore, type Store } from './store.js';
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
   * Every entry as the bytes of the manifest's files (`read` without `keep`, unparsed): what a catalogue's build thread
   * parses. A caller's sink gives its entries serialised again, one a line.
   */
  bytes(): ManifestBytes;
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
   * The key of every object under the target, the archive's own included (what `verify` checks); for a caller's sink
   * that cannot list them (no `storedObjects`), its outputs (`outputs.list`).
   */
  objects(): AsyncIterable<string>;
  /**
   * The work claims of the balanced run `run` (sinks/work-claims.ts); `SinkError` `SINK_CONFIG` for a caller's sink
   * without `workClaims`, or a name that is not a run's name.
   */
  work(run: string): WorkClaims;
  /** Ends what the archive holds open (files, the S3 client). Safe to call more than once. */
  close(): Promise<void>;
}

export interface OpenArchiveOptions extends OpenStoreOptions {
  /**
   * `true` (writers: `archive`, `export`): the folder or prefix is made when first written to. `false` (readers:
   * `forget`, `verify`, `view`): a target without a manifest is refused with `ArchiveNotFoundError`, creating nothing.
   */
  create: boolean;
}

export { locateArchive, type ArchiveLocation } from './locate.js';

/**
 * Opens the archive at `target` (see `locateArchive`): the built-in store of a folder or an S3 prefix (the AWS SDK is
 * loaded by the S3 store when it first sends a request). With `create: false`, resolves only when the target holds a
 * manifest (else `ArchiveNotFoundError`, nothing created).
 */
export async function openArchive(target: string, options: OpenArchiveOptions): Promise<Archive> {
  const store = openStore(target, options);
  if (!options.create) {
    const found = await store.hasManifest().catch(async (err: unknown) => {
      await store.close();
      throw err;
    });
    if (!found) {
      await store.close();
      throw new ArchiveNotFoundError(store.target);
    }
  }
  return archiveOfStore(store, true);
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

/** A built-in store as an archive: every member is there (`Store`), nothing to check. `owned`: closed with it. */
function archiveOfStore(store: Store, owned: boolean): Archive {
  const target = store.target;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => (closed ??= owned ? store.close() : Promise.resolve());
  return {
    target,
    outputs: {
      keyFor: (replayId, output) => store.keyFor(replayId, output),
      open: (replayId, output) => store.open(replayId, output),
      async exists(key) {
        checkKey(key, target);
        return store.exists(key);
      },
      async read(key) {
        checkKey(key, target);
        return store.read(key);
      },
      list: () => store.storedKeys(),
      listsInBulk: store.listsInBulk,
      remove: (key) => store.remove(key),
    },
    manifest: {
      append: (entry) => store.appendManifest(entry),
      async *read(keep) {
        for await (const entry of store.readManifest(keep))
          if (keep === undefined || keep(entry.replay_id)) yield entry;
      },
      bytes: () => store.readManifestBytes(),
      compact: (options) => store.compactManifest(options),
      stamp: () => store.manifestStamp(),
    },
    assets: {
      put: (digest, type, body, owner) => store.putAsset(digest, type, body, owner),
      has: (digest) => store.exists(assetKey(digest, target)),
      read: (digest) => store.readAsset(digest),
      remove: (digest) => store.removeAsset(digest),
      claims: (replayId) => store.assetClaims(replayId),
      unclaim: (replayId) => store.removeAssetClaims(replayId),
    },
    objects: () => store.storedObjects(),
    work: (run) => store.workClaims(run),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** What a caller's own sink lacks of a built-in store: its optional members, each refused when used. */
function completed(sink: Sink): Store {
  const target = sink.target;
  const unsupported = (what: string): SinkError =>
    new SinkError('SINK_CONFIG', `the sink of ${target} cannot ${what}`, { target });
  const refuse = (what: string) => () => Promise.reject(unsupported(what));
  const storedKeys = sink.storedKeys?.bind(sink);
  return {
    target,
    keyFor: (replayId, output) => sink.keyFor(replayId, output),
    open: (replayId, output) => sink.open(replayId, output),
    exists: (key) => sink.exists(key),
    appendManifest: (entry) => sink.appendManifest(entry),
    readManifest: (keep) => sink.readManifest(keep),
    readManifestBytes: () => ({ newest: 'last', files: oneFile('manifest', manifestLines(sink.readManifest())) }),
    close: () => sink.close(),
    storedKeys: storedKeys ?? (() => rejecting(unsupported('list its outputs'))),
    listsInBulk: storedKeys !== undefined,
    storedObjects: sink.storedObjects?.bind(sink) ?? storedKeys ?? (() => rejecting(unsupported('list its outputs'))),
    read: refuse('read outputs back'),
    hasManifest: () => Promise.resolve(true),
    // Without a stamp the archive's catalogue is never taken as current: built again each time it is opened.
    manifestStamp: sink.manifestStamp?.bind(sink) ?? (() => Promise.resolve(undefined)),
    compactManifest:
      sink.compactManifest?.bind(sink) ??
      (() => Promise.resolve({ compacted: false, entries: 0, folded: 0, removed: 0 })),
    remove: sink.remove?.bind(sink) ?? refuse('remove outputs (it has no remove method)'),
    putAsset: sink.putAsset?.bind(sink) ?? refuse('store assets (it has no putAsset method)'),
    readAsset: sink.readAsset?.bind(sink) ?? refuse('read assets (it has no readAsset method)'),
    removeAsset: sink.removeAsset?.bind(sink) ?? refuse('remove assets (it has no removeAsset method)'),
    // A sink that keeps no claims has none to give, and none to remove.
    assetClaims: sink.assetClaims?.bind(sink) ?? none,
    removeAssetClaims: sink.removeAssetClaims?.bind(sink) ?? (() => Promise.resolve()),
    workClaims:
      sink.workClaims?.bind(sink) ??
      (() => {
        throw unsupported('hold work claims (it has no workClaims method)');
      }),
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
  if (isStore(sink)) return archiveOfStore(sink, false);
  for (const need of needs) {
    const missing = need === 'remove' ? sink.remove === undefined : sink.putAsset === undefined;
    if (missing) {
      const what =
        need === 'remove' ? 'remove outputs (it has no remove method)' : 'store assets (it has no putAsset method)';
      throw new SinkError('SINK_CONFIG', `the sink of ${target} cannot ${what}`, { target });
    }
  }
  return archiveOfStore(completed(sink), false);
}

async function* none(): AsyncGenerator<string> {}

async function* oneFile(key: string, chunks: AsyncIterable<Uint8Array>): AsyncIterable<ManifestFile> {
  yield { key, chunks };
}

function rejecting(err: Error): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(err) }),
  };
}
