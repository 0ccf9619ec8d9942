/**
 * The store contract as a library user meets it: through the package's own subpath exports (`replay-export/sinks`,
 * `replay-export/archive`, the built dist/), on a folder and on an S3 prefix (s3rver over loopback), one suite for
 * both. Every member is there on both (none optional); asset claims are recorded and listed; `forget` after a killed
 * export removes the assets the replay claimed; work claims; listing.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { createGunzip } from 'node:zlib';
import type S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenSinkOptions, Store } from 'replay-export/sinks';
import { packageRoot } from '../../src/util/package-root.js';
import { createS3rver } from '../helpers/s3rver.js';

const BUCKET = 'public-contract';
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

type Sinks = typeof import('replay-export/sinks');
type Tools = typeof import('replay-export/archive');

let server: S3rver;
let s3dir: string;
let localDir: string;
let endpoint: string;
let sinks: Sinks;
let tools: Tools;
let n = 0;

beforeAll(async () => {
  // By the package's name, as a library user imports it (its `exports`: the built dist/).
  sinks = await import('replay-export/sinks');
  tools = await import('replay-export/archive');
  s3dir = await mkdtemp(join(tmpdir(), 's3rver-public-'));
  localDir = await mkdtemp(join(tmpdir(), 'public-contract-'));
  server = createS3rver({
    address: '127.0.0.1',
    port: 0,
    directory: s3dir,
    silent: true,
    configureBuckets: [{ name: BUCKET }],
  });
  const address = (await server.run()) as { port: number };
  endpoint = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await server?.close();
  await rm(s3dir, { recursive: true, force: true });
  await rm(localDir, { recursive: true, force: true });
});

interface Backend {
  name: string;
  fresh(): string;
  options(): OpenSinkOptions;
  /** The store by the backend's own public factory (`createLocalSink` / `createS3Sink`). */
  create(target: string): Store;
}

const backends: Backend[] = [
  {
    name: 'local folder',
    fresh: () => join(localDir, `archive-${n++}`),
    options: () => ({ local: { hashWorker: false } }),
    create: (target) => sinks.createLocalSink(target, { hashWorker: false }),
  },
  {
    name: 's3rver',
    fresh: () => `s3://${BUCKET}/archive-${n++}`,
    options: () => ({ s3: { endpoint, credentials, forcePathStyle: true } }),
    create: (target) => sinks.createS3Sink(target, { endpoint, credentials, forcePathStyle: true }),
  },
];

/** Every member of the contract (`Store`): on both backends, by either public factory. */
const MEMBERS = [
  'keyFor',
  'open',
  'exists',
  'read',
  'storedKeys',
  'storedObjects',
  'hasManifest',
  'appendManifest',
  'readManifest',
  'readManifestBytes',
  'compactManifest',
  'remove',
  'putAsset',
  'readAsset',
  'removeAsset',
  'assetClaims',
  'removeAssetClaims',
  'workClaims',
  'close',
] as const;

const asset = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
const digest = createHash('sha256').update(asset).digest('hex');
const event = (i: number): Buffer => Buffer.from(JSON.stringify({ type: 3, timestamp: 1763629200000 + i, data: {} }));

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe.each(backends)('the public store of a $name', (backend) => {
  it('has every member of the contract, by openSink and by its own factory', async () => {
    const target = backend.fresh();
    for (const store of [sinks.openSink(target, backend.options()), backend.create(target)]) {
      for (const member of MEMBERS) expect(typeof store[member], member).toBe('function');
      expect(typeof store.listsInBulk).toBe('boolean');
      await store.close();
    }
  });

  it('records the asset claims of the replay that stored them, lists them, and removes them', async () => {
    await using store = disposable(sinks.openSink(backend.fresh(), backend.options()));
    await store.putAsset(digest, 'image/svg+xml', asset, 'dev/1');
    expect(await all(store.assetClaims('dev/1'))).toEqual([digest]);
    expect(await all(store.assetClaims('dev/2'))).toEqual([]);
    expect(await all(store.storedObjects())).toEqual(
      expect.arrayContaining([`_assets/${digest}`, `_assets/_claims/dev/1/${digest}`]),
    );
    await store.removeAssetClaims('dev/1');
    expect(await all(store.assetClaims('dev/1'))).toEqual([]);
    expect(await store.exists(`_assets/${digest}`)).toBe(true);
  });

  it('forget after a killed export removes the assets the replay claimed (no manifest line of it)', async () => {
    const target = backend.fresh();
    const killed = backend.create(target);
    await killed.appendManifest({
      replay_id: 'dev/0',
      status: 'empty',
      reason: 'no files',
      file_keys: [],
      recorded_at: new Date().toISOString(),
    });
    await killed.putAsset(digest, 'image/svg+xml', asset, 'dev/1');
    const writer = await killed.open('dev/1', { format: 'json', gzip: false });
    await writer.write([event(0)]);
    // Killed here: neither committed nor aborted, no manifest line for dev/1.
    await killed.close();

    const report = await tools.forgetReplays({ out: target, sinkOptions: backend.options(), replayIds: ['dev/1'] });
    expect(report.replays).toHaveLength(1);
    expect(report.replays[0]).toMatchObject({ replayId: 'dev/1', tombstoned: true, removedAssets: [digest] });
    await using after = disposable(sinks.openSink(target, backend.options()));
    expect(await after.exists(`_assets/${digest}`)).toBe(false);
    expect(await all(after.assetClaims('dev/1'))).toEqual([]);
  });

  it('work claims: one holder per replay, its end recorded, other runs cleared', async () => {
    await using store = disposable(sinks.openSink(backend.fresh(), backend.options()));
    const night = store.workClaims('night-2');
    expect(await night.take('dev/1', '0/2')).toBeUndefined();
    expect(await night.take('dev/1', '1/2')).toBe('0/2');
    expect(await night.finishedAt('dev/1')).toBeUndefined();
    await night.finish('dev/1');
    expect(await night.finishedAt('dev/1')).toEqual(expect.any(Number));
    expect(await store.workClaims('night-1').take('dev/1', '1/2')).toBeUndefined();
    expect(await night.clearOtherRuns()).toBe(1);
    expect(await store.workClaims('night-1').take('dev/1', '0/2')).toBeUndefined();
    expect(() => store.workClaims('../x')).toThrow(sinks.SinkError);
  });

  it('lists its outputs (storedKeys) and every object (storedObjects), reads an output back', async () => {
    await using store = disposable(sinks.openSink(backend.fresh(), backend.options()));
    const writer = await store.open('dev/1', { format: 'ndjson', gzip: false });
    await writer.write([event(0), event(1)]);
    const { key } = await writer.commit();
    await store.appendManifest({
      replay_id: 'dev/1',
      status: 'skipped',
      reason: 'settling',
      recorded_at: new Date().toISOString(),
    });
    expect(await all(store.storedKeys())).toEqual([key]);
    expect(await all(store.storedObjects())).toContain(key);
    expect(await store.hasManifest()).toBe(true);
    const body = await store.read(key);
    expect((await all(body!)).map(String).join('')).toBe(`${event(0)}\n${event(1)}\n`);
  });
});

