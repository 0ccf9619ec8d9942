/**
 * Issue #28, finding 2: one size limit per manifest record, for the writer and the reader alike. What the writer would
 * write over it is refused before a byte is written; what a reader meets over it (counted in bytes, not characters)
 * is refused too.
 */
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, test } from 'vitest';
import { openArchive } from '../../sinks/archive.js';
import { tempDir } from '../pipeline/helpers.js';
import { BUCKET, startS3 } from '../s3-cli/s3-helpers.js';
import { MAX_MANIFEST_RECORD_BYTES, parseManifestStream, serializeManifestEntry } from '../../sinks/manifest-lines.js';
import type { ManifestEntry } from '../../sinks/sink.js';
import { fileKeyFields, fileKeysDigest, MAX_INLINE_FILE_KEYS_BYTES } from '../../src/pipeline/manifest-entries.js';

const base = {
  replay_id: 'd/1',
  recorded_at: '2026-11-27T00:00:00.000Z',
  status: 'skipped',
  reason: 'settling',
} as const;

async function drain(chunks: Buffer[]): Promise<ManifestEntry[]> {
  const out: ManifestEntry[] = [];
  for await (const e of parseManifestStream(
    (async function* () {
      yield* chunks;
    })(),
  ))
    out.push(e);
  return out;
}

describe('the manifest record limit', () => {
  test('the writer refuses an entry the reader would refuse, naming the replay', () => {
    const big = { ...base, reason: 'x'.repeat(MAX_MANIFEST_RECORD_BYTES) } as ManifestEntry;
    expect(() => serializeManifestEntry(big)).toThrow(
      expect.objectContaining({ code: 'MANIFEST_TOO_LARGE', replayId: 'd/1' }),
    );
    const fits = { ...base, reason: 'x'.repeat(MAX_MANIFEST_RECORD_BYTES - 200) } as ManifestEntry;
    const line = serializeManifestEntry(fits);
    expect(line.length - 1).toBeLessThanOrEqual(MAX_MANIFEST_RECORD_BYTES);
  });

  test('whatever the writer writes, the reader reads back', async () => {
    const fits = { ...base, reason: 'x'.repeat(MAX_MANIFEST_RECORD_BYTES - 100) } as ManifestEntry;
    const line = serializeManifestEntry(fits);
    expect(await drain([line.subarray(0, 1000), line.subarray(1000)])).toHaveLength(1);
  });

  test('the reader counts bytes: a line of 3-byte characters under the limit in characters but over it in bytes is refused', async () => {
    const chars = Math.ceil(MAX_MANIFEST_RECORD_BYTES / 3) + 10;
    const line = Buffer.from(JSON.stringify({ ...base, reason: '字'.repeat(chars) }) + '\n');
    expect(line.toString('utf8').length).toBeLessThan(MAX_MANIFEST_RECORD_BYTES);
    await expect(drain([line])).rejects.toMatchObject({ code: 'MANIFEST_CORRUPT' });
  });

  test('file keys beyond the inline limit are recorded as a count and a digest', () => {
    const keys = Array.from({ length: 1300 }, (_, i) => `replays/${'k'.repeat(14_000)}/${i}`);
    const fields = fileKeyFields(
      keys,
      keys.map(() => 3),
    );
    expect(fields).toEqual({ file_count: 1300, file_keys_sha256: fileKeysDigest(keys) });
    const few = fileKeyFields(['a', 'b'], [3, 3]);
    expect(few).toEqual({ file_keys: ['a', 'b'], file_versions: [3, 3] });
    expect(MAX_INLINE_FILE_KEYS_BYTES).toBeLessThan(MAX_MANIFEST_RECORD_BYTES);
  });
});

describe('the manifest record limit on S3', () => {
  test('a log object over the limit is refused by the reader, named, before its body is read', async () => {
    const work = await tempDir('replay-export-record-s3-');
    const s3 = await startS3(join(work.dir, 's3'));
    try {
      const entry = { ...base, replay_id: 'dev/1', reason: 'x'.repeat(MAX_MANIFEST_RECORD_BYTES) };
      const key = 'big/_manifest/dev/1/1795000000000-ab12-0000000001.json';
      await s3.reader.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: JSON.stringify(entry) }));
      const archive = await openArchive(`s3://${BUCKET}/big`, {
        create: false,
        s3: {
          endpoint: s3.endpoint,
          forcePathStyle: true,
          region: 'us-east-1',
          credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        },
      });
      try {
        const read = async (): Promise<number> => {
          let n = 0;
          for await (const _ of archive.manifest.read()) n++;
          return n;
        };
        await expect(read()).rejects.toMatchObject({
          code: 'MANIFEST_CORRUPT',
          message: expect.stringContaining('larger than 16777216 bytes'),
        });
      } finally {
        await archive.close();
      }
    } finally {
      await s3.stop();
      await work.cleanup();
    }
  }, 60_000);
});
