/**
 * The tests' s3rver (test/helpers/s3rver.ts): an object is whole on disk as soon as its PUT is answered, as in S3,
 * whatever the machine's load. Without the fixture's `putObject`, s3rver's own resolves while the file is still being
 * written, and a read right after sees fewer bytes (most of these puts, at 8 MiB: the store is asked directly, so that
 * no HTTP round trip gives the write time to end).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3rver, storeOf } from '../helpers/s3rver.js';

const BUCKET = 'fixture';
const SIZE = 8 * 1024 * 1024;
const ROUNDS = 4;

let server: S3rver;
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 's3rver-fixture-'));
  server = createS3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: BUCKET }],
  });
  await server.run();
});

afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('the s3rver fixture', () => {
  it("the store's putObject resolves once the file holds every byte, for a Buffer and for a stream body", async () => {
    const store = storeOf(server);
    const body = Buffer.alloc(SIZE, 7);
    const sizes: number[] = [];
    for (let i = 0; i < ROUNDS; i++)
      for (const [name, content] of [
        [`buffer-${i}`, body],
        [`stream-${i}`, Readable.from([body])],
      ] as const) {
        const answer = await store.putObject({ bucket: BUCKET, key: name, content, metadata: {} });
        expect(answer.size).toBe(SIZE);
        sizes.push((await stat(store.getResourcePath(BUCKET, name, 'object'))).size);
      }
    expect(sizes).toEqual(Array(2 * ROUNDS).fill(SIZE));
  });
});
