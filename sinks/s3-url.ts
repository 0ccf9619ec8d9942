import { SinkError } from './errors.js';

export interface S3Location {
  bucket: string;
  /** Key prefix without leading or trailing `/` (may be empty). */
  prefix: string;
}

/** Whether a target names S3 (`s3://...`). */
export function isS3Url(target: string): boolean {
  return /^s3:\/\//i.test(target);
}

/** Parses `s3://bucket[/prefix]`. The prefix is kept byte for byte apart from leading/trailing slashes. */
export function parseS3Url(url: string): S3Location {
  if (!isS3Url(url)) throw new SinkError('SINK_CONFIG', `not an s3:// URL: ${url}`);
  const rest = url.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  const prefix = slash === -1 ? '' : rest.slice(slash + 1).replace(/^\/+|\/+$/g, '');
  if (bucket.length === 0 || /[\s?#@:]/.test(bucket)) {
    throw new SinkError('SINK_CONFIG', `invalid bucket in S3 target s3://${bucket}`);
  }
  if (prefix.split('/').some((s) => s === '.' || s === '..' || s === '')) {
    if (prefix !== '') throw new SinkError('SINK_CONFIG', `invalid S3 prefix (empty, . or .. segment): ${prefix}`);
  }
  return { bucket, prefix };
}

/** `s3://bucket/prefix` for display (never credentials: none are ever part of the URL). */
export function formatS3Url(location: S3Location): string {
  return `s3://${location.bucket}${location.prefix === '' ? '' : '/' + location.prefix}`;
}
