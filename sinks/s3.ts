import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCopyCommand,
  type CompletedPart,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  ASSETS_DIR,
  assetKey,
  checkAssetBody,
  isAssetDigest,
  pageAssetParts,
  plainContentType,
  type CommitOptions,
} from './assets.js';
import { contentTypeFor, ReplayEncoder } from './encode.js';
import { describeCause, SinkError } from './errors.js';
import { checkOutputKey, replayKey } from './keys.js';
import {
  compactS3Manifest,
  MANIFEST_DIR,
  readS3Manifest,
  s3ManifestStamp,
  S3ManifestLog,
  type S3ManifestPlace,
} from './s3-manifest.js';
import { claimFolder, claimKey } from './layout.js';
import { isNotFound, listKeys, s3Error, type S3Context } from './s3-requests.js';
import { defaultChecksums, S3_DEFAULTS, type S3Checksums } from './s3-defaults.js';
import { formatS3Url, parseS3Url } from './s3-url.js';
import { s3WorkClaims } from './s3-work-claims.js';
import type {
  CommitResult,
  EventRun,
  ManifestCompaction,
  ManifestCompactionResult,
  ManifestEntry,
  OutputSpec,
  ReplayWriter,
  Sink,
} from './sink.js';

export type { S3Checksums };

export interface S3SinkOptions {
  /** S3-compatible endpoint, e.g. `http://127.0.0.1:9000`. Default: AWS. */
  endpoint?: string;
  /** Path-style addressing (`endpoint/bucket/key`), needed by most S3-compatible servers. */
  forcePathStyle?: boolean;
  /**
   * Region; default the SDK's chain (`AWS_REGION`, config files), `us-east-1` with a custom endpoint. The sink reads
   * no environment variable itself: the pipeline's settings pass `AWS_REGION` / `AWS_DEFAULT_REGION` here.
   */
  region?: string;
  /** Static credentials; default the SDK's standard chain (env, shared files, SSO, container/instance roles). */
  credentials?: S3ClientConfig['credentials'];
  /** Multipart part size in bytes (minimum 5 MiB, default 8 MiB). Memory per upload ≈ partSize × queueSize. */
  partSize?: number;
  /** Parts uploaded in parallel per replay (default 4). */
  queueSize?: number;
  /**
   * `when-supported` (the SDK's default on AWS): CRC checksums on every upload and response validation.
   * `when-required`: only where S3 demands one — for S3-compatible servers that reject the SDK's checksum headers
   * or aws-chunked bodies. Default: `when-supported` on AWS, `when-required` with a custom `endpoint`.
   */
  checksums?: S3Checksums;
  /** Use this client instead of creating one (the options above other than part/queue size are then ignored). */
  client?: S3Client;
}

const MIB = 1024 * 1024;
const MIN_PART_SIZE = S3_DEFAULTS.minPartSize;
/** Largest object a single CopyObject may copy. */
const MAX_SINGLE_COPY = 5 * 1024 * MIB;
const COPY_PART_SIZE = 512 * MIB;
const MAX_PARTS = 10_000;
const STAGING_DIR = '_staging';

const UPLOAD_COMMANDS = new Set([
  'PutObjectCommand',
  'CreateMultipartUploadCommand',
  'UploadPartCommand',
  'CompleteMultipartUploadCommand',
]);
const firstFailures = new WeakMap<S3Client, Map<string, unknown>>();

/**
 * Remembers the first failed upload request per object key. lib-storage reports a failed AbortMultipartUpload
 * instead of the failure that caused it (e.g. on servers without AbortMultipartUpload); this keeps the real cause.
 */
function failureLog(client: S3Client): Map<string, unknown> {
  let log = firstFailures.get(client);
  if (log === undefined) {
    const created = new Map<string, unknown>();
    log = created;
    firstFailures.set(client, created);
    client.middlewareStack.add(
      (next, context) => async (args) => {
        try {
          return await next(args);
        } catch (err) {
          const key = (args.input as { Key?: unknown }).Key;
          if (typeof key === 'string' && UPLOAD_COMMANDS.has(context.commandName ?? '') && !created.has(key)) {
            created.set(key, err);
          }
          throw err;
        }
      },
      { step: 'initialize', priority: 'high', name: 'replayExportUploadFailureLog' },
    );
  }
  return log;
}

