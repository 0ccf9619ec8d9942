/**
 * `--capture-assets` into `s3://` on a real s3rver: assets stored once under `_assets/<sha256>` with their
 * ContentType (one HEAD and one PUT each per run, none on a resumed run), the manifest's map, `verify` reporting no
 * orphan, and the html page read back from S3 playing the captured image offline in Chromium. Two shard processes
 * archiving replays of one page into one target at once (S3 and a folder) store each asset once, whole.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import type { StaticServer } from '../../samples/lib/static-server.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCliSpawned, spawnCli } from '../cli/cli-helpers.js';
import { shardOf } from '../../src/pipeline/shard.js';
import { lastById, readManifest } from '../pipeline/helpers.js';
import { offlineContext, ready } from '../player/helpers.js';
import { recordingSamplesDir } from '../redaction/recording.js';
import { capturedPageRecording } from './captured-page.js';
import { startCapturedS3, type CapturedS3 } from './captured-s3.js';
import {
  BUCKET,
  cliEnv,
  getObject,
  jsonLines,
  listObjects,
  readS3Manifest,
  s3Flags,
  sha256,
  type S3Server,
} from '../s3-cli/s3-helpers.js';

const PREFIX = 'captured';
let work: { dir: string; cleanup: () => Promise<void> };
let site: StaticServer;
let s3: S3Server;
let sandbox: Sandbox;
let samples: ReturnType<typeof recordingSamplesDir>;
let browser: Browser;
let fixture: CapturedS3;

beforeAll(async () => {
  fixture = await startCapturedS3('capture-s3');
  ({ work, site, samples, sandbox, s3 } = fixture);
  browser = await launchChromium();
}, 120_000);

/** A sandbox samples folder with two recordings of the page, whose ids fall in different shards of 2. */
function twoReplays(origin: string): { dir: string; ids: string[]; cleanup(): void } {
  const t0 = Date.UTC(2026, 10, 21, 9, 0, 0);
  const idOf = (t: number) => `0000000r-aaaa-4bbb-8ccc-000000000001/${t}`;
  let t1 = t0 + 1000;
  while (shardOf(idOf(t1), 2) === shardOf(idOf(t0), 2)) t1 += 1000;
  const first = recordingSamplesDir('first', capturedPageRecording(origin, t0));
  const second = recordingSamplesDir('second', capturedPageRecording(origin, t1));
  cpSync(join(second.dir, 'files', 'second'), join(first.dir, 'files', 'second'), { recursive: true });
  cpSync(join(second.dir, 'expected', 'second.json'), join(first.dir, 'expected', 'second.json'));
  const index = (dir: string) => JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { replays: unknown[] };
  const merged = index(first.dir);
  merged.replays.push(...index(second.dir).replays);
  writeFileSync(join(first.dir, 'index.json'), JSON.stringify(merged));
  second.cleanup();
  return { dir: first.dir, ids: [idOf(t0), idOf(t1)], cleanup: first.cleanup };
}

afterAll(async () => {
  await browser?.close();
  await fixture?.close(); // the test stops the site itself: close allows that
});

describe('--capture-assets with shards sharing a target', () => {
  test('two shard processes at once: both replays ok with the same map, each asset stored once, whole', async () => {
    const two = twoReplays(site.origin);
    const sb = await startSandbox({ samplesDir: two.dir });
    try {
      const local = join(work.dir, 'shared-local');
      for (const out of [s3Flags(s3, 'shared'), ['--out', local]]) {
        const runs = ['0/2', '1/2'].map(
          (shard) =>
            spawnCli(
              ['archive', ...out, '--settle', '0', '--capture-assets', site.origin, '--shard', shard],
              cliEnv(sb),
            ).done,
        );
        for (const res of await Promise.all(runs)) expect(res.code, res.stderr).toBe(0);
      }
      const s3Entries = (await readS3Manifest(s3.reader, 'shared')).filter((e) => e.status === 'ok');
      const localEntries = [...lastById(await readManifest(local)).values()];
      for (const entries of [s3Entries, localEntries]) {
        expect(entries.map((e) => e.replay_id).sort()).toEqual([...two.ids].sort());
        expect(entries[0]!.assets).toEqual(entries[1]!.assets);
        expect(Object.keys(entries[0]!.assets as object)).toHaveLength(3);
      }
      const digests = [...new Set(Object.values(s3Entries[0]!.assets as Record<string, string>))].sort();
      // Beside the assets, the claims of the replays that stored them (`_assets/_claims/`).
      const stored = (await listObjects(s3.reader, 'shared/_assets/')).filter((o) => !o.key.includes('/_claims/'));
      expect(stored.map((o) => o.key.split('/').pop())).toEqual(digests);
      for (const o of stored) expect(sha256((await getObject(s3.reader, o.key)).body)).toBe(o.key.split('/').pop());
      // No temporary file left beside them.
      expect((await readdir(join(local, '_assets'))).filter((n) => n !== '_claims').sort()).toEqual(digests);
    } finally {
      await sb.close();
      two.cleanup();
    }
  }, 120_000);
});

