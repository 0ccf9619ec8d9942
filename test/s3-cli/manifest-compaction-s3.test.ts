/**
 * Folding an S3 manifest (real s3rver): snapshots per shard layout, the log objects deleted once folded, the same
 * state read before and after, a resume that reads one snapshot instead of an object per replay, and a process
 * killed at any moment of a fold losing nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createS3Sink } from '../../sinks/s3.js';
import type { ManifestEntry, Sink } from '../../sinks/sink.js';
import { shardOf } from '../../src/pipeline/shard.js';
import { entry, spawnFold, stateOfSink, STATUSES, type FoldChild } from '../sinks/manifest-folds.js';
import { BUCKET, listObjects, startS3, type S3Server } from './s3-helpers.js';

let dir: string;
let s3: S3Server;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'compaction-s3-'));
  s3 = await startS3(join(dir, 's3'));
});
afterAll(async () => {
  await s3?.stop();
  await rm(dir, { recursive: true, force: true });
});

const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const sinkAt = (prefix: string): Sink =>
  createS3Sink(`s3://${BUCKET}/${prefix}`, { endpoint: s3.endpoint, credentials, forcePathStyle: true });

const stateOf = (prefix: string, keep?: (id: string) => boolean): Promise<Map<string, ManifestEntry>> =>
  stateOfSink(sinkAt(prefix), keep);

const manifestObjects = async (prefix: string): Promise<string[]> =>
  (await listObjects(s3.reader, `${prefix}/_manifest/`)).map((o) => o.key.slice(prefix.length + 1));

/** Appends in parallel batches (the order of one replay's entries kept by their times). */
async function appendAll(sink: Sink, entries: ManifestEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 50)
    await Promise.all(entries.slice(i, i + 50).map((e) => sink.appendManifest(e)));
}

describe('S3 manifest compaction', () => {
  test('folds the log into one snapshot per layout; same state; a resume reads the snapshot, not an object per replay', async () => {
    const prefix = 'fold';
    const sink = sinkAt(prefix);
    const first: ManifestEntry[] = [];
    let t = 0;
    for (let round = 0; round < 3; round++)
      for (let i = 0; i < 100; i++) first.push(entry(`dev-${i % 7}/${i}`, STATUSES[(i + round) % 3]!, t++));
    await appendAll(sink, first);
    const before = await stateOf(prefix);
    expect(before.size).toBe(100);

    const all = await sink.compactManifest!({ layout: 'all' });
    expect(all).toMatchObject({ compacted: true, entries: 100, folded: 300, removed: 300 });
    const objects = await manifestObjects(prefix);
    expect(objects).toHaveLength(1);
    expect(objects[0]).toMatch(/^_manifest\/_snapshots\/all\/\d{13}-[0-9a-f]+-100\.ndjson\.gz$/);
    expect(await stateOf(prefix)).toEqual(before);
    // Reading it back: two listings and one GET, whatever the number of replays.
    const mark = s3.requests.length;
    await stateOf(prefix);
    const reads = s3.requests.slice(mark);
    expect(reads.filter((r) => r.startsWith('GET ') && !r.includes('list-type=2'))).toHaveLength(1);
    expect(reads.length).toBeLessThanOrEqual(3);
    // Nothing new: nothing written.
    expect((await sink.compactManifest!({ layout: 'all' })).compacted).toBe(false);

    // Shard 0 of 2 folds its own replays only: its log objects go, shard 1's stay; the state is the same.
    const later = Array.from({ length: 60 }, (_, i) => entry(`dev-${i % 7}/${i * 3}`, 'ok', t++, { key: `k${i}` }));
    await appendAll(sink, later);
    const expected = await stateOf(prefix);
    const shard0 = (id: string): boolean => shardOf(id, 2) === 0;
    const folded = await sink.compactManifest!({ layout: '0-of-2', keep: shard0 });
    const inShard0 = later.filter((e) => shard0(e.replay_id)).length;
    expect(folded).toMatchObject({ compacted: true, folded: inShard0, removed: inShard0 });
    expect(await stateOf(prefix)).toEqual(expected);
    const left = await manifestObjects(prefix);
    expect(left.filter((k) => k.startsWith('_manifest/_snapshots/'))).toHaveLength(2);
    expect(left.filter((k) => !k.startsWith('_manifest/_snapshots/'))).toHaveLength(later.length - inShard0);
    // A shard's reader fetches no log object of another shard.
    const mark2 = s3.requests.length;
    const state1 = await stateOf(prefix, (id) => !shard0(id));
    const gets = s3.requests.slice(mark2).filter((r) => r.startsWith('GET ') && !r.includes('list-type=2'));
    expect(gets).toHaveLength(2 + (later.length - inShard0)); // the two snapshots, shard 1's log objects
    for (const [id, e] of state1) expect(e).toEqual(expected.get(id));

    // An unsharded fold replaces every snapshot.
    expect(await sink.compactManifest!({ layout: 'all' })).toMatchObject({ compacted: true, entries: expected.size });
    expect(await manifestObjects(prefix)).toHaveLength(1);
    expect(await stateOf(prefix)).toEqual(expected);
    await sink.close();
  });

  test('a process killed at any moment of a fold loses nothing', async () => {
    const prefix = 'kill';
    const sink = sinkAt(prefix);
    let at = 0;
    const expected = new Map<string, ManifestEntry>();
    const more = async (n: number): Promise<void> => {
      const batch = Array.from({ length: n }, () =>
        entry(`d/${(at * 7) % 400}`, STATUSES[at % 3]!, at++, { event_count: at }),
      );
      await appendAll(sink, batch);
      for (const e of batch) expected.set(e.replay_id, e);
    };
    const fold = (): FoldChild =>
      spawnFold(
        "createS3Sink(process.argv[1], { endpoint: process.argv[2], forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } })",
        [`s3://${BUCKET}/${prefix}`, s3.endpoint],
      );
    await more(300);
    // The kills are spread over the requests one whole fold sends, not over its time: each lands at a request of the
    // fold (the process killed as it arrives, before it is answered), however fast the machine is.
    const before = s3.requests.length;
    expect(await fold().done).toBe(0);
    const requests = s3.requests.length - before;
    expect(await stateOf(prefix)).toEqual(expected);
    let midFold = 0;
    for (const f of [0.15, 0.4, 0.65, 0.9]) {
      await more(150);
      const killed = fold();
      s3.atRequest(s3.requests.length + Math.max(1, Math.round(f * requests)), () => killed.kill());
      await killed.done;
      // s3rver still handles what the dead process sent (a DeleteObjects removes emptied folders, racing with
      // PutObjects into them: s3rver's own issue, see keepStagingFolder); real S3 has no folders.
      await s3.idle();
      // Killed with folded log objects still there next to a snapshot, or before its snapshot was written.
      const objects = await manifestObjects(prefix);
      if (objects.some((k) => !k.startsWith('_manifest/_snapshots/'))) midFold++;
      expect(await stateOf(prefix), `killed after ${f} of a fold`).toEqual(expected);
    }
    expect(midFold).toBeGreaterThan(0);
    await more(10);
    expect(await fold().done).toBe(0);
    expect(await stateOf(prefix)).toEqual(expected);
    expect((await manifestObjects(prefix)).every((k) => k.startsWith('_manifest/_snapshots/all/'))).toBe(true);
    await sink.close();
  }, 180_000);
});
