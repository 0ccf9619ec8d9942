/**
 * s3rver as every test starts it. Its filesystem store's `putObject` (s3rver/lib/stores/filesystem.js) answers before
 * the object's bytes are on disk: for a Buffer body it resolves right after `writeStream.end(buffer)`, for a stream
 * once its hashing Transform has finished, not the file stream behind it. A HEAD or GET right after a PUT then reads
 * the file while it is still being written (0 bytes under load: a `SINK_INTEGRITY` that S3 never gives, since S3 adds
 * no partial object). `createS3rver` makes the server with a `putObject` that resolves only once the file is written
 * and closed; what it stores, and where, is s3rver's own (its paths, metadata and MD5).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3rver from 's3rver';

export type S3rverOptions = ConstructorParameters<typeof S3rver>[0];

/** An object as s3rver's controllers hand it to the store (s3rver/lib/models/object.js). */
export interface StoredObject {
  bucket: string;
  key: string;
  content: Buffer | NodeJS.ReadableStream;
  metadata: Record<string, string>;
}

/** The part of s3rver's filesystem store the fixture replaces and calls. */
export interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
}

/** The store of a server (made by s3rver's constructor, before `run`). */
export function storeOf(server: S3rver): FilesystemStore {
  return (server as unknown as { store: FilesystemStore }).store;
}

/** An s3rver whose PUTs are answered only once the object is written (see above). */
export function createS3rver(options: S3rverOptions): S3rver {
  const server = new S3rver(options);
  const store = storeOf(server);
  store.putObject = (object) => putObjectWritten(store, object);
  return server;
}

/** s3rver's `putObject`, resolving once the object's file is written and closed, then its metadata. */
async function putObjectWritten(store: FilesystemStore, object: StoredObject): Promise<{ size: number; md5: string }> {
  const path = store.getResourcePath(object.bucket, object.key, 'object');
  await mkdir(dirname(path), { recursive: true });
  const md5 = createHash('md5');
  let size = 0;
  const body = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      md5.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(body, measure, createWriteStream(path));
  const digest = md5.digest('hex');
  await store.putMetadata(object.bucket, object.key, object.metadata, digest);
  return { size, md5: digest };
}
