/**
 * Issue #28, findings 3 and 6: captured assets belong to their replay from the moment they are stored. A failed
 * export's assets and a killed export's assets are removed by `forget` of the replay and reported by `verify` as
 * orphans; `verify` re-hashes every stored asset and reports files replay-export never writes, at the top level and
 * under `_x/` and `.x/`.
 */
import { createHash } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { once } from 'node:events';
import { access, mkdir, readdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { makeSamplesDir, sampleFilePaths, type FixtureDir } from '../sandbox/fixtures.js';
import { lastById, readManifest, tempDir } from '../pipeline/helpers.js';
import { runCli, runCliSpawned, sandboxEnv, spawnCli } from './cli-helpers.js';
import { BUCKET, cliEnv, listObjects, startS3 } from '../s3-cli/s3-helpers.js';

const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
const PNG = (n: number): Buffer => Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.alloc(64, n)]);
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

let sandbox: Sandbox | undefined;
let samples: FixtureDir;
let work: { dir: string; cleanup: () => Promise<void> };
let site: Server;
let origin: string;

beforeEach(async () => {
  work = await tempDir('replay-export-asset-owner-');
  // `/slow.png` never answers: a replay referencing it cannot end while its capture waits.
  site = createServer((req, res) => {
    const n = { '/failed.png': 1, '/good.png': 2, '/killed.png': 3 }[req.url ?? ''];
    if (n === undefined) return;
    res.writeHead(200, { 'content-type': 'image/png' }).end(PNG(n));
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  samples = makeSamplesDir([
    { name: 'failed', files: 3, startMs: T0, platformId: 1 },
    { name: 'good', files: 1, startMs: T0 + 3_600_000, platformId: 2 },
    { name: 'killed', files: 1, startMs: T0 + 7_200_000, platformId: 3 },
  ]);
  // The first file of each replay records a page with images on the site.
  for (const [name, srcs] of [
    ['failed', ['/failed.png']],
    ['good', ['/good.png']],
    ['killed', ['/killed.png', '/slow.png']],
  ] as const) {
    const ts = T0 + { failed: 0, good: 3_600_000, killed: 7_200_000 }[name];
    const images = srcs.map((src, i) => ({
      type: 2,
      id: 3 + i,
      tagName: 'img',
      attributes: { src: origin + src },
      childNodes: [],
    }));
    const events = [
      { type: 4, timestamp: ts, data: { href: `${origin}/`, width: 800, height: 600 } },
      {
        type: 2,
        timestamp: ts + 1,
        data: {
          node: {
            type: 0,
            id: 1,
            childNodes: [{ type: 2, id: 2, tagName: 'body', attributes: {}, childNodes: images }],
          },
          initialOffset: { left: 0, top: 0 },
        },
      },
    ];
    await writeFile(sampleFilePaths(samples, name, 3)[0]!, gzipSync(JSON.stringify(events)));
  }
});
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  site.closeAllConnections();
  site.close();
  samples.cleanup();
  await work.cleanup();
});

