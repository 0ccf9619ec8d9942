/**
 * Where `view` (and `video`) read an archive from: a run's (`run.archive`, read-only: refused when it holds no
 * manifest, nothing created). It gives the archive's catalogue (built from its manifest when it has none, or a stale
 * one) and opens a replay's stored output by the key the layout gives it (checked by `eventsKeyOf`: a manifest is input too), in any format the manifest can name.
 */
import type { Readable } from 'node:stream';
import type { Archive } from '../../sinks/archive.js';
import { isAssetDigest, plainContentType, type ReplayAssets } from '../../sinks/assets.js';
import { replayKey } from '../../sinks/keys.js';
import type { ManifestEntry, OkEntry, OutputFormat } from '../../sinks/sink.js';
import { type Catalogue, type CatalogueOptions, catalogueIn, openCatalogue } from '../catalogue/index.js';
import { entryRun, releaseRun, type EntryOptions } from '../pipeline/run.js';
import type { Settings } from '../pipeline/settings.js';
import { ViewError } from './errors.js';

/** Where an `ok` entry says its output is (the manifest is input: checked by `eventsKeyOf` before use). */
type StoredRef = Pick<OkEntry, 'replay_id' | 'key'> & { format: unknown; gzip: unknown };

interface StoredObject {
  /** The object's key in the archive (named in errors). */
  key: string;
  body: Readable;
  format: OutputFormat;
  gzip: boolean;
}

export interface ArchiveSource {
  /** The archive as shown to the user (a resolved path, or `s3://bucket/prefix`). */
  readonly label: string;
  /** The settings of the run it is read through (its limits). */
  readonly settings: Settings;
  /**
   * The archive's catalogue (src/catalogue/), current with its manifest when opened; undefined when opened without
   * (`catalogue: false`: one replay looked up, as a video export does).
   */
  readonly catalogue: Catalogue | undefined;
  /** A replay's stored output and whether it has captured assets: from the catalogue, else its manifest lines. */
  replay(id: string): Promise<{ stored: StoredRef | undefined; hasAssets: boolean } | undefined>;
  /** The replay's stored output; undefined when it is gone. */
  open(stored: StoredRef): Promise<StoredObject | undefined>;
  /**
   * The captured assets of a replay (`--capture-assets`), from its last manifest entry, read again (the index keeps
   * no asset map: memory stays one page of rows); undefined when it has none.
   */
  assetsOf(id: string): Promise<ReplayAssets | undefined>;
  /** A captured asset's bytes (`_assets/<digest>`); undefined when not stored or not a digest. */
  readAsset(digest: string): Promise<Readable | undefined>;
  close(): Promise<void>;
}

const FORMATS: readonly unknown[] = ['json', 'ndjson', 'html'] satisfies OutputFormat[];

/** The key of a replay's stored output, checked against the layout; undefined when the entry names none. */
function eventsKeyOf(entry: StoredRef): { key: string; format: OutputFormat; gzip: boolean } | undefined {
  if (typeof entry.key !== 'string' || !FORMATS.includes(entry.format)) return undefined;
  const format = entry.format as OutputFormat;
  const gzip = entry.gzip === true;
  const expected = replayKey(entry.replay_id, { format, gzip });
  if (entry.key !== expected) {
    throw new ViewError('VIEW_UNSAFE_KEY', `the manifest's key for this replay is not the layout's key`, {
      replayId: entry.replay_id,
      fileKey: entry.key,
    });
  }
  return { key: expected, format, gzip };
}

/** Replay `id`'s last manifest entry (its lines alone are kept while the manifest streams past). */
async function lastEntry(archive: Archive, id: string): Promise<ManifestEntry | undefined> {
  let last: ManifestEntry | undefined;
  for await (const entry of archive.manifest.read((replayId) => replayId === id)) last = entry;
  return last;
}

/** What `view` needs of a replay, read from its manifest lines. */
async function replayOf(
  archive: Archive,
  id: string,
): Promise<{ stored: StoredRef | undefined; hasAssets: boolean } | undefined> {
  const last = await lastEntry(archive, id);
  if (last === undefined) return undefined;
  if (last.status !== 'ok') return { stored: undefined, hasAssets: false };
  const assets = last.assets;
  return {
    stored: { replay_id: last.replay_id, key: last.key, format: last.format, gzip: last.gzip },
    hasAssets: assets !== null && typeof assets === 'object' && Object.keys(assets).length > 0,
  };
}

/** The asset maps of replay `id`'s last manifest entry. */
async function assetsIn(archive: Archive, id: string): Promise<ReplayAssets | undefined> {
  const last = await lastEntry(archive, id);
  const urls = last?.status === 'ok' ? last.assets : undefined;
  const types = last?.status === 'ok' ? last.asset_types : undefined;
  if (urls === null || typeof urls !== 'object' || types === null || typeof types !== 'object') return undefined;
  // The manifest is input too: only digests, and plain types, reach the page.
  const kept: Record<string, string> = {};
  const typed: Record<string, string> = {};
  for (const [url, digest] of Object.entries(urls)) {
    if (!isAssetDigest(digest)) continue;
    kept[url] = digest;
    typed[digest] = plainContentType((types as Record<string, unknown>)[digest]);
  }
  return { urls: kept, types: typed };
}

/** An archive source with its catalogue. */
export type CataloguedSource = ArchiveSource & { readonly catalogue: Catalogue };

/**
 * The archive of the run of `options` (its `out`, or an open `run`'s), read-only, with its catalogue (in the folder
 * `catalogue.dir`, else the run's `catalogueDir`, else the default); `catalogue: false` opens none.
 */
export async function openArchiveSource(options: EntryOptions, catalogue: false): Promise<ArchiveSource>;
export async function openArchiveSource(options: EntryOptions, catalogue?: CatalogueOptions): Promise<CataloguedSource>;
export async function openArchiveSource(
  options: EntryOptions,
  catalogueOptions: CatalogueOptions | false = {},
): Promise<ArchiveSource> {
  const entry = entryRun(options);
  let archive: Archive;
  let catalogue: Catalogue | undefined;
  try {
    archive = await entry.run.archive({ create: false, readOnly: true });
    catalogue =
      catalogueOptions === false
        ? undefined
        : await openCatalogue(archive, catalogueIn(catalogueOptions, entry.run.settings.catalogueDir));
  } catch (err) {
    await releaseRun(entry);
    throw err;
  }
  return {
    label: archive.target,
    settings: entry.run.settings,
    catalogue,
    async replay(id) {
      if (catalogue === undefined) return replayOf(archive, id);
      const row = catalogue.get(id);
      return row && { stored: row.stored, hasAssets: row.hasAssets };
    },
    async open(entry) {
      const at = eventsKeyOf(entry);
      if (at === undefined) return undefined;
      const body = await archive.outputs.read(at.key);
      return body === undefined ? undefined : { key: at.key, body, format: at.format, gzip: at.gzip };
    },
    assetsOf: (id) => assetsIn(archive, id),
    readAsset: (digest) => (isAssetDigest(digest) ? archive.assets.read(digest) : Promise.resolve(undefined)),
    close: async () => {
      catalogue?.close();
      await releaseRun(entry);
    },
  };
}
