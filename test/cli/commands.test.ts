import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { lastById, readJson, readManifest, readOutput, tempDir } from '../pipeline/helpers.js';
import { cleanEnv, runCli } from './cli-helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  sandbox = await startSandbox({});
  work = await tempDir('replay-export-cmd-');
});
afterAll(async () => {
  await sandbox.close();
  await work.cleanup();
});

const creds = (): Record<string, string> => ({
  PLATFORM_API_KEY: sandbox.credentials.apiKey,
  PLATFORM_SECRET_KEY: sandbox.credentials.secretKey,
  PLATFORM_ENDPOINT: sandbox.url,
});

describe('CLI commands', () => {
  test('list prints one replay record a line on stdout and nothing else there', async () => {
    const res = await runCli(['list', '--sort', 'asc'], cleanEnv(creds()));
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.replay_id)).toEqual(sandbox.replays().map((r) => r.replayId));
    const one = await runCli(['list', '--replay', sandbox.replays()[2]!.replayId], cleanEnv(creds()));
    expect(
      one.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).replay_id),
    ).toEqual([sandbox.replays()[2]!.replayId]);
    const max = await runCli(['list', '--max', '2'], cleanEnv(creds()));
    expect(max.stdout.trim().split('\n')).toHaveLength(2);
  });

  test('export writes the named replays (flags as well as env for credentials)', async () => {
    const out = join(work.dir, 'export');
    const [a, b] = sandbox.replays();
    const res = await runCli(
      [
        '--api-key',
        sandbox.credentials.apiKey,
        '--secret-key',
        sandbox.credentials.secretKey,
        '--endpoint',
        sandbox.url,
        'export',
        a!.replayId,
        b!.replayId,
        '--out',
        out,
        '--format',
        'ndjson',
      ],
      cleanEnv(),
    );
    expect(res.code, res.stderr).toBe(0);
    const last = lastById(await readManifest(out));
    expect(last.size).toBe(2);
    for (const r of [a!, b!])
      expect(await readOutput(join(out, last.get(r.replayId)!.key as string))).toEqual(await readJson(r.expectedPath));
    expect(res.stderr).not.toContain(sandbox.credentials.secretKey);
    expect(res.stdout).toBe('');
  });

  test('decode turns local v2 and v3 files into one JSON array, in the order given', async () => {
    const index = (await readJson(join(packageRoot(), 'samples', 'index.json'))) as {
      replays: { expected: string; files: Record<string, string[]> }[];
    };
    const s = index.replays[0]!;
    const want = await readJson(join(packageRoot(), 'samples', s.expected));
    for (const v of ['2', '3']) {
      const files = s.files[v]!.map((f) => join(packageRoot(), 'samples', f));
      const res = await runCli(['decode', ...files], cleanEnv());
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout)).toEqual(want);
    }
    const outFile = join(work.dir, 'decoded.json');
    const res = await runCli(
      ['decode', '--version', '3', '--out', outFile, ...s.files['3']!.map((f) => join(packageRoot(), 'samples', f))],
      cleanEnv(),
    );
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(await readFile(outFile, 'utf8'))).toEqual(want);
    const bad = await runCli(['decode', '--version', '3', join(packageRoot(), 'samples', 'index.json')], cleanEnv());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('index.json');
  });

  test('usage and configuration errors exit 2 before any request', async () => {
    const before = sandbox.stats().apiRequests;
    const out = join(work.dir, 'never');
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [['archive', '--out', out], cleanEnv(), /missing credentials/],
      [['archive', '--out', out, '--settle', '1 fortnight'], cleanEnv(creds()), /not a duration/],
      [['archive', '--out', out, '--recheck', 'x'], cleanEnv(creds()), /not a duration/],
      [['archive', '--out', out, '--shard', '5/4'], cleanEnv(creds()), /shard/i],
      [['archive', '--out', out, '--since', 'yesterday-ish'], cleanEnv(creds()), /--since/],
      [['archive', '--out', out, '--order', 'random'], cleanEnv(creds()), /--order/],
      [['archive', '--out', out, '--format', 'xml'], cleanEnv(creds()), /--format/],
      [['archive', '--out', out, '--user', 'bob'], cleanEnv(creds()), /amplitude_id/],
      [['--region', 'mars', 'archive', '--out', out], cleanEnv(creds()), /region/],
      [['export', 'no-slash-id', '--out', out], cleanEnv(creds()), /replay_id/],
      [['archive'], cleanEnv(creds()), /--out/],
      [['frobnicate'], cleanEnv(creds()), /unknown command/],
    ];
    for (const [args, env, message] of cases) {
      const res = await runCli(args, env);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(2);
      expect(res.stderr).toMatch(message);
      expect(res.stdout).toBe('');
    }
    expect(sandbox.stats().apiRequests).toBe(before);
  });

  test('an authentication failure exits 3, says so with the region and host, and never prints the secret', async () => {
    const secret = 'wrong-secret-0123456789abcdef';
    const env = cleanEnv({
      PLATFORM_API_KEY: sandbox.credentials.apiKey,
      PLATFORM_SECRET_KEY: secret,
      PLATFORM_ENDPOINT: sandbox.url,
    });
    for (const args of [
      ['archive', '--out', join(work.dir, 'auth'), '--settle', '0'],
      ['list'],
      ['--log-format', 'json', 'archive', '--out', join(work.dir, 'auth2')],
    ]) {
      const res = await runCli(args, env);
      expect(res.code, res.stderr).toBe(3);
      expect(res.stderr).toMatch(/Authentication failed/);
      expect(res.stderr).toMatch(/region us/);
      expect(res.stderr).toContain(new URL(sandbox.url).host);
      expect(res.stderr + res.stdout).not.toContain(secret);
      expect(res.stderr + res.stdout).not.toContain(
        Buffer.from(`${sandbox.credentials.apiKey}:${secret}`).toString('base64'),
      );
    }
  });

  test('archive --sandbox (what npm start runs) exports every sample and prints the summary', async () => {
    const out = join(work.dir, 'start');
    const res = await runCli(['archive', '--sandbox', '--out', out], cleanEnv());
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/Summary .*ok 6, failed 0/);
    const last = lastById(await readManifest(out));
    expect([...last.values()].every((e) => e.status === 'ok')).toBe(true);
    const again = await runCli(['archive', '--sandbox', '--out', out], cleanEnv());
    expect(again.stderr).toMatch(/already done 6/);
  });
});
