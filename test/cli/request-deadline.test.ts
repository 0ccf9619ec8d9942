/**
 * `--request-deadline` on export, archive and list: parsed as a duration (a usage error otherwise), and applied to
 * every request, the storage downloads included.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { readManifest, tempDir } from '../pipeline/helpers.js';
import { runCli, sandboxEnv } from './cli-helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  sandbox = await startSandbox({});
  work = await tempDir('replay-export-deadline-');
});
afterAll(async () => {
  await sandbox.close();
  await work.cleanup();
});

const env = (): NodeJS.ProcessEnv => sandboxEnv(sandbox);

describe('--request-deadline', () => {
  test('a value that is not a positive duration is a usage error (exit 2) on list, export and archive', async () => {
    const id = sandbox.replays()[0]!.replayId;
    for (const args of [
      ['list', '--request-deadline', 'soon'],
      ['list', '--request-deadline', '0'],
      ['export', id, '--out', work.dir, '--request-deadline', '5 minutes'],
      ['archive', '--out', work.dir, '--request-deadline', '90'],
    ]) {
      const res = await runCli(args, env());
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(2);
      expect(res.stderr).toMatch(/--request-deadline(: not a duration| must be longer than 0)/);
    }
  });

  test('export: a file body too slow to finish within the deadline fails that replay, naming the file key', async () => {
    sandbox.setFaults({ slowBodyMs: 50, slowBodyScope: 'storage' });
    try {
      const [a] = sandbox.replays();
      const out = `${work.dir}/slow`;
      const res = await runCli(
        ['--log-format', 'json', 'export', a!.replayId, '--out', out, '--request-deadline', '300ms'],
        env(),
      );
      expect(res.code, res.stderr).toBe(1);
      const [entry] = await readManifest(out);
      expect(entry).toMatchObject({
        replay_id: a!.replayId,
        status: 'failed',
        error: { code: 'TIMEOUT', file_key: expect.stringContaining('/v3/') },
      });
      expect(JSON.stringify(entry)).toContain('Request deadline (300 ms)');
    } finally {
      sandbox.setFaults({ slowBodyMs: 0 });
    }
  });

  test('list and archive take the flag: a normal run with a generous deadline succeeds', async () => {
    const list = await runCli(['list', '--request-deadline', '1m'], env());
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trim().split('\n')).toHaveLength(sandbox.replays().length);
    const archive = await runCli(
      ['archive', '--out', `${work.dir}/ok`, '--settle', '0', '--request-deadline', '2m30s'],
      env(),
    );
    expect(archive.code, archive.stderr).toBe(0);
  });
});