const problems = (stderr: string): Array<Record<string, unknown>> =>
  stderr
    .split('\n')
    .filter((l) => l.includes('"event":"problem"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('captured assets belong to their replay (local archive)', () => {
  test('a failed export: verify reports its asset as an orphan, forget of the replay removes it', async () => {
    const failed = samples.ids.get('failed')!;
    sandbox = await startSandbox({ samplesDir: samples.dir, faults: { corruptFiles: [failed] } });
    const env = sandboxEnv(sandbox);
    const out = join(work.dir, 'archive');
    const run = await runCli(
      ['archive', '--out', out, '--settle', '0', '--file-version', '3', '--capture-assets', origin, '--user', '1'],
      env,
    );
    expect(run.code).toBe(1);
    expect(
      (
        await runCli(
          ['archive', '--out', out, '--settle', '0', '--file-version', '3', '--capture-assets', origin, '--user', '2'],
          env,
        )
      ).code,
    ).toBe(0);
    const last = lastById(await readManifest(out));
    expect(last.get(failed)!.status).toBe('failed');
    expect(last.get(samples.ids.get('good')!)!.status).toBe('ok');
    const failedAsset = join(out, '_assets', sha(PNG(1)));
    expect(await exists(failedAsset)).toBe(true);

    const before = await runCli(['verify', out, '--log-format', 'json']);
    expect(before.code).toBe(1);
    expect(problems(before.stderr)).toEqual([
      expect.objectContaining({ kind: 'orphan', key: `_assets/${sha(PNG(1))}` }),
    ]);

    const forgotten = await runCli(['forget', '--out', out, '--replay', failed], env);
    expect(forgotten.code).toBe(0);
    expect(await exists(failedAsset)).toBe(false);
    expect(await exists(join(out, '_assets', sha(PNG(2))))).toBe(true);
    expect(lastById(await readManifest(out)).get(failed)).toMatchObject({
      status: 'forgotten',
      removed_assets: [sha(PNG(1))],
    });
    const after = await runCli(['verify', out, '--log-format', 'json']);
    expect(problems(after.stderr)).toEqual([]);
    expect(after.code).toBe(0);
  }, 120_000);

  test('a killed export: its asset, stored before the kill, is known to forget and verify', async () => {
    const killed = samples.ids.get('killed')!;
    sandbox = await startSandbox({ samplesDir: samples.dir });
    const out = join(work.dir, 'archive');
    // An archive that holds a replay already; the next run is killed while a replay's capture waits.
    expect(
      (
        await runCli(
          ['archive', '--out', out, '--settle', '0', '--file-version', '3', '--capture-assets', origin, '--user', '2'],
          sandboxEnv(sandbox),
        )
      ).code,
    ).toBe(0);
    const { child, done } = spawnCli(
      ['archive', '--out', out, '--settle', '0', '--file-version', '3', '--capture-assets', origin, '--user', '3'],
      sandboxEnv(sandbox),
    );
    const asset = join(out, '_assets', sha(PNG(3)));
    for (let i = 0; i < 600 && !(await exists(asset)); i++) await delay(50);
    expect(await exists(asset)).toBe(true);
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    expect(lastById(await readManifest(out)).get(killed)).toBeUndefined();

    const before = await runCli(['verify', out, '--log-format', 'json']);
    expect(problems(before.stderr)).toEqual([
      expect.objectContaining({ kind: 'orphan', key: `_assets/${sha(PNG(3))}` }),
    ]);
    const forgotten = await runCli(['forget', '--out', out, '--replay', killed], sandboxEnv(sandbox));
    expect(forgotten.code).toBe(0);
    expect(await exists(asset)).toBe(false);
    expect((await readdir(join(out, '_assets'))).filter((n) => n !== '_claims')).toEqual([sha(PNG(2))]);
    expect(await readdir(join(out, '_assets', '_claims', killed.split('/')[0]!)).catch(() => [])).toEqual([]);
    expect((await runCli(['verify', out])).code).toBe(0);
  }, 120_000);

  test('verify re-hashes captured assets and reports files nothing names, at the top and in _x/ and .x/', async () => {
    sandbox = await startSandbox({ samplesDir: samples.dir });
    const out = join(work.dir, 'archive');
    expect(
      (
        await runCli(
          ['archive', '--out', out, '--settle', '0', '--file-version', '3', '--capture-assets', origin, '--user', '2'],
          sandboxEnv(sandbox),
        )
      ).code,
    ).toBe(0);
    expect((await runCli(['verify', out])).code).toBe(0);
    // Other bytes under the asset's content address, and files replay-export never writes.
    await writeFile(join(out, '_assets', sha(PNG(2))), PNG(9));
    await writeFile(join(out, 'notes.txt'), 'x');
    await mkdir(join(out, '_x'));
    await writeFile(join(out, '_x', 'payload'), 'x');
    await mkdir(join(out, '.x'));
    await writeFile(join(out, '.x', 'payload'), 'x');
    await writeFile(join(out, '_manifest', 'extra.ndjson'), 'x');
    const res = await runCli(['verify', out, '--log-format', 'json']);
    expect(res.code).toBe(1);
    const found = problems(res.stderr)
      .map((p) => [p.kind, p.key])
      .sort();
    expect(found).toEqual(
      [
        ['asset_corrupt', `_assets/${sha(PNG(2))}`],
        ['orphan', '.x/payload'],
        ['orphan', '_manifest/extra.ndjson'],
        ['orphan', '_x/payload'],
        ['orphan', 'notes.txt'],
      ].sort(),
    );
  }, 120_000);
});

describe('captured assets belong to their replay (S3)', () => {
  test('a failed export into s3://: verify reports its asset as an orphan, forget of the replay removes it and its claim', async () => {
    const failed = samples.ids.get('failed')!;
    sandbox = await startSandbox({ samplesDir: samples.dir, faults: { corruptFiles: [failed] } });
    const s3 = await startS3(join(work.dir, 's3'));
    try {
      const target = `s3://${BUCKET}/owned`;
      const s3Args = [
        '--s3-endpoint',
        s3.endpoint,
        '--s3-force-path-style',
        '--s3-region',
        'us-east-1',
        '--s3-checksums',
        'when-required',
      ];
      const env = cliEnv(sandbox);
      const archive = (user: string) =>
        runCliSpawned(
          [
            'archive',
            '--out',
            target,
            ...s3Args,
            '--settle',
            '0',
            '--file-version',
            '3',
            '--capture-assets',
            origin,
            '--user',
            user,
          ],
          env,
        );
      const first = await archive('1');
      expect(first.code, first.stderr).toBe(1);
      expect((await archive('2')).code).toBe(0);
      const keys = async () =>
        (await listObjects(s3.reader, 'owned/_assets/')).map((o) => o.key.slice('owned/'.length)).sort();
      expect(await keys()).toContain(`_assets/${sha(PNG(1))}`);

      // Objects replay-export never writes, under a hidden and an underscore folder.
      for (const key of ['owned/_x/payload', 'owned/.x/payload'])
        await s3.reader.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'x' }));
      const before = await runCliSpawned(['verify', target, ...s3Args, '--log-format', 'json'], env);
      expect(
        problems(before.stderr)
          .map((p) => [p.kind, p.key])
          .sort(),
      ).toEqual([
        ['orphan', '.x/payload'],
        ['orphan', `_assets/${sha(PNG(1))}`],
        ['orphan', '_x/payload'],
      ]);
      expect(before.code).toBe(1);
      for (const key of ['owned/_x/payload', 'owned/.x/payload'])
        await s3.reader.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));

      expect((await runCliSpawned(['forget', '--out', target, ...s3Args, '--replay', failed], env)).code).toBe(0);
      const left = await keys();
      expect(left.filter((k) => !k.startsWith('_assets/_claims/'))).toEqual([`_assets/${sha(PNG(2))}`]);
      expect(left.filter((k) => k.includes(sha(PNG(1))))).toEqual([]);
      expect((await runCliSpawned(['verify', target, ...s3Args], env)).code).toBe(0);
    } finally {
      await s3.stop();
    }
  }, 120_000);
});