/** `x-amz-copy-source`: bucket and key, each path segment URI-encoded. */
function copySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * A sink writing to `s3://bucket/prefix`: objects `<prefix>/<device>/<session>.json[.gz]` (or `.ndjson[.gz]`) and
 * one manifest object per recorded outcome under `<prefix>/_manifest/`.
 *
 * Each replay streams through a multipart `Upload` (bounded memory: about partSize × queueSize) to a staging key
 * `<prefix>/_staging/...`; once complete, its size is checked and a server-side copy creates the final object with
 * its Content-Type, Content-Encoding and `x-amz-meta-sha256` (known only at the end of the stream), then the staging
 * object is deleted. The final key therefore only ever holds a complete object with its checksum metadata.
 */
export function createS3Sink(url: string, opts: S3SinkOptions = {}): Sink {
  return createS3Store(url, opts).sink;
}

/** An S3 sink with what reading an archive back needs besides (see `openArchive` in `./archive.js`); one client. */
export interface S3Store {
  readonly sink: Sink;
  /** The object at `key` (relative to the prefix), streamed; undefined when there is none. */
  read(key: string): Promise<Readable | undefined>;
  /** Whether the prefix holds a manifest (any object under `_manifest/`), asked with one listing of at most one key. */
  hasManifest(): Promise<boolean>;
}

