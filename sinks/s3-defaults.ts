/**
 * The S3 sink's defaults, apart from `s3.ts` so that reading them (the option checks of `open.ts`, the settings
 * table of the pipeline) never loads the AWS SDK.
 */

const MIB = 1024 * 1024;

export type S3Checksums = 'when-required' | 'when-supported';

export const S3_DEFAULTS = Object.freeze({
  /** Multipart part size in bytes. Memory per upload ≈ partSize × queueSize. */
  partSize: 8 * MIB,
  /** The smallest part size S3 accepts (every part but the last). */
  minPartSize: 5 * MIB,
  /** Parts uploaded in parallel per replay. */
  queueSize: 4,
  /** The region used with a custom `endpoint` when none is given (S3-compatible servers mostly ignore it). */
  endpointRegion: 'us-east-1',
});

/** `when-supported` on AWS (the SDK's own default); `when-required` with a custom endpoint, which may reject them. */
export function defaultChecksums(endpoint: string | undefined): S3Checksums {
  return endpoint === undefined ? 'when-supported' : 'when-required';
}
