/**
 * One replay uploaded to S3: streamed through a multipart `Upload` (bounded memory: about partSize × queueSize) to a
 * staging key `<prefix>/_staging/...`; once complete, its size is checked and a server-side copy creates the final
 * object with its Content-Type, Content-Encoding and `x-amz-meta-sha256` (known only at the end of the stream), then
 * the staging object is deleted. The final key therefore only ever holds a complete object with its checksum metadata.
 */
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { pageAssetParts, type CommitOptions } from './assets.js';
import { contentTypeFor, ReplayEncoder } from './encode.js';
import { describeCause, SinkError } from './errors.js';
import type { S3Link, S3Sdk } from './s3-link.js';
import { s3Error, type S3Context } from './s3-requests.js';
import type { CommitResult, EventRun, OutputSpec, ReplayWriter } from './sink.js';

const MIB = 1024 * 1024;
/** CopyObject copies at most 5 GiB; larger objects are copied in parts. */
const MAX_SINGLE_COPY = 5 * 1024 * MIB;
const COPY_PART_SIZE = 512 * MIB;
const MAX_PARTS = 10_000;

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

export interface S3WriterSetup {
  client: S3Link;
  /** The SDK's multipart upload and the client it sends with. */
  uploader: { Upload: S3Sdk['Upload']; client: S3Client };
  bucket: string;
  finalKey: string;
  stagingKey: string;
  partSize: number;
  queueSize: number;
  output: OutputSpec;
}

type WriterState = 'open' | 'committing' | 'committed' | 'aborted';

export class S3ReplayWriter implements ReplayWriter {
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
    const { Upload, client } = setup.uploader;
    const upload = new Upload({
      client,
      params: {
        Bucket: setup.bucket,
        Key: setup.stagingKey,
        Body: this.body,
        ContentType: this.contentType,
        ContentEncoding: this.contentEncoding,
      },
      partSize: setup.partSize,
      queueSize: setup.queueSize,
      leavePartsOnError: false,
    });
    const failures = failureLog(client);
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
          status: failure.status,
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
      const head = await client.send('HeadObject', { Bucket: bucket, Key: stagingKey });
      if (head.ContentLength !== summary.bytes) {
        throw new SinkError(
          'SINK_INTEGRITY',
          `uploaded object has ${String(head.ContentLength)} bytes, ${summary.bytes} were written`,
          this.context,
        );
      }
      if (summary.bytes <= MAX_SINGLE_COPY) {
        await client.send('CopyObject', {
          Bucket: bucket,
          Key: finalKey,
          CopySource: copySource(bucket, stagingKey),
          MetadataDirective: 'REPLACE',
          ContentType: this.contentType,
          ContentEncoding: this.contentEncoding,
          Metadata: { sha256: summary.sha256 },
        });
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
    const created = await client.send('CreateMultipartUpload', {
      Bucket: bucket,
      Key: finalKey,
      ContentType: this.contentType,
      ContentEncoding: this.contentEncoding,
      Metadata: { sha256 },
    });
    const uploadId = created.UploadId;
    try {
      const partBytes = Math.max(COPY_PART_SIZE, Math.ceil(size / MAX_PARTS));
      const parts: Array<{ PartNumber: number; ETag: string | undefined }> = [];
      for (let start = 0, number = 1; start < size; start += partBytes, number++) {
        const end = Math.min(size, start + partBytes) - 1;
        const result = await client.send('UploadPartCopy', {
          Bucket: bucket,
          Key: finalKey,
          UploadId: uploadId,
          PartNumber: number,
          CopySource: copySource(bucket, stagingKey),
          CopySourceRange: `bytes=${start}-${end}`,
        });
        parts.push({ PartNumber: number, ETag: result.CopyPartResult?.ETag });
      }
      await client.send('CompleteMultipartUpload', {
        Bucket: bucket,
        Key: finalKey,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
      });
    } catch (err) {
      await client
        .send('AbortMultipartUpload', { Bucket: bucket, Key: finalKey, UploadId: uploadId })
        .catch(() => undefined);
      throw err;
    }
  }

  private async deleteStaging(): Promise<void> {
    // Best effort: a leftover staging object never occupies a final key (see the lifecycle rule in the docs).
    await this.setup.client
      .send('DeleteObject', { Bucket: this.setup.bucket, Key: this.setup.stagingKey })
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
