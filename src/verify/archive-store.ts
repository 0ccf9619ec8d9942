/**
 * An archive as `verify` reads it — a local folder or `s3://bucket/prefix` — through the sink's own interface (its
 * manifest, its listing of outputs) and a reader of stored objects, so that how a sink keeps its manifest stays its
 * own business. The AWS SDK is loaded only for an S3 archive.
 */
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createLocalSink } from '../../sinks/local.js';
import type { S3SinkOptions } from '../../sinks/s3.js';
import { isS3Url } from '../../sinks/s3-url.js';
import type { Sink } from '../../sinks/sink.js';
import { localArchiveRoot } from '../view/archive-source.js';
import { openLocalKey } from '../view/local-object.js';
import { VerifyError } from './errors.js';

export interface ArchiveStore {
  /** The archive as shown to the user: a resolved path, or `s3://bucket/prefix`. */
  readonly target: string;
  /** The archive's sink, for its manifest (`readManifest`). */
  readonly sink: Sink;
  /** The stored object at `key` (a layout key), streamed; undefined when there is none. */
  read(key: string, replayId: string): Promise<Readable | undefined>;
  /** The key of every stored output (not the sink's own files), once each. */
  storedKeys(): AsyncIterable<string>;
  close(): Promise<void>;
}

export async function openArchiveStore(archive: string, s3: S3SinkOptions = {}): Promise<ArchiveStore> {
  if (isS3Url(archive)) {
    const { createS3Reader, createS3Sink } = await import('../../sinks/s3.js');
    const sink = createS3Sink(archive, s3);
    const reader = createS3Reader(archive, s3);
    return {
      target: sink.target,
      sink,
      read: (key) => reader.read(key),
      storedKeys: () => sink.storedKeys!(),
      async close() {
        reader.close();
        await sink.close();
      },
    };
  }
  const root = await localArchiveRoot(archive, (message) => new VerifyError('VERIFY_UNSUPPORTED_ARCHIVE', message));
  const sink = createLocalSink(root, { hashWorker: false, cleanStaleTemp: false });
  return {
    target: root,
    sink,
    read: (key, replayId) => openLocalKey(root, key, replayId),
    storedKeys: () => localOutputKeys(root),
    close: () => sink.close(),
  };
}

/** Names the local sink keeps for itself at any depth (`_…`, and `.…` for temporary files): never outputs. */
function isSinkName(name: string): boolean {
  return name.startsWith('_') || name.startsWith('.');
}

/**
 * Every file (or link, or other non-folder) below the folders of a local archive, as `/`-separated keys, walked one
 * open folder per level. Files at the top level are the sink's (its manifest and what it keeps beside it), never
 * outputs, whose keys always have a folder (`<device>/<session>.<ext>`); folders are not followed through links.
 */
async function* localOutputKeys(root: string): AsyncGenerator<string> {
  yield* walk(root, '');
}

async function* walk(dir: string, prefix: string): AsyncGenerator<string> {
  for await (const entry of await opendir(dir)) {
    if (isSinkName(entry.name)) continue;
    if (entry.isDirectory()) yield* walk(join(dir, entry.name), `${prefix}${entry.name}/`);
    else if (prefix !== '') yield prefix + entry.name;
  }
}
