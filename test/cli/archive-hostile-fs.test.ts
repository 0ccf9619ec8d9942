import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { replayKey } from '../../sinks/keys.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { lastById, readJson, readManifest, readOutput, tempDir } from '../pipeline/helpers.js';
import { cleanEnv, runCli } from './cli-helpers.js';

let sandbox: Sandbox | undefined;
let work: { dir: string; cleanup: () => Promise<void> };

beforeEach(async () => {
  work = await tempDir('replay-export-hostile-fs-');
});
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  await work.cleanup();
});

function env(sb: Sandbox): NodeJS.ProcessEnv {
  return cleanEnv({ PLATFORM_API_KEY: sb.credentials.apiKey, PLATFORM_SECRET_KEY: sb.credentials.secretKey, PLATFORM_ENDPOINT: sb.url });
}

const JSON_OUT = { format: 'json', gzip: false } as const;

describe('archive on a hostile file system', () => {
  test('a manifest.ndjson symlinked to a file outside the target: refused with a clear error, nothing written', async () => {
    sandbox = await startSandbox({});
    const out = join(work.dir, 'out');
    const outside = join(work.dir, 'outside');
    await mkdir(out);
    await mkdir(outside);
    const victim = join(outside, 'victim.ndjson');
    await writeFile(victim, 'keep me\n');
    await symlink(victim, join(out, 'manifest.ndjson'));
    for (const args of [['archive', '--out', out, '--settle', '0'], ['export', sandbox.replays()[0]!.replayId, '--out', out]]) {
      const res = await runCli(args, env(sandbox));
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toContain(`manifest.ndjson in ${out} is a symbolic link; refusing to use it as the manifest`);
      expect(await readFile(victim, 'utf8')).toBe('keep me\n');
      expect(await readdir(out)).toEqual(['manifest.ndjson']);
    }
  });

  test('a symlinked device folder fails that replay alone, naming its key; the others are exported; nothing outside', async () => {
    sandbox = await startSandbox({});
    const [victimReplay, ...others] = sandbox.replays();
    const out = join(work.dir, 'out');
    const outside = join(work.dir, 'outside');
    await mkdir(out);
    await mkdir(outside);
    const key = replayKey(victimReplay!.replayId, JSON_OUT);
    await symlink(outside, join(out, key.split('/')[0]!), 'dir');
    for (const run of [1, 2]) {
      const res = await runCli(['archive', '--out', out, '--settle', '0'], env(sandbox));
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toContain(`failed ${victimReplay!.replayId}: replay ${victimReplay!.replayId}: cannot write ${key}: folder`);
      expect(res.stderr).toMatch(/Summary .*failed 1/);
      const last = lastById(await readManifest(out));
      expect(last.get(victimReplay!.replayId)).toMatchObject({
        status: 'failed',
        error: { code: 'sink_path_escape', message: expect.stringContaining(`cannot write ${key}: folder ${key.split('/')[0]} in the target is a symbolic link`) },
      });
      for (const r of others) {
        const e = last.get(r.replayId)!;
        expect(e.status, `run ${run}: ${r.replayId}`).toBe('ok');
        expect(await readOutput(join(out, e.key as string))).toEqual(await readJson(r.expectedPath));
      }
      expect(await readdir(outside)).toEqual([]);
    }
  });
});
