/**
 * The contract of `openArchive`, run alike against a local folder and an S3 prefix (s3rver over loopback): a target
 * without a manifest refused for reading with nothing created; outputs written, found, listed, read back and removed;
 * the manifest's append/read/compact giving the same state on both; assets stored, read and removed; keys that would
 * leave the target refused.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../../sinks/archive.js';
import { ArchiveNotFoundError } from '../../sinks/errors.js';
import type { S3SinkOptions } from '../../sinks/s3.js';
import type { ManifestEntry } from '../../sinks/sink.js';
import { createS3rver } from '../helpers/s3rver.js';

const BUCKET = 'contract';
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

let server: S3rver;
let s3dir: string;
let localDir: string;
let endpoint: string;
let lister: S3Client;
let n = 0;

beforeAll(async () => {
  s3dir = await mkdtemp(join(tmpdir(), 's3rver-contract-'));
  localDir = await mkdtemp(join(tmpdir(), 'archive-contract-'));
  server = createS3rver({
    address: '127.0.0.1',
    port: 0,
    directory: s3dir,
    silent: true,
    configureBuckets: [{ name: BUCKET }],
  });
  const address = (await server.run()) as { port: number };
  endpoint = `http://127.0.0.1:${address.port}`;
  lister = new S3Client({ endpoint, credentials, region: 'us-east-1', forcePathStyle: true });
});

afterAll(async () => {
  lister?.destroy();
  await server?.close();
  await rm(s3dir, { recursive: true, force: true });
  await rm(localDir, { recursive: true, force: true });
});

const s3Options = (): S3SinkOptions => ({ endpoint, credentials, forcePathStyle: true });

interface Backend {
  name: string;
  /** A new target no test used yet. */
  fresh(): string;
  /** Everything stored under the target (relative names); empty when nothing was created. */
  stored(target: string): Promise<string[]>;
  open(target: string, create: boolean): Promise<Archive>;
}

async function localFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch((err: NodeJS.ErrnoException) =>
    err.code === 'ENOENT' ? [] : Promise.reject(err),
  );
  return entries.map(String).sort();
}

const backends: Backend[] = [
  {
    name: 'local folder',
    fresh: () => join(localDir, `archive-${n++}`),
    stored: localFiles,
    open: (target, create) => openArchive(target, { create, local: { hashWorker: false } }),
  },
  {
    name: 's3rver',
    fresh: () => `s3://${BUCKET}/archive-${n++}`,
    async stored(target) {
      const prefix = target.slice(`s3://${BUCKET}/`.length) + '/';
      const page = await lister.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
      return (page.Contents ?? []).map((o) => o.Key!.slice(prefix.length)).sort();
    },
    open: (target, create) => openArchive(target, { create, s3: s3Options() }),
  },
];

