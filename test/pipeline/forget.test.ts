/**
 * `forgetReplays` as a library call on a local sink: its option checks, a sink that cannot remove, an abort, and
 * what `view` then lists (forgotten replays, no user tombstone).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalSink } from '../../sinks/local.js';
import type { ManifestEntry, Sink } from '../../sinks/sink.js';
import { forgetReplays } from '../../src/pipeline/forget.js';
import { openCatalogue } from '../../src/catalogue/index.js';
import { readManifest, tempDir } from './helpers.js';
import { archiveOfSink } from '../../sinks/archive.js';
import { line } from '../sinks/helpers/entries.js';
import { systemClock } from '../../src/util/clock.js';

let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('replay-export-forget-lib-');
});
afterEach(async () => {
  await work.cleanup();
});

const ok = (replay_id: string, platform_id: number): ManifestEntry =>
  line({ replay_id, status: 'ok', key: `${replay_id}.json`, platform_id, recorded_at: '2026-11-24T00:00:00.000Z' });

async function archiveOf(entries: ManifestEntry[]): Promise<Sink> {
  const sink = createLocalSink(work.dir);
  for (const e of entries) {
    const w = await sink.open(e.replay_id, { format: 'json', gzip: false });
    await w.write([Buffer.from('{"type":4}')]);
    await w.commit();
    await sink.appendManifest(e);
  }
  return sink;
}

describe('forgetReplays (library)', () => {
  it('refuses bad requests with a ConfigError before reading or writing anything', async () => {
    for (const options of [
      { out: work.dir },
      { out: work.dir, replayIds: ['a/1'], platformId: 5 },
      { out: work.dir, platformId: '9007199254740993' },
      { out: work.dir, platformId: 'x' },
      { out: work.dir, replayIds: ['a/1'], reason: ' ' },
      { replayIds: ['a/1'] },
    ]) {
      const err = await forgetReplays(options).catch((e: unknown) => e);
      expect(err, JSON.stringify(options)).toMatchObject({ category: 'usage' });
    }
    expect(await readManifest(work.dir)).toEqual([]);
    // A sink of your own without remove cannot forget: refused before its manifest is read.
    const { remove: _remove, ...local } = createLocalSink(work.dir);
    const sink: Sink = {
      ...local,
      readManifest: () => {
        throw new Error('read');
      },
    };
    await expect(forgetReplays({ sink, replayIds: ['a/1'] })).rejects.toMatchObject({
      category: 'usage',
      code: 'SINK_CONFIG',
    });
  });

  it('an aborted call stops between replays (thrown); what it did is recorded, and a second call finishes', async () => {
    const sink = await archiveOf([ok('d/1', 7), ok('d/2', 7), ok('e/3', 8)]);
    const T = Date.parse('2026-11-24T12:00:00Z');
    const aborted = new AbortController();
    aborted.abort(new Error('stop'));
    await expect(forgetReplays({ sink, platformId: 7, signal: aborted.signal })).rejects.toThrow('stop');
    expect(await readManifest(work.dir)).toHaveLength(3);
    // Stopped while the first replay is forgotten (its tombstone's clock reading aborts): it is finished, the next is not.
    const controller = new AbortController();
    let readings = 0;
    const now = (): number => {
      if (++readings === 2) controller.abort(new Error('stop'));
      return T;
    };
    await expect(
      forgetReplays({ sink, platformId: 7, signal: controller.signal, clock: { ...systemClock, now } }),
    ).rejects.toThrow('stop');
    expect((await readManifest(work.dir)).filter((l) => l.status === 'forgotten').map((l) => l.replay_id)).toEqual([
      'forgotten-user:7/',
      'd/1',
    ]);
    expect([await sink.exists('d/1.json'), await sink.exists('d/2.json')]).toEqual([false, true]);
    const report = await forgetReplays({ sink, platformId: '007', clock: { ...systemClock, now: () => T } });
    expect(report.user).toEqual({ platformId: 7 });
    expect(report.replays.map((r) => [r.replayId, r.removed, r.tombstoned, r.entry?.recorded_at])).toEqual([
      ['d/1', [], true, undefined],
      ['d/2', ['d/2.json'], true, '2026-11-24T12:00:00.000Z'],
    ]);

    // view: forgotten replays are rows (status filter `forgotten`), the user's tombstone is not.
    const cache = await mkdtemp(join(tmpdir(), 'replay-export-forget-catalogue-'));
    const index = await openCatalogue(archiveOfSink(sink), { dir: cache });
    expect(index.size).toBe(3);
    expect(index.page({ status: 'forgotten', sort: 'id' }, 1, 10).rows.map((r) => r.id)).toEqual(['d/1', 'd/2']);
    expect(index.get('forgotten-user:7/')).toBeUndefined();
    index.close();
    await rm(cache, { recursive: true, force: true });
    await sink.close();
  });

  it("removes a forgotten replay's captured assets that no staying replay uses, and only those", async () => {
    const bodies = ['a only', 'a and b', 'b only', 'b and c'].map((t) => Buffer.from(t));
    const [onlyA, shared, onlyB, withC] = bodies.map((b) => createHash('sha256').update(b).digest('hex')) as [
      string,
      string,
      string,
      string,
    ];
    const withAssets = (e: ManifestEntry, digests: string[]): ManifestEntry =>
      line({ ...e, assets: Object.fromEntries(digests.map((d, i) => [`https://cdn.test/${i}-${d}`, d])) });
    const sink = await archiveOf([
      withAssets(ok('dev/a', 1), [onlyA, shared]),
      withAssets(ok('dev/b', 2), [shared, onlyB, withC]),
      withAssets(ok('dev/c', 3), [withC]),
    ]);
    for (const b of bodies) await sink.putAsset!(createHash('sha256').update(b).digest('hex'), 'text/plain', b);
    const stored = async (): Promise<string[]> =>
      (await readdir(join(work.dir, '_assets'))).filter((n) => !n.startsWith('.')).sort();

    const first = await forgetReplays({ sink, replayIds: ['dev/a'] });
    expect(first.replays[0]).toMatchObject({ removedAssets: [onlyA] });
    expect(first.replays[0]!.entry).toMatchObject({ removed_assets: [onlyA] });
    expect(await stored()).toEqual([shared, onlyB, withC].sort());

    // b's assets: the one it shared with a (forgotten now) goes, the one c still uses stays.
    const second = await forgetReplays({ sink, replayIds: ['dev/b'] });
    expect(second.replays[0]!.removedAssets).toEqual([onlyB, shared].sort());
    expect(await stored()).toEqual([withC]);
    // Again after a fold: the tombstones name what they removed; nothing more goes.
    await sink.compactManifest!({ layout: 'all' });
    const again = await forgetReplays({ sink, replayIds: ['dev/a', 'dev/b'] });
    expect(again.replays.flatMap((r) => r.removedAssets)).toEqual([]);
    expect(await stored()).toEqual([withC]);
    await sink.close();
  });
});
