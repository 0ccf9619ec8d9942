/**
 * The one local/S3 switch: where a target is (`locateArchive`) and its built-in store (`openStore`), which `openArchive`
 * and `openSink` both use. Making a store opens nothing and loads no SDK: the S3 store loads it on its first request.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SinkError } from './errors.js';
import { createLocalSink, type LocalSinkOptions } from './local.js';
import { createS3Sink, type S3SinkOptions } from './s3.js';
import { formatS3Url, isS3Url, parseS3Url } from './s3-url.js';
import type { Store } from './store.js';

/** Where a target is: an S3 prefix or a local folder. */
export type ArchiveLocation = { kind: 's3'; url: string; target: string } | { kind: 'local'; target: string };

/**
 * Tells where `target` is: `s3://bucket/prefix` → S3, `file:///abs/path` or a plain path → a local folder (resolved).
 * Other `scheme://` targets are refused (`SINK_CONFIG`) rather than taken as folder names.
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

export interface OpenStoreOptions {
  /** Options for local folders. */
  local?: LocalSinkOptions;
  /** Options for `s3://` targets. */
  s3?: S3SinkOptions;
}

/** The built-in store of `target` (see `locateArchive`); bad options are refused at once. */
export function openStore(target: string, options: OpenStoreOptions = {}): Store {
  const location = locateArchive(target);
  return location.kind === 's3'
    ? createS3Sink(location.url, options.s3)
    : createLocalSink(location.target, options.local);
}
