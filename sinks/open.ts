import type { Readable } from 'node:stream';
import { SinkError } from './errors.js';
import { replayKey } from './keys.js';
import { createLocalSink, type LocalSinkOptions } from './local.js';
import type { S3SinkOptions } from './s3.js';
import { S3_DEFAULTS } from './s3-defaults.js';
import { formatS3Url, parseS3Url } from './s3-url.js';
import { locateArchive } from './archive.js';
import type {
  ManifestCompaction,
  ManifestCompactionResult,
  ManifestEntry,
  OutputSpec,
  ReplayWriter,
  Sink,
  WorkClaims,
} from './sink.js';
import { checkRun } from './work-claims.js';

export interface OpenSinkOptions {
  /** Options for `s3://` targets. */
  s3?: S3SinkOptions | undefined;
  /** Options for local folders. */
  local?: LocalSinkOptions | undefined;
}

/**
 * Opens the sink for a target, as `openArchive` tells them apart (`locateArchive`): `s3://bucket/prefix` → S3,
 * `file:///abs/path` or a plain path → local folder; other `scheme://` targets are refused. For your own code that
 * writes through the `Sink` contract; the pipeline itself opens targets with `openArchive`.
 */
export function openSink(target: string, options: OpenSinkOptions = {}): Sink {
  const location = locateArchive(target);
  return location.kind === 's3'
    ? createS3SinkLazily(location.url, options.s3)
    : createLocalSink(location.target, options.local);
}

const MIN_PART_SIZE = S3_DEFAULTS.minPartSize;

/** The option checks `createS3Sink` makes, made here too so that bad options fail at once, before the SDK loads. */
function checkS3Options(opts: S3SinkOptions, target: string): void {
  const { partSize, queueSize, checksums } = opts;
  if (partSize !== undefined && (!Number.isSafeInteger(partSize) || partSize < MIN_PART_SIZE)) {
    throw new SinkError('SINK_CONFIG', `S3 part size must be an integer of at least ${MIN_PART_SIZE} bytes (5 MiB)`, {
      target,
    });
  }
  if (queueSize !== undefined && (!Number.isSafeInteger(queueSize) || queueSize < 1)) {
    throw new SinkError('SINK_CONFIG', 'S3 queue size must be a positive integer', { target });
  }
  if (checksums !== undefined && checksums !== 'when-required' && checksums !== 'when-supported') {
    throw new SinkError('SINK_CONFIG', `S3 checksums must be when-required or when-supported`, { target });
  }
}

/**
 * The S3 sink of `s3://bucket/prefix` (see `createS3Sink` in `./s3.js`), loading the AWS SDK only when the sink is
 * first used: a process that writes to local folders never loads it (about 27 MB of memory). The URL and the
 * options are checked at once; everything else behaves as the sink created by `createS3Sink`.
 */
export function createS3SinkLazily(url: string, opts: S3SinkOptions = {}): Sink {
  const target = formatS3Url(parseS3Url(url));
  checkS3Options(opts, target);
  let inner: Promise<Sink> | undefined;
  let closed = false;
  const load = (): Promise<Sink> => {
    if (closed) return Promise.reject(new SinkError('SINK_STATE', 'sink is closed', { target }));
    inner ??= import('./s3.js').then((m) => m.createS3Sink(url, opts));
    return inner;
  };
  return {
    target,
    keyFor(replayId: string, output: OutputSpec): string {
      return replayKey(replayId, output);
    },
    async open(replayId: string, output: OutputSpec): Promise<ReplayWriter> {
      return (await load()).open(replayId, output);
    },
    async exists(key: string): Promise<boolean> {
      return (await load()).exists(key);
    },
    async *storedKeys(): AsyncIterable<string> {
      // The S3 sink always lists its keys.
      yield* (await load()).storedKeys!();
    },
    async remove(key: string): Promise<boolean> {
      // The S3 sink always removes.
      return (await load()).remove!(key);
    },
    async putAsset(digest: string, type: string, body: Buffer): Promise<void> {
      // The S3 sink always stores assets.
      return (await load()).putAsset!(digest, type, body);
    },
    async removeAsset(digest: string): Promise<boolean> {
      return (await load()).removeAsset!(digest);
    },
    async readAsset(digest: string): Promise<Readable | undefined> {
      return (await load()).readAsset!(digest);
    },
    async appendManifest(entry: ManifestEntry): Promise<void> {
      return (await load()).appendManifest(entry);
    },
    async *readManifest(keep?: (replayId: string) => boolean): AsyncIterable<ManifestEntry> {
      yield* (await load()).readManifest(keep);
    },
    async compactManifest(options: ManifestCompaction): Promise<ManifestCompactionResult> {
      // The S3 sink always folds.
      return (await load()).compactManifest!(options);
    },
    workClaims(run: string): WorkClaims {
      checkRun(run, target);
      // The S3 sink always holds claims.
      const claims = (): Promise<WorkClaims> => load().then((sink) => sink.workClaims!(run));
      return {
        take: async (replayId, holder) => (await claims()).take(replayId, holder),
        retake: async (replayId, holder) => (await claims()).retake(replayId, holder),
        finish: async (replayId) => (await claims()).finish(replayId),
        finishedAt: async (replayId) => (await claims()).finishedAt(replayId),
        clearOtherRuns: async () => (await claims()).clearOtherRuns(),
      };
    },
    async close(): Promise<void> {
      closed = true;
      if (inner !== undefined) await (await inner).close();
    },
  };
}
