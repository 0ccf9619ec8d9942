/**
 * A files listing with a duplicate key: the CLI warns about it in text and JSON logs, and writes each file once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { lastById, readJson, readManifest, readOutput, tempDir } from '../pipeline/helpers.js';
import { runCli, sandboxEnv } from './cli-helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  sandbox = await startSandbox({ faults: { filesOrder: 'reversed', duplicateFiles: true } });
  work = await tempDir('replay-export-listing-');
});
afterAll(async () => {
  await sandbox.close();
  await work.cleanup();
});

const env = (): NodeJS.ProcessEnv => sandboxEnv(sandbox);

describe('a files listing out of order with a duplicate key', () => {
  test('export and archive write key order and warn about each duplicate in text and JSON logs', async () => {
    const r = sandbox.replays().find((x) => x.fileCount[3] >= 3)!;
    const text = await runCli(['export', r.replayId, '--out', `${work.dir}/text`], env());
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(
      new RegExp(`^warn: ${r.replayId}: the files listing holds \\S+/v3/\\S+ more than once; taken once$`, 'm'),
    );
    const out = `${work.dir}/json`;
    const json = await runCli(['--log-format', 'json', 'archive', '--out', out, '--settle', '0'], env());
    expect(json.code, json.stderr).toBe(0);
    const lines = json.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const warned = lines.filter((l) => l.event === 'duplicate_file');
    expect(new Set(warned.map((l) => l.replay_id))).toEqual(new Set(sandbox.replays().map((x) => x.replayId)));
    expect(warned.every((l) => l.level === 'warn' && typeof l.file_key === 'string')).toBe(true);
    const entry = lastById(await readManifest(out)).get(r.replayId)!;
    expect(await readOutput(`${out}/${entry.key as string}`)).toEqual(await readJson(r.expectedPath));
  });
});
