/**
 * Where `view` reads an archive from: a local folder or `s3://bucket/prefix`. Either gives the archive's index (from
 * its manifest) and opens a replay's stored events object by the key the layout gives it (checked by `eventsKeyOf`:
 * a manifest is input too). The AWS SDK is loaded only for an S3 archive.
 */
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { assetKey, isAssetDigest, plainContentType, type ReplayAssets } from '../../sinks/assets.js';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalSink } from '../../sinks/local.js';
import type { S3SinkOptions } from '../../sinks/s3.js';
import { isS3Url } from '../../sinks/s3-url.js';
import type { ManifestEntry, Sink } from '../../sinks/sink.js';
import { ArchiveIndex } from './archive-index.js';
import { ViewError } from './errors.js';
import { eventsKeyOf, openLocalObject, type StoredObject } from './local-object.js';

export interface ArchiveSource {
  /** The archive as shown to the user (a resolved path, or `s3://bucket/prefix`). */
  readonly label: string;
  readonly index: ArchiveIndex;
  /** The replay's stored events object; undefined when it has none `view` can read (or it is gone). */
  open(entry: ManifestEntry): Promise<StoredObject | undefined>;
  /**
   * The captured assets of a replay (`--capture-assets`), from its last manifest entry, read again (the index keeps
   * no asset map: memory stays one page of rows); undefined when it has none.
   */
  assetsOf(id: string): Promise<ReplayAssets | undefined>;
  /** A captured asset's bytes (`_assets/<digest>`); undefined when not stored or not a digest. */
  readAsset(digest: string): Promise<Readable | undefined>;
  close(): Promise<void>;
}

/** The asset maps of replay `id`'s last manifest entry in `sink`. */
async function assetsIn(sink: Sink, id: string): Promise<ReplayAssets | undefined> {
  let last: ManifestEntry | undefined;
  for await (const entry of sink.readManifest((replayId) => replayId === id)) if (entry?.replay_id === id) last = entry;
  const urls = last?.assets;
  const types = last?.asset_types;
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

export async function openArchiveSource(archive: string, s3: S3SinkOptions = {}): Promise<ArchiveSource> {
  if (isS3Url(archive)) return openS3Source(archive, s3);
  const root = await localArchiveRoot(archive, (message) => new ViewError('VIEW_UNSUPPORTED_ARCHIVE', message));
  // Kept open for the assets it reads (a local sink holds no connection).
  const sink = createLocalSink(root);
  let index: ArchiveIndex;
  try {
    index = await ArchiveIndex.load(sink);
  } catch (err) {
    await sink.close();
    throw err;
  }
  return {
    label: root,
    index,
    open: (entry) => openLocalObject(root, entry),
    async assetsOf(id) {
      const reading = createLocalSink(root);
      try {
        return await assetsIn(reading, id);
      } finally {
        await reading.close();
      }
    },
    readAsset: (digest) => (isAssetDigest(digest) ? sink.readAsset!(digest) : Promise.resolve(undefined)),
    close: () => sink.close(),
  };
}

async function openS3Source(archive: string, options: S3SinkOptions): Promise<ArchiveSource> {
  const { createS3Reader, createS3Sink } = await import('../../sinks/s3.js');
  const sink = createS3Sink(archive, options);
  let index: ArchiveIndex;
  try {
    index = await ArchiveIndex.load(sink);
  } finally {
    await sink.close();
  }
  const reader = createS3Reader(archive, options);
  return {
    label: sink.target,
    index,
    async open(entry) {
      const at = eventsKeyOf(entry);
      if (at === undefined) return undefined;
      const body = await reader.read(at.key);
      return body === undefined ? undefined : { body, format: at.format, gzip: at.gzip };
    },
    async assetsOf(id) {
      const reading = createS3Sink(archive, options);
      try {
        return await assetsIn(reading, id);
      } finally {
        await reading.close();
      }
    },
    readAsset: (digest) => (isAssetDigest(digest) ? reader.read(assetKey(digest, sink.target)) : Promise.resolve(undefined)),
    close: async () => reader.close(),
  };
}

/**
 * The folder of a local archive (a path, or a `file://` URL), resolved; `refuse` makes the error for any other scheme
 * or for a path that is not a folder.
 */
export async function localArchiveRoot(archive: string, refuse: (message: string) => Error): Promise<string> {
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(archive) && !/^file:\/\//i.test(archive)) throw refuse(`unsupported archive scheme: ${archive.slice(0, archive.indexOf(':'))}`);
  const root = /^file:\/\//i.test(archive) ? fileURLToPath(archive) : resolve(archive);
  const st = await stat(root).catch(() => undefined);
  if (st === undefined || !st.isDirectory()) throw refuse(`the archive ${root} is not a folder`);
  return root;
}
