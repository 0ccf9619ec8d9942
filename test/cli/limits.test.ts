import { existsSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { parseByteSize, ByteSizeError } from '../../src/pipeline/byte-size.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { v2BombFile, v3BombFile } from '../decoders/bombs.js';
import { gz, makeEvents, v3Text } from '../decoders/fixtures.js';
import { lastById, readJson, readManifest, readOutput, tempDir } from '../pipeline/helpers.js';
import { makeSamplesDir, packVersion2Files, sampleFilePaths, type FixtureDir } from '../sandbox/fixtures.js';
import { cleanEnv, runCli } from './cli-helpers.js';

/** Letters of the event in the bombs: 2.2 GB, past 2^31 once inflated (the files themselves are 23 KB and 2.2 MB). */
const BOMB_LETTERS = 2_200_000_000;
const DEFAULT_LIMIT = '268435456 bytes (256 MiB)';

let work: { dir: string; cleanup: () => Promise<void> };
let samples: FixtureDir | undefined;
let sandbox: Sandbox | undefined;

beforeEach(async () => {
  work = await tempDir('replay-export-limits-');
});
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  samples?.cleanup();
  samples = undefined;
  await work.cleanup();
});

describe('decode: events past 2 GiB are refused, not a crash and not truncated', () => {
  test.each([
    ['a version 2 element inflating to 2.2 GB', () => v2BombFile(BOMB_LETTERS)],
    ['a version 3 event of 2.2 GB', () => v3BombFile(BOMB_LETTERS)],
  ])('%s: exit 1 with EVENT_TOO_LARGE naming the file, element and limit; no output', async (_name, make) => {
    const file = join(work.dir, 'bomb.json.gz');
    writeFileSync(file, make());
    const out = join(work.dir, 'events.json');
    const res = await runCli(['decode', file, '--out', out], cleanEnv());
    expect(res.signal).toBe(null);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toContain(
      `EVENT_TOO_LARGE: the event is larger than the event size limit of ${DEFAULT_LIMIT} (file ${file}, element 0`,
    );
    expect(existsSync(out)).toBe(false);
    expect((await readdir(work.dir)).sort()).toEqual(['bomb.json.gz']);
  });

  test('--max-event-size and --max-replay-size apply; the files given are one replay', async () => {
    const events = makeEvents(20, 2);
    const a = join(work.dir, 'a.json.gz');
    const b = join(work.dir, 'b.json.gz');
    writeFileSync(a, gz(v3Text(events.slice(0, 10))));
    writeFileSync(b, gz(v3Text(events.slice(10))));
    const ok = await runCli(['decode', a, b, '--max-event-size', '1MiB', '--max-replay-size', '1MiB'], cleanEnv());
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual(JSON.parse(JSON.stringify(events)));
    const big = Math.max(...events.map((e) => Buffer.byteLength(JSON.stringify(e))));
    const event = await runCli(['decode', a, b, '--max-event-size', String(big - 1)], cleanEnv());
    expect(event.code).toBe(1);
    expect(event.stderr).toContain(
      `EVENT_TOO_LARGE: the event is larger than the event size limit of ${big - 1} bytes`,
    );
    const first = Buffer.byteLength(v3Text(events.slice(0, 10)));
    const replay = await runCli(['decode', a, b, '--max-replay-size', String(first + 5)], cleanEnv());
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain(
      `REPLAY_TOO_LARGE: the replay inflates to more than the replay size limit of ${first + 5} bytes (file ${b}, element 0, byte 5)`,
    );
  });
});

describe('archive: a replay holding a bomb fails alone', () => {
  test.each([2, 3] as const)(
    'version %s: exit 1, the replay failed in the manifest with code, file key and index; the others ok',
    async (version) => {
      samples = makeSamplesDir([
        { name: 'alpha', files: 3, startMs: Date.UTC(2026, 10, 20, 9), platformId: 1 },
        { name: 'beta', files: 3, startMs: Date.UTC(2026, 10, 20, 10), platformId: 2 },
        { name: 'gamma', files: 2, startMs: Date.UTC(2026, 10, 20, 11), platformId: 3 },
      ]);
      packVersion2Files(samples);
      const bombPath = sampleFilePaths(samples, 'beta', version)[1]!;
      writeFileSync(bombPath, version === 2 ? v2BombFile(BOMB_LETTERS) : v3BombFile(BOMB_LETTERS));
      sandbox = await startSandbox({ samplesDir: samples.dir });
      const out = join(work.dir, 'out');
      const env = cleanEnv({
        PLATFORM_API_KEY: sandbox.credentials.apiKey,
        PLATFORM_SECRET_KEY: sandbox.credentials.secretKey,
        PLATFORM_ENDPOINT: sandbox.url,
      });
      const res = await runCli(['archive', '--out', out, '--settle', '0', '--file-version', String(version)], env);
      expect(res.signal).toBe(null);
      expect(res.code, res.stderr).toBe(1);
      const last = lastById(await readManifest(out));
      const beta = last.get(samples.ids.get('beta')!)!;
      expect(beta.status).toBe('failed');
      expect(beta.error).toMatchObject({ code: 'EVENT_TOO_LARGE', index: 0 });
      const fileKey = (beta.error as { file_key: string }).file_key;
      expect(fileKey.endsWith(`/v${version}/${bombPath.split('/').pop()!}`)).toBe(true);
      expect((beta.error as { message: string }).message).toContain(DEFAULT_LIMIT);
      expect(res.stderr).toContain(fileKey);
      for (const name of ['alpha', 'gamma']) {
        const entry = last.get(samples.ids.get(name)!)!;
        expect(entry.status, name).toBe('ok');
        expect(await readOutput(join(out, entry.key as string))).toEqual(
          await readJson(join(samples.dir, 'expected', `${name}.json`)),
        );
      }
    },
  );

  test('bad --max-event-size / --max-replay-size values are usage errors (exit 2) before any request', async () => {
    sandbox = await startSandbox({});
    const env = cleanEnv({
      PLATFORM_API_KEY: sandbox.credentials.apiKey,
      PLATFORM_SECRET_KEY: sandbox.credentials.secretKey,
      PLATFORM_ENDPOINT: sandbox.url,
    });
    const out = join(work.dir, 'out');
    for (const args of [
      ['archive', '--out', out, '--max-event-size', '2GiB'],
      ['archive', '--out', out, '--max-event-size', '0'],
      ['export', 'a/1', '--out', out, '--max-replay-size', 'lots'],
      ['export', 'a/1', '--out', out, '--max-replay-size', '0.5B'],
      ['decode', 'x.json.gz', '--max-event-size', '-1'],
    ]) {
      const res = await runCli(args, env);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toMatch(/--max-(event|replay)-size(: not a size| must be)/);
    }
    expect(sandbox.stats().apiRequests).toBe(0);
  });
});

describe('parseByteSize', () => {
  test.each([
    ['1048576', 1048576],
    ['256MiB', 256 * 2 ** 20],
    ['8GiB', 8 * 2 ** 30],
    ['1.5 GiB', 1.5 * 2 ** 30],
    ['64kib', 65536],
    ['500MB', 500e6],
    ['2kB', 2000],
    ['10 B', 10],
    ['0', 0],
  ])('%s is %d bytes', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  test.each(['', 'MiB', '1.5', '0.3KiB', '5 MiBs', '-1', '1e3', '8G', String(2 ** 60)])('%j is refused', (text) => {
    expect(() => parseByteSize(text)).toThrow(ByteSizeError);
  });
});
