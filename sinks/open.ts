import { fileURLToPath } from 'node:url';
import { SinkError } from './errors.js';
import { createLocalSink, type LocalSinkOptions } from './local.js';
import { createS3Sink, type S3SinkOptions } from './s3.js';
import { isS3Url } from './s3-url.js';
import type { Sink } from './sink.js';

export interface OpenSinkOptions {
  /** Options for `s3://` targets. */
  s3?: S3SinkOptions;
  /** Options for local folders. */
  local?: LocalSinkOptions;
}

/**
 * Opens the sink for a target: `s3://bucket/prefix` → S3, `file:///abs/path` or a plain path → local folder.
 * Other `scheme://` targets are refused rather than taken as folder names.
 */
export function openSink(target: string, options: OpenSinkOptions = {}): Sink {
  if (target.length === 0) throw new SinkError('SINK_CONFIG', 'empty output target');
  if (isS3Url(target)) return createS3Sink(target, options.s3);
  if (/^file:\/\//i.test(target)) return createLocalSink(fileURLToPath(target), options.local);
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(target)) {
    throw new SinkError('SINK_CONFIG', `unsupported output target scheme: ${target.slice(0, target.indexOf(':'))}`);
  }
  return createLocalSink(target, options.local);
}