describe('--capture-assets into S3', () => {
  test('stored once with their type, mapped in the manifest, no orphan for verify, played from the page', async () => {
    const flags = [
      ...s3Flags(s3, PREFIX),
      '--settle',
      '0',
      '--format',
      'html',
      '--capture-assets',
      site.origin,
      '--log-format',
      'json',
    ];
    const before = s3.requests.length;
    let res = await runCliSpawned(['archive', ...flags], cliEnv(sandbox));
    expect(res.code, res.stderr).toBe(0);
    const assetRequests = (from: number) => s3.requests.slice(from).filter((r) => r.includes('/_assets/'));
    // One HEAD (not stored yet) and one PUT per asset, after the PUT of its claim by the replay (write-ahead).
    const first = assetRequests(before);
    const claims = first.filter((r) => r.includes('/_assets/_claims/'));
    expect(first.filter((r) => r.startsWith('HEAD '))).toHaveLength(3);
    expect(first.filter((r) => r.startsWith('PUT ') && !claims.includes(r))).toHaveLength(3);
    expect(claims.filter((r) => r.startsWith('PUT '))).toHaveLength(3);

    const entry = (await readS3Manifest(s3.reader, PREFIX)).find((e) => e.replay_id === samples.replayId)!;
    expect(entry.status).toBe('ok');
    const assets = entry.assets as Record<string, string>;
    expect(Object.keys(assets).sort()).toEqual([
      `${site.origin}/dot.svg`,
      `${site.origin}/photo.svg`,
      `${site.origin}/style.css`,
    ]);
    for (const [url, digest] of Object.entries(assets)) {
      const object = await getObject(s3.reader, `${PREFIX}/_assets/${digest}`);
      expect(sha256(object.body), url).toBe(digest);
      expect(object.contentType).toBe(url.endsWith('.css') ? 'text/css' : 'image/svg+xml');
    }
    expect(
      (
        await s3.reader.send(
          new HeadObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}/_assets/${assets[`${site.origin}/photo.svg`]!}` }),
        )
      ).ContentType,
    ).toBe('image/svg+xml');

    // A resumed run: the replay is done, no asset request at all.
    const again = s3.requests.length;
    res = await runCliSpawned(['archive', ...flags], cliEnv(sandbox));
    expect(res.code, res.stderr).toBe(0);
    expect(
      jsonLines(res.stderr)
        .filter((l) => l.event === 'replay')
        .map((l) => l.outcome),
    ).toEqual(['done-before']);
    expect(assetRequests(again)).toEqual([]);

    // verify: the assets are not outputs (no orphan).
    res = await runCliSpawned(
      ['verify', `s3://${BUCKET}/${PREFIX}`, ...s3Flags(s3, PREFIX).slice(2), '--log-format', 'json'],
      cliEnv(sandbox),
    );
    expect(res.code, res.stderr).toBe(0);
    expect(jsonLines(res.stderr).find((l) => l.event === 'summary')).toMatchObject({ problems: 0 });
    const storedAssets = (await listObjects(s3.reader, `${PREFIX}/_assets/`)).filter(
      (o) => !o.key.includes('/_claims/'),
    );
    expect(storedAssets.map((o) => o.key.split('/').pop()).sort()).toEqual([...new Set(Object.values(assets))].sort());

    // The page read back from S3 plays the captured image, offline.
    await site.close();
    const page = join(work.dir, 'page.html');
    await writeFile(page, (await getObject(s3.reader, `${PREFIX}/${entry.key as string}`)).body);
    const { context, requests } = await offlineContext(browser);
    try {
      const tab = await context.newPage();
      await ready(tab, page, '?paused');
      const shown = await tab.evaluate(async () => {
        const doc = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument!;
        const img = doc.querySelector('img')!;
        if (!img.complete) await new Promise((done) => img.addEventListener('load', done));
        return {
          src: img.getAttribute('src')!.slice(0, 26),
          width: img.naturalWidth,
          background: getComputedStyle(doc.querySelector('.x')!).backgroundImage.slice(0, 30),
        };
      });
      expect(shown).toEqual({
        src: 'data:image/svg+xml;base64,',
        width: 50,
        background: 'url("data:image/svg+xml;base64',
      });
      expect(requests).toEqual([]);
    } finally {
      await context.close();
    }

    // forget: the replay's output, its captured assets (no other replay uses them) and their claims leave the bucket.
    res = await runCliSpawned(
      [
        'forget',
        '--out',
        `s3://${BUCKET}/${PREFIX}`,
        ...s3Flags(s3, PREFIX).slice(2),
        '--replay',
        entry.replay_id as string,
      ],
      cliEnv(sandbox),
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(`${new Set(Object.values(assets)).size} captured assets removed`);
    expect(await listObjects(s3.reader, `${PREFIX}/_assets/`)).toEqual([]);
  }, 120_000);
});
