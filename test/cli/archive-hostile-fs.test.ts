import { readdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { replayKey } from '../../sinks/keys.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { lastById, readJson, readManifest, readOutput, tempDir } from '../pipeline/helpers.js';
import { cleanEnv, runCli, targetAndVictim, VICTIM_TEXT, walk } from './cli-helpers.js';

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
  return cleanEnv({
    PLATFORM_API_KEY: sb.credentials.apiKey,
    PLATFORM_SECRET_KEY: sb.credentials.secretKey,
    PLATFORM_ENDPOINT: sb.url,
  });
}

const JSON_OUT = { format: 'json', gzip: false } as const;

/** Every folder under `dir` that holds nothing, `/`-separated. */
async function emptyFolders(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(e.parentPath, e.name);
    if (e.isDirectory() && (await readdir(path)).length === 0) out.push(path.slice(dir.length + 1));
  }
  return out.sort();
}

describe('archive on a hostile file system', () => {
  test('a manifest.ndjson symlinked to a file outside the target: refused with a clear error, nothing written', async () => {
    sandbox = await startSandbox({});
    const { out, victim } = await targetAndVictim(work.dir);
    await symlink(victim, join(out, 'manifest.ndjson'));
    for (const args of [
      ['archive', '--out', out, '--settle', '0'],
      ['export', sandbox.replays()[0]!.replayId, '--out', out],
    ]) {
      const res = await runCli(args, env(sandbox));
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toContain(`manifest.ndjson in ${out} is a symbolic link; refusing to use it as the manifest`);
      expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
      expect(await readdir(out)).toEqual(['manifest.ndjson']);
    }
  });

  test('a symlinked device folder fails that replay alone, naming its key; the others are exported; nothing outside', async () => {
    sandbox = await startSandbox({});
    const [victimReplay, ...others] = sandbox.replays();
    const { out, outside } = await targetAndVictim(work.dir);
    const key = replayKey(victimReplay!.replayId, JSON_OUT);
    await symlink(outside, join(out, key.split('/')[0]!), 'dir');
    for (const run of [1, 2]) {
      const res = await runCli(['archive', '--out', out, '--settle', '0'], env(sandbox));
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toContain(`failed ${victimReplay!.replayId}: cannot write ${key}: folder`);
      expect(res.stderr).toMatch(/Summary .*failed 1/);
      const last = lastById(await readManifest(out));
      expect(last.get(victimReplay!.replayId)).toMatchObject({
        status: 'failed',
        error: {
          code: 'SINK_PATH_ESCAPE',
          message: expect.stringContaining(
            `cannot write ${key}: folder ${key.split('/')[0]} in the target is a symbolic link`,
          ),
        },
      });
      for (const r of others) {
        const e = last.get(r.replayId)!;
        expect(e.status, `run ${run}: ${r.replayId}`).toBe('ok');
        expect(await readOutput(join(out, e.key as string))).toEqual(await readJson(r.expectedPath));
      }
      expect(await readdir(outside)).toEqual(['victim']);
    }
  });

  test('failed replays (corrupt files, an id the client refuses) leave no empty folder, also with replays of one device in flight', async () => {
    const extra = [
      { replay_id: 'shared-dev/1795000000001', sample: 'form-typing' },
      { replay_id: 'shared-dev/1795000000002', sample: 'long-scroll' },
      { replay_id: 'bad-dev/1795000000003', sample: 'form-typing' },
      { replay_id: 'bad-dev/1795000000004', sample: 'long-scroll' },
      { replay_id: 'bad-dev/1795000000005', sample: 'canvas-drawing' },
      // A lone surrogate: no URL can carry it, so the files request is refused before it is sent.
      { replay_id: '\ud800dev/1795000000006', sample: 'form-typing' },
    ];
    sandbox = await startSandbox({ extraReplays: extra });
    const corrupt = [
      'shared-dev/1795000000001',
      'bad-dev/1795000000003',
      'bad-dev/1795000000004',
      'bad-dev/1795000000005',
    ];
    sandbox.setFaults({ corruptFiles: [...corrupt, sandbox.replays()[0]!.replayId] });
    const out = join(work.dir, 'out');
    const res = await runCli(['archive', '--out', out, '--settle', '0', '--concurrency', '4'], env(sandbox));
    expect(res.code, res.stderr).toBe(1);
    const last = lastById(await readManifest(out));
    for (const id of [...corrupt, sandbox.replays()[0]!.replayId, extra[5]!.replay_id])
      expect(last.get(id)?.status, id).toBe('failed');
    expect(last.get('shared-dev/1795000000002')?.status).toBe('ok');
    expect(await emptyFolders(out)).toEqual([]);
    const files = await walk(out);
    expect(files.some((f) => f.startsWith('bad-dev/'))).toBe(false);
    expect(files.filter((f) => f.startsWith('shared-dev/'))).toEqual([replayKey('shared-dev/1795000000002', JSON_OUT)]);
  });
});
