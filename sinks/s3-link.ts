/**
 * The S3 store's connection, made when it first sends a request: the AWS SDK (`@aws-sdk/client-s3`, `@aws-sdk/lib-storage`,
 * about 27 MB of memory) is imported then, not when the store is made, so that a process writing to a folder — or one
 * that only opens an `s3://` store and checks its options — never loads it. Every request of the S3 store goes through
 * `send`, by the operation's name.
 */
import type * as S3 from '@aws-sdk/client-s3';
import type { Upload } from '@aws-sdk/lib-storage';
import { SinkError } from './errors.js';

/** The SDK's modules, once loaded. */
export interface S3Sdk {
  s3: typeof S3;
  Upload: typeof Upload;
}

let loading: Promise<S3Sdk> | undefined;

/** Imports the SDK (once a process). */
function loadS3Sdk(): Promise<S3Sdk> {
  loading ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, storage]) => ({
    s3,
    Upload: storage.Upload,
  }));
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** The operations the store sends: input and output of each. */
export interface S3Operations {
  AbortMultipartUpload: [S3.AbortMultipartUploadCommandInput, S3.AbortMultipartUploadCommandOutput];
  CompleteMultipartUpload: [S3.CompleteMultipartUploadCommandInput, S3.CompleteMultipartUploadCommandOutput];
  CopyObject: [S3.CopyObjectCommandInput, S3.CopyObjectCommandOutput];
  CreateMultipartUpload: [S3.CreateMultipartUploadCommandInput, S3.CreateMultipartUploadCommandOutput];
  DeleteObject: [S3.DeleteObjectCommandInput, S3.DeleteObjectCommandOutput];
  DeleteObjects: [S3.DeleteObjectsCommandInput, S3.DeleteObjectsCommandOutput];
  GetObject: [S3.GetObjectCommandInput, S3.GetObjectCommandOutput];
  HeadObject: [S3.HeadObjectCommandInput, S3.HeadObjectCommandOutput];
  ListObjectsV2: [S3.ListObjectsV2CommandInput, S3.ListObjectsV2CommandOutput];
  PutObject: [S3.PutObjectCommandInput, S3.PutObjectCommandOutput];
  UploadPartCopy: [S3.UploadPartCopyCommandInput, S3.UploadPartCopyCommandOutput];
}

type AnyCommand = Parameters<S3.S3Client['send']>[0];

/** A client made on first use (`make`), or the caller's own (never destroyed here). */
export class S3Link {
  #client: Promise<S3.S3Client> | undefined;
  #made = false;
  #closed = false;

  constructor(
    /** The store's target, for errors. */
    private readonly target: string,
    private readonly make: (sdk: S3Sdk) => S3.S3Client,
    private readonly own?: S3.S3Client,
  ) {}

  /** The client (the SDK loaded and the client made the first time); refused once the store is closed. */
  client(): Promise<S3.S3Client> {
    if (this.#closed) return Promise.reject(new SinkError('SINK_STATE', 'sink is closed', { target: this.target }));
    this.#client ??= loadS3Sdk().then((sdk) => {
      if (this.own !== undefined) return this.own;
      this.#made = true;
      return this.make(sdk);
    });
    this.#client.catch(() => {
      this.#client = undefined;
    });
    return this.#client;
  }

  /** Sends the operation `op` with `input`. */
  async send<K extends keyof S3Operations>(op: K, input: S3Operations[K][0]): Promise<S3Operations[K][1]> {
    const [{ s3 }, client] = await Promise.all([loadS3Sdk(), this.client()]);
    const Command = s3[`${op}Command`] as unknown as new (input: S3Operations[K][0]) => AnyCommand;
    return (await client.send(new Command(input))) as S3Operations[K][1];
  }

  /** The SDK's `Upload` and the client, for a multipart upload of a stream. */
  async uploader(): Promise<{ Upload: S3Sdk['Upload']; client: S3.S3Client }> {
    const [{ Upload }, client] = await Promise.all([loadS3Sdk(), this.client()]);
    return { Upload, client };
  }

  /** Destroys the client this link made (a caller's own stays theirs); nothing when none was made. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const client = await this.#client?.catch(() => undefined);
    if (this.#made) client?.destroy();
  }
}