/** The S3 sink of `url` (see `createS3Sink`), with a reader of its objects and its manifest's presence. */
export function createS3Store(url: string, opts: S3SinkOptions = {}): S3Store {
  const location = parseS3Url(url);
  const target = formatS3Url(location);
  const { bucket } = location;
  const base = location.prefix === '' ? '' : location.prefix + '/';
  const partSize = opts.partSize ?? S3_DEFAULTS.partSize;
  const queueSize = opts.queueSize ?? S3_DEFAULTS.queueSize;
  if (!Number.isSafeInteger(partSize) || partSize < MIN_PART_SIZE) {
    throw new SinkError('SINK_CONFIG', `S3 part size must be an integer of at least ${MIN_PART_SIZE} bytes (5 MiB)`, {
      target,
    });
  }
  if (!Number.isSafeInteger(queueSize) || queueSize < 1) {
    throw new SinkError('SINK_CONFIG', 'S3 queue size must be a positive integer', { target });
  }
  if (opts.checksums !== undefined && opts.checksums !== 'when-required' && opts.checksums !== 'when-supported') {
    throw new SinkError('SINK_CONFIG', `S3 checksums must be when-required or when-supported`, { target });
  }
  const ownClient = opts.client === undefined;
  const client = opts.client ?? createClient(opts);
  const manifest: S3ManifestPlace = { client, bucket, base, target, writerId: randomBytes(6).toString('hex') };
  const log = new S3ManifestLog(manifest);
  let closed = false;
  /** Digests this sink stored or found stored: not asked about again (a HEAD per asset per run, not per replay). */
  const storedAssets = new Set<string>();
  const MAX_REMEMBERED_ASSETS = 100_000;

  const read = async (key: string): Promise<Readable | undefined> => {
    try {
      const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: base + key }));
      return response.Body instanceof Readable ? response.Body : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw s3Error(`GetObject ${key} failed`, err, { target, key });
    }
  };
  const readAsset = (digest: string): Promise<Readable | undefined> => read(assetKey(digest, target));

  /** Deletes the object at `key` (an output's or an asset's); true when one was there. */
  const removeAt = async (key: string): Promise<boolean> => {
    // DeleteObject answers the same whether or not the object was there: a HEAD first tells.
    if (!(await sink.exists(key))) return false;
    try {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: base + key }));
    } catch (err) {
      throw s3Error(`DeleteObject ${key} failed`, err, { target, key });
    }
    return true;
  };

  const sink: Sink = {
    target,

    keyFor(replayId: string, output: OutputSpec): string {
      return replayKey(replayId, output);
    },

    async open(replayId: string, output: OutputSpec): Promise<ReplayWriter> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target, replayId });
      const key = replayKey(replayId, output);
      const stagingKey = `${base}${STAGING_DIR}/${Date.now()}-${randomBytes(8).toString('hex')}`;
      return new S3ReplayWriter(
        { client, bucket, finalKey: base + key, stagingKey, partSize, queueSize, output },
        key,
        { target, key, replayId },
        readAsset,
      );
    },

    async putAsset(digest: string, type: string, body: Buffer, owner?: string): Promise<void> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target });
      const key = assetKey(digest, target);
      if (storedAssets.has(digest)) return;
      checkAssetBody(digest, body, target);
      let present = true;
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: base + key }));
      } catch (err) {
        if (!isNotFound(err)) throw s3Error(`HeadObject ${key} failed`, err, { target, key });
        present = false;
      }
      if (!present) {
        if (owner !== undefined) {
          // The claim first (write-ahead): an empty object naming the replay that owns the asset.
          const claim = claimKey(owner, digest, target);
          try {
            await client.send(new PutObjectCommand({ Bucket: bucket, Key: base + claim, Body: Buffer.alloc(0) }));
          } catch (err) {
            throw s3Error(`cannot record the claim ${claim}`, err, { target, key: claim, replayId: owner });
          }
        }
        try {
          // One PutObject: the object appears complete or not at all.
          await client.send(
            new PutObjectCommand({
              Bucket: bucket,
              Key: base + key,
              Body: body,
              ContentType: plainContentType(type),
              Metadata: { sha256: digest },
            }),
          );
        } catch (err) {
          throw s3Error(`PutObject ${key} failed`, err, { target, key });
        }
      }
      if (storedAssets.size >= MAX_REMEMBERED_ASSETS) storedAssets.clear();
      storedAssets.add(digest);
    },

    readAsset,

    async *assetClaims(replayId: string): AsyncIterable<string> {
      const prefix = base + claimFolder(replayId);
      for await (const key of listKeys(client, bucket, prefix, `the asset claims of ${replayId}`, {
        target,
        key: claimFolder(replayId),
      })) {
        const name = key.slice(prefix.length);
        if (isAssetDigest(name)) yield name;
      }
    },

    async removeAssetClaims(replayId: string): Promise<void> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target });
      for await (const digest of sink.assetClaims!(replayId)) {
        const key = claimKey(replayId, digest, target);
        try {
          await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: base + key }));
        } catch (err) {
          throw s3Error(`DeleteObject ${key} failed`, err, { target, key, replayId });
        }
      }
    },

    workClaims: (run) => s3WorkClaims(client, bucket, base, target, run),

    async *storedObjects(): AsyncIterable<string> {
      for await (const key of listKeys(client, bucket, base, 'the archive', { target, key: '' }))
        yield key.slice(base.length);
    },

    async exists(key: string): Promise<boolean> {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: base + key }));
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw s3Error(`HeadObject ${key} failed`, err, { target, key });
      }
    },

    async remove(key: string): Promise<boolean> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target, key });
      checkOutputKey(key, target);
      return removeAt(key);
    },

    async removeAsset(digest: string): Promise<boolean> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target });
      storedAssets.delete(digest);
      return removeAt(assetKey(digest, target));
    },

    storedKeys(): AsyncIterable<string> {
      return listOutputKeys(client, bucket, base, target);
    },

    async appendManifest(entry: ManifestEntry): Promise<void> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target });
      await log.append(entry);
    },

    readManifest(keep?: (replayId: string) => boolean): AsyncIterable<ManifestEntry> {
      return readS3Manifest(manifest, keep);
    },

    manifestStamp(): Promise<string> {
      return s3ManifestStamp(manifest);
    },

    async compactManifest(options: ManifestCompaction): Promise<ManifestCompactionResult> {
      if (closed) throw new SinkError('SINK_STATE', 'sink is closed', { target });
      return compactS3Manifest(manifest, options);
    },

    async close(): Promise<void> {
      closed = true;
      if (ownClient) client.destroy();
    },
  };
  const hasManifest = async (): Promise<boolean> => {
    try {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: `${base}${MANIFEST_DIR}/`, MaxKeys: 1 }),
      );
      return (page.Contents ?? []).length > 0;
    } catch (err) {
      throw s3Error('cannot look for the manifest', err, { target, key: `${MANIFEST_DIR}/` });
    }
  };
  return { sink, read, hasManifest };
}

function createClient(opts: S3SinkOptions): S3Client {
  const checksums = opts.checksums ?? defaultChecksums(opts.endpoint);
  const mode = checksums === 'when-required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED';
  const region = opts.region ?? (opts.endpoint === undefined ? undefined : S3_DEFAULTS.endpointRegion);
  const config: S3ClientConfig = {
    requestChecksumCalculation: mode,
    responseChecksumValidation: mode,
  };
  if (region !== undefined) config.region = region;
  if (opts.endpoint !== undefined) config.endpoint = opts.endpoint;
  if (opts.forcePathStyle !== undefined) config.forcePathStyle = opts.forcePathStyle;
  if (opts.credentials !== undefined) config.credentials = opts.credentials;
  return new S3Client(config);
}

