/**
 * Mistakes a hurried user makes with --out, --body and inputs: each a usage error (exit 2) that names the flag and
 * what to write instead, before anything is written; `export <one id> --out <file>` writes that replay to the file.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { tempDir } from '../pipeline/helpers.js';
import { cleanEnv, runCli, sandboxEnv } from './cli-helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
let ids: string[];
beforeAll(async () => {
  sandbox = await startSandbox({});
  work = await tempDir('replay-export-mistakes-');
  ids = sandbox
    .replays()
    .map((r) => r.replayId)
    .slice(0, 2);
});
afterAll(async () => {
  await sandbox.close();
  await work.cleanup();
});

async function usageError(args: string[], flag: string, env = sandboxEnv(sandbox)): Promise<string> {
  const res = await runCli(args, env);
  expect(res.code, res.stderr).toBe(2);
  expect(res.stderr).toContain(flag);
  expect(res.stderr).not.toMatch(/ENOTDIR|EISDIR|ENOENT|File URL host/);
  return res.stderr;
}

describe('--out', () => {
  test('an existing file given to a command that writes a folder: exit 2, the file untouched', async () => {
    const file = join(work.dir, 'notes.txt');
    await writeFile(file, 'mine\n');
    expect(await usageError(['export', ...ids, '--out', file], '--out')).toMatch(
      /is a file; export of several replays writes a folder: give a folder/,
    );
    expect(await usageError(['archive', '--out', file], '--out')).toMatch(/is a file; archive writes a folder/);
    expect(await usageError(['export', ids[0]!, '--out', file], '--out')).toMatch(/\.json, \.ndjson or \.html file/);
    expect(await readFile(file, 'utf8')).toBe('mine\n');
  });

  test('--out replay.json for archive is refused (no folder named replay.json made)', async () => {
    const out = join(work.dir, 'replay.json');
    expect(await usageError(['archive', '--out', out], '--out')).toMatch(/names a file; archive writes a folder/);
    expect(existsSync(out)).toBe(false);
  });

  test('--out file://replays (a host, no file of this machine): exit 2 saying what to write instead', async () => {
    expect(await usageError(['archive', '--out', 'file://replays'], '--out')).toContain('write --out ./replays');
  });

  test('--out file:///abs/path is that folder, as the library takes it', async () => {
    const dir = join(work.dir, 'by-url');
    const res = await runCli(['export', ids[0]!, '--out', `file://${dir}`], sandboxEnv(sandbox));
    expect(res.code, res.stderr).toBe(0);
    expect((await readdir(dir)).length).toBeGreaterThan(0);
  });

  test('an S3 target with no region anywhere: exit 2 naming --s3-region and AWS_REGION', async () => {
    const env = sandboxEnv(sandbox);
    for (const k of Object.keys(env)) if (k.startsWith('AWS_')) delete env[k];
    Object.assign(env, {
      AWS_CONFIG_FILE: join(work.dir, 'none'),
      AWS_SHARED_CREDENTIALS_FILE: join(work.dir, 'none'),
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    const stderr = await usageError(['archive', '--out', 's3://some-bucket/replays'], '--s3-region', env);
    expect(stderr).toContain('AWS_REGION');
  });

  test('export <one id> --out replay.json writes that replay to that file (and .ndjson.gz, .html), atomically', async () => {
    const dir = join(work.dir, 'one');
    await mkdir(dir);
    const json = join(dir, 'replay.json');
    const res = await runCli(['export', ids[0]!, '--out', json], sandboxEnv(sandbox));
    expect(res.code, res.stderr).toBe(0);
    const events = JSON.parse(await readFile(json, 'utf8')) as unknown[];
    expect(events.length).toBeGreaterThan(0);
    const nd = join(dir, 'replay.ndjson.gz');
    expect((await runCli(['export', ids[0]!, '--out', nd], sandboxEnv(sandbox))).code).toBe(0);
    expect(
      gunzipSync(await readFile(nd))
        .toString('utf8')
        .trimEnd()
        .split('\n'),
    ).toHaveLength(events.length);
    const html = join(dir, 'page.html');
    expect((await runCli(['export', ids[0]!, '--out', html], sandboxEnv(sandbox))).code).toBe(0);
    expect(await readFile(html, 'utf8')).toMatch(/^<!doctype html>/i);
    // Only the files asked for: no manifest, no temporary file left.
    expect((await readdir(dir)).sort()).toEqual(['page.html', 'replay.json', 'replay.ndjson.gz']);
    expect(await usageError(['export', ids[0]!, '--out', json, '--format', 'ndjson'], '--format')).toContain(
      'name the file .ndjson',
    );
  });
});

describe('decode and api', () => {
  test('decode missing.gz: exit 2 and nothing on stdout (no lone "[")', async () => {
    const res = await runCli(['decode', join(work.dir, 'missing.gz')], cleanEnv());
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/missing\.gz: no such file; give replay files/);
  });

  test('decode … --out <a folder>: exit 2 naming --out', async () => {
    const folder = join(work.dir, 'a-folder');
    await mkdir(folder);
    const sample = join(work.dir, 'x.json');
    await writeFile(sample, '[]');
    expect(await usageError(['decode', sample, '--out', folder], '--out', cleanEnv())).toMatch(
      /is a folder; decode writes one file/,
    );
  });

  test('api … --body missing.json: exit 2 naming --body', async () => {
    expect(await usageError(['api', 'experiments.create', '--body', join(work.dir, 'missing.json')], '--body')).toMatch(
      /no such file; give a JSON file, or --body -/,
    );
  });
});

test('--log-format json: argument errors are JSON lines too', async () => {
  const res = await runCli(['--log-format', 'json', 'archive', '--out', 'x', '--no-such-flag'], cleanEnv());
  expect(res.code).toBe(2);
  const lines = res.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({
    level: 'error',
    msg: expect.stringContaining("unknown option '--no-such-flag'"),
    exit_code: 2,
  });
});