async function bytesOf(body: Readable | undefined): Promise<Buffer> {
  expect(body).toBeDefined();
  const chunks: Buffer[] = [];
  for await (const chunk of body!) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const event = (i: number): Buffer =>
  Buffer.from(JSON.stringify({ type: 3, timestamp: 1763629200000 + i, data: { i } }));
const entry = (replay_id: string, status: ManifestEntry['status'], at: number): ManifestEntry =>
  ({
    replay_id,
    status,
    recorded_at: new Date(1763629200000 + at).toISOString(),
    ...(status === 'skipped' ? { reason: 'settling' } : {}),
  }) as ManifestEntry;

/** The state the manifest gives: the last entry of each replay, by id. */
function stateOf(entries: readonly ManifestEntry[]): Map<string, ManifestEntry> {
  return new Map(entries.map((e) => [e.replay_id, e]));
}

describe.each(backends)('an archive in a $name', (backend) => {
  it('refuses a target without a manifest for reading, creating nothing; opens it once it holds one', async () => {
    const target = backend.fresh();
    const err = await backend.open(target, false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArchiveNotFoundError);
    expect(err).toMatchObject({ code: 'ARCHIVE_NOT_FOUND', category: 'storage' });
    const shown = target.startsWith('s3://') ? target : join(target);
    expect((err as Error).message).toBe(`no archive at ${shown} (no manifest found)`);
    expect(await backend.stored(target)).toEqual([]);
    if (!target.startsWith('s3://')) await expect(stat(target)).rejects.toThrow();

    // Opened for writing: still nothing until something is written.
    const writer = await backend.open(target, true);
    expect(await backend.stored(target)).toEqual([]);
    await writer.manifest.append(entry('dev/1', 'empty', 0));
    await writer.close();
    const reader = await backend.open(target, false);
    expect((await all(reader.manifest.read())).map((e) => e.replay_id)).toEqual(['dev/1']);
    await reader.close();
  });

  it('writes an output, then finds, lists, reads back and removes it', async () => {
    await using archive = await backend.open(backend.fresh(), true);
    const output = { format: 'ndjson', gzip: false } as const;
    const writer = await archive.outputs.open('dev/1', output);
    expect(writer.key).toBe(archive.outputs.keyFor('dev/1', output));
    // Nothing at the key until committed.
    expect(await archive.outputs.exists(writer.key)).toBe(false);
    await writer.write([event(1), event(2)]);
    const committed = await writer.commit();
    expect(committed).toMatchObject({ key: 'dev/1.ndjson', eventCount: 2 });
    expect(await archive.outputs.exists(committed.key)).toBe(true);
    expect(await all(archive.outputs.list())).toEqual([committed.key]);
    const stored = await bytesOf(await archive.outputs.read(committed.key));
    expect(stored.toString()).toBe(`${event(1).toString()}\n${event(2).toString()}\n`);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(committed.sha256);
    expect(await archive.outputs.read('dev/2.ndjson')).toBeUndefined();

    // An aborted writer leaves nothing.
    const aborted = await archive.outputs.open('dev/3', output);
    await aborted.write([event(3)]);
    await aborted.abort();
    expect(await all(archive.outputs.list())).toEqual([committed.key]);

    expect(await archive.outputs.remove(committed.key)).toBe(true);
    expect(await archive.outputs.remove(committed.key)).toBe(false);
    expect(await archive.outputs.exists(committed.key)).toBe(false);
    expect(await all(archive.outputs.list())).toEqual([]);
  });

  it('appends, reads (keep: exactly its replays) and compacts the manifest to the same state', async () => {
    const target = backend.fresh();
    const archive = await backend.open(target, true);
    const appended = [
      entry('dev/1', 'failed', 1),
      entry('dev/2', 'skipped', 2),
      entry('dev/1', 'ok', 3),
      entry('other/9', 'not_found', 4),
      entry('dev/2', 'empty', 5),
    ];
    for (const e of appended) await archive.manifest.append(e);
    const expected = stateOf(appended);
    expect(stateOf(await all(archive.manifest.read()))).toEqual(expected);
    const onlyDev = (id: string): boolean => id.startsWith('dev/');
    expect([...stateOf(await all(archive.manifest.read(onlyDev))).keys()].sort()).toEqual(['dev/1', 'dev/2']);

    const result = await archive.manifest.compact({ layout: 'all' });
    expect(result).toMatchObject({ compacted: true, entries: 3, folded: 5 });
    expect(stateOf(await all(archive.manifest.read()))).toEqual(expected);
    // Nothing new to fold.
    expect((await archive.manifest.compact({ layout: 'all' })).compacted).toBe(false);
    await archive.manifest.append(entry('dev/2', 'ok', 6));
    expected.set('dev/2', entry('dev/2', 'ok', 6));
    expect(stateOf(await all(archive.manifest.read()))).toEqual(expected);
    expect([...stateOf(await all(archive.manifest.read(onlyDev))).values()]).toEqual([
      expected.get('dev/1'),
      expected.get('dev/2'),
    ]);
    await archive.close();
    // Read afresh by another opening, for reading.
    const again = await backend.open(target, false);
    expect(stateOf(await all(again.manifest.read()))).toEqual(expected);
    await again.close();
  });

  it('stores an asset once, reads it back and removes it', async () => {
    await using archive = await backend.open(backend.fresh(), true);
    const body = Buffer.from('body { color: red }');
    const digest = createHash('sha256').update(body).digest('hex');
    expect(await archive.assets.has(digest)).toBe(false);
    expect(await archive.assets.read(digest)).toBeUndefined();
    await archive.assets.put(digest, 'text/css', body);
    await archive.assets.put(digest, 'text/css', body);
    expect(await archive.assets.has(digest)).toBe(true);
    expect(await bytesOf(await archive.assets.read(digest))).toEqual(body);
    // Assets are no outputs.
    expect(await all(archive.outputs.list())).toEqual([]);
    await expect(archive.assets.put('0'.repeat(64), 'text/css', body)).rejects.toMatchObject({ name: 'SinkError' });
    expect(await archive.assets.remove(digest)).toBe(true);
    expect(await archive.assets.remove(digest)).toBe(false);
    expect(await archive.assets.has(digest)).toBe(false);
  });

  it('refuses keys that would leave the target or are not outputs', async () => {
    await using archive = await backend.open(backend.fresh(), true);
    for (const key of ['../x.json', 'a/../../x.json', '/etc/passwd', 'a//b.json', 'a\\..\\b.json', '', './a.json']) {
      await expect(archive.outputs.exists(key), key).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
      await expect(archive.outputs.read(key), key).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
      await expect(archive.outputs.remove(key), key).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    }
    // The manifest is no output to remove.
    await archive.manifest.append(entry('dev/1', 'empty', 0));
    for (const key of ['manifest.ndjson', '_manifest/x', `_assets/${'a'.repeat(64)}`]) {
      await expect(archive.outputs.remove(key), key).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    }
  });
});

describe('openArchive', () => {
  it('refuses other schemes and an empty target as usage errors, before touching anything', async () => {
    for (const target of ['gs://bucket/x', 'ftp://host/x', '']) {
      await expect(openArchive(target, { create: true }), target).rejects.toMatchObject({
        code: 'SINK_CONFIG',
        category: 'usage',
      });
    }
  });
});