/**
 * The keys of the replay outputs under `base`, relative to it: one listing in key order that jumps over the manifest's
 * and the staging objects (`StartAfter` the folder's name + '0', which sorts right after every `name/...` key).
 */
async function* listOutputKeys(client: S3Client, bucket: string, base: string, target: string): AsyncIterable<string> {
  const skipped = [ASSETS_DIR, MANIFEST_DIR, STAGING_DIR];
  let startAfter: string | undefined;
  for (;;) {
    let restart: string | undefined;
    for await (const key of listKeys(client, bucket, base, 'the outputs', { target, key: '' }, startAfter)) {
      const relative = key.slice(base.length);
      const folder = skipped.find((name) => relative.startsWith(`${name}/`));
      if (folder !== undefined) {
        restart = `${base}${folder}0`;
        break;
      }
      yield relative;
    }
    if (restart === undefined) return;
    startAfter = restart;
  }
}

interface S3WriterSetup {
  client: S3Client;
  bucket: string;
  finalKey: string;
  stagingKey: string;
  partSize: number;
  queueSize: number;
  output: OutputSpec;
}

type WriterState = 'open' | 'committing' | 'committed' | 'aborted';

class S3ReplayWriter implements ReplayWriter {
  private state: WriterState = 'open';
  private readonly body: PassThrough;
  private readonly uploaded: Promise<unknown>;
  private uploadFailure: unknown;
  private readonly encoder: ReplayEncoder;
  private readonly contentType: string;
  private readonly contentEncoding: string | undefined;
  private stagingComplete = false;

  constructor(
    private readonly setup: S3WriterSetup,
    readonly key: string,
    private readonly context: S3Context,
    private readonly readAsset: (digest: string) => Promise<Readable | undefined>,
  ) {
    this.contentType = contentTypeFor(setup.output);
    this.contentEncoding = setup.output.gzip ? 'gzip' : undefined;
    this.body = new PassThrough({ highWaterMark: MIB });
    const upload = new Upload({
      client: setup.client,
      params: {
        Bucket: setup.bucket,
        Key: setup.stagingKey,
        Body: this.body,
        ContentType: this.contentType,
        ...(this.contentEncoding === undefined ? {} : { ContentEncoding: this.contentEncoding }),
      },
      partSize: setup.partSize,
      queueSize: setup.queueSize,
      leavePartsOnError: false,
    });
    const failures = failureLog(setup.client);
    this.uploaded = upload.done().then(
      (result) => {
        failures.delete(setup.stagingKey);
        return result;
      },
      (err: unknown) => {
        const first = failures.get(setup.stagingKey);
        failures.delete(setup.stagingKey);
        if (first === undefined || first === err) throw err;
        const failure = s3Error('upload failed', first, context);
        throw new SinkError(failure.code, `${failure.message} (then: ${describeCause(err)})`, {
          ...context,
          ...(failure.status === undefined ? {} : { status: failure.status }),
          cause: first,
        });
      },
    );
    this.uploaded.catch((err: unknown) => {
      this.uploadFailure ??= err;
      this.body.destroy();
    });
    this.encoder = new ReplayEncoder(
      setup.output,
      { write: (chunk) => this.push(chunk), writev: (chunks) => this.pushAll(chunks) },
      context,
    );
  }

  /** Hands several chunks to the upload in order without joining them (the Upload copies them into its parts). */
  private async pushAll(chunks: readonly Buffer[]): Promise<void> {
    for (const chunk of chunks) await this.push(chunk);
  }

  private async push(chunk: Buffer): Promise<void> {
    if (this.uploadFailure !== undefined) throw s3Error('upload failed', this.uploadFailure, this.context);
    if (!this.body.write(chunk)) {
      try {
        await Promise.race([once(this.body, 'drain'), this.uploaded]);
      } catch (err) {
        // The Upload stopped reading (its reader destroys the body): its own failure is the cause.
        await this.uploaded.catch(() => undefined);
        throw s3Error('upload failed', this.uploadFailure ?? err, this.context);
      }
    }
    if (this.uploadFailure !== undefined) throw s3Error('upload failed', this.uploadFailure, this.context);
  }

  write(events: readonly Buffer[]): Promise<void> {
    return this.feed(() => this.encoder.write(events));
  }

  writeRuns(runs: readonly EventRun[]): Promise<void> {
    return this.feed(() => this.encoder.writeRuns(runs));
  }