describe.each(backends)('the manifest of a $name as bytes', (backend) => {
  it('parsed file by file, gives the entries readManifest gives (a snapshot, then the log)', async () => {
    await using store = disposable(sinks.openSink(backend.fresh(), backend.options()));
    const entry = (replay_id: string, s: number) => ({
      replay_id,
      status: 'skipped' as const,
      reason: `at ${s}`,
      recorded_at: new Date(Date.UTC(2026, 10, 1, 0, 0, s)).toISOString(),
    });
    await store.appendManifest(entry('dev/1', 1));
    await store.appendManifest(entry('dev/2', 1));
    expect(await store.compactManifest({ layout: 'all' })).toMatchObject({ compacted: true });
    await store.appendManifest(entry('dev/1', 2));
    await store.appendManifest(entry('dev/3', 3));
    const bytes = store.readManifestBytes();
    const files: string[] = [];
    const gzipped: boolean[] = [];
    const parsed: unknown[] = [];
    for await (const file of bytes.files) {
      files.push(file.key);
      gzipped.push(file.gzip === true);
      // An S3 snapshot comes as stored, gzipped.
      const chunks = file.gzip === true ? Readable.from(file.chunks).pipe(createGunzip()) : file.chunks;
      for await (const e of sinks.parseManifestStream(chunks)) parsed.push(e);
    }
    const read = await all(store.readManifest());
    expect(parsed).toHaveLength(4);
    if (backend.name === 'local folder') {
      expect(bytes.newest).toBe('last');
      expect(files).toEqual(['_manifest/snapshot.ndjson', 'manifest.ndjson']);
      expect(gzipped).toEqual([false, false]);
      expect(parsed).toEqual(read);
    } else {
      // S3 merges its places by replay and time; the bytes are the same entries, each place whole, in turn.
      expect(bytes.newest).toBe('recorded');
      expect(gzipped).toEqual([true, false]);
      expect(files).toEqual([expect.stringMatching(/^_manifest\/_snapshots\/all\/\d{13}-/), '_manifest/']);
      const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
      expect([...parsed].sort(byJson)).toEqual([...read].sort(byJson));
    }
  });
});

describe('the public S3 store loads the AWS SDK on its first request only', () => {
  it('making it, checking its options and closing it load nothing of the SDK; a request does', async () => {
    const work = await mkdtemp(join(tmpdir(), 'public-lazy-'));
    try {
      await writeFile(
        join(work, 'hooks.mjs'),
        "import { writeSync } from 'node:fs';\nexport async function load(url, ctx, next) { writeSync(2, `LOADED ${url}\\n`); return next(url, ctx); }\n",
      );
      await writeFile(
        join(work, 'register.mjs'),
        `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(work, 'hooks.mjs')).href)});\n`,
      );
      const script = (request: boolean): string => `
        const { createS3Sink, openSink } = await import('replay-export/sinks');
        const options = { endpoint: ${JSON.stringify(endpoint)}, credentials: ${JSON.stringify(credentials)}, forcePathStyle: true };
        try { createS3Sink('s3://${BUCKET}/lazy', { ...options, partSize: 1 }); } catch { process.stderr.write('REFUSED\\n'); }
        const store = openSink('s3://${BUCKET}/lazy', { s3: options });
        ${request ? 'await store.hasManifest();' : ''}
        await store.close();`;
      const loaded = async (request: boolean): Promise<string> => {
        const child = spawn(
          process.execPath,
          ['--import', pathToFileURL(join(work, 'register.mjs')).href, '--input-type=module', '-e', script(request)],
          { cwd: packageRoot(), stdio: ['ignore', 'ignore', 'pipe'] },
        );
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        const [code] = (await once(child, 'close')) as [number];
        expect(code, stderr).toBe(0);
        return stderr;
      };
      const idle = await loaded(false);
      expect(idle).toContain('REFUSED');
      expect(idle).toMatch(/LOADED \S+\/dist\/sinks\/s3\.js/);
      expect(idle).not.toMatch(/@aws-sdk/);
      expect(await loaded(true)).toMatch(/LOADED \S+@aws-sdk\/client-s3/);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

/** A store closed with `await using`. */
function disposable<T extends { close(): Promise<void> }>(store: T): T & AsyncDisposable {
  return Object.assign(store, { [Symbol.asyncDispose]: () => store.close() });
}
