/**
 * Where `view` (and `video`) read an archive from: a run's (`run.archive`, read-only: refused when it holds no
 * manifest, nothing created). It gives the archive's index (from its manifest) and opens a replay's stored output by the
 * key the layout gives it (checked by `eventsKeyOf`: a manifest is input too), in any format the manifest can name.
 */
import type { Readable } from 'node:stream';
import type { Archive } from '../../sinks/archive.js';
import { isAssetDigest, plainContentType, type ReplayAssets } from '../../sinks/assets.js';
import { replayKey } from '../../sinks/keys.js';
import type { ManifestEntry, OutputFormat } from '../../sinks/sink.js';
import { entryRun, releaseRun, type EntryOptions } from '../pipeline/run.js';
import type { Settings } from '../pipeline/settings.js';
import { ArchiveIndex, type StoredRef } from './archive-index.js';
import { ViewError } from './errors.js';

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
  readonly index: ArchiveIndex;
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

/** The asset maps of replay `id`'s last manifest entry. */
async function assetsIn(archive: Archive, id: string): Promise<ReplayAssets | undefined> {
  let last: ManifestEntry | undefined;
  for await (const entry of archive.manifest.read((replayId) => replayId === id)) last = entry;
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

/** The archive of the run of `options` (its `out`, or an open `run`'s), read-only, with its index loaded. */
export async function openArchiveSource(options: EntryOptions): Promise<ArchiveSource> {
  const entry = entryRun(options);
  let archive: Archive;
  let index: ArchiveIndex;
  try {
    archive = await entry.run.archive({ create: false, readOnly: true });
    index = await ArchiveIndex.load(archive);
  } catch (err) {
    await releaseRun(entry);
    throw err;
  }
  return {
    label: archive.target,
    settings: entry.run.settings,
    index,
    async open(entry) {
      const at = eventsKeyOf(entry);
      if (at === undefined) return undefined;
      const body = await archive.outputs.read(at.key);
      return body === undefined ? undefined : { key: at.key, body, format: at.format, gzip: at.gzip };
    },
    assetsOf: (id) => assetsIn(archive, id),
    readAsset: (digest) => (isAssetDigest(digest) ? archive.assets.read(digest) : Promise.resolve(undefined)),
    close: () => releaseRun(entry),
  };
}