  /** Hands events to the encoder while open; any failure aborts the upload (nothing appears at the key). */
  private async feed(encode: () => Promise<void>): Promise<void> {
    if (this.state !== 'open') throw new SinkError('SINK_STATE', `write after ${this.state}`, this.context);
    try {
      await encode();
    } catch (err) {
      await this.abort(err);
      throw s3Error('cannot upload the replay', err, this.context);
    }
  }

  async commit(options: CommitOptions = {}): Promise<CommitResult> {
    if (this.state !== 'open') throw new SinkError('SINK_STATE', `commit after ${this.state}`, this.context);
    this.state = 'committing';
    const { client, bucket, stagingKey, finalKey } = this.setup;
    try {
      const assets = options.assets;
      const summary = await this.encoder.finish(assets && pageAssetParts(assets, this.readAsset, this.context.target));
      this.body.end();
      await this.uploaded;
      this.stagingComplete = true;
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: stagingKey }));
      if (head.ContentLength !== summary.bytes) {
        throw new SinkError(
          'SINK_INTEGRITY',
          `uploaded object has ${String(head.ContentLength)} bytes, ${summary.bytes} were written`,
          this.context,
        );
      }
      if (summary.bytes <= MAX_SINGLE_COPY) {
        await client.send(
          new CopyObjectCommand({
            Bucket: bucket,
            Key: finalKey,
            CopySource: copySource(bucket, stagingKey),
            MetadataDirective: 'REPLACE',
            ContentType: this.contentType,
            ...(this.contentEncoding === undefined ? {} : { ContentEncoding: this.contentEncoding }),
            Metadata: { sha256: summary.sha256 },
          }),
        );
      } else {
        await this.copyInParts(summary.bytes, summary.sha256);
      }
      this.state = 'committed';
      await this.deleteStaging();
      return { key: this.key, bytes: summary.bytes, sha256: summary.sha256, eventCount: summary.eventCount };
    } catch (err) {
      if (this.state !== 'committed') {
        this.state = 'open';
        await this.abort(err);
      }
      throw s3Error('cannot commit the replay', err, this.context);
    }
  }

  /** Server-side multipart copy for objects over 5 GiB (CopyObject's limit). */
  private async copyInParts(size: number, sha256: string): Promise<void> {
    const { client, bucket, stagingKey, finalKey } = this.setup;
    const created = await client.send(
      new CreateMultipartUploadCommand({
        Bucket: bucket,
        Key: finalKey,
        ContentType: this.contentType,
        ...(this.contentEncoding === undefined ? {} : { ContentEncoding: this.contentEncoding }),
        Metadata: { sha256 },
      }),
    );
    const uploadId = created.UploadId;
    try {
      const partBytes = Math.max(COPY_PART_SIZE, Math.ceil(size / MAX_PARTS));
      const parts: CompletedPart[] = [];
      for (let start = 0, number = 1; start < size; start += partBytes, number++) {
        const end = Math.min(size, start + partBytes) - 1;
        const result = await client.send(
          new UploadPartCopyCommand({
            Bucket: bucket,
            Key: finalKey,
            UploadId: uploadId,
            PartNumber: number,
            CopySource: copySource(bucket, stagingKey),
            CopySourceRange: `bytes=${start}-${end}`,
          }),
        );
        parts.push({ PartNumber: number, ETag: result.CopyPartResult?.ETag });
      }
      await client.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: finalKey,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (err) {
      await client
        .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: finalKey, UploadId: uploadId }))
        .catch(() => undefined);
      throw err;
    }
  }

  private async deleteStaging(): Promise<void> {
    // Best effort: a leftover staging object never occupies a final key (see the lifecycle rule in the docs).
    await this.setup.client
      .send(new DeleteObjectCommand({ Bucket: this.setup.bucket, Key: this.setup.stagingKey }))
      .catch(() => undefined);
  }

  async abort(reason?: unknown): Promise<void> {
    if (this.state === 'aborted' || this.state === 'committed') return;
    this.state = 'aborted';
    this.encoder.destroy(reason);
    // Ending the body with an error makes the Upload stop reading, wait for its parts in flight and abort the
    // multipart upload (leavePartsOnError: false) before `done()` settles.
    this.body.destroy(reason instanceof Error ? reason : new Error('replay aborted'));
    const completed = await this.uploaded.then(
      () => true,
      () => false,
    );
    if (completed || this.stagingComplete) await this.deleteStaging();
  }
}
