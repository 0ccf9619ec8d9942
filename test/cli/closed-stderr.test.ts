/**
 * `archive … 2>&1 | head -2`: the reader of stderr goes away after two lines. The archive goes on to its end: every
 * replay exported, no temporary file left, its exit code kept (the summary is lost with the reader).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { tempDir } from '../pipeline/helpers.js';
import { runCliInProcess, sandboxEnv, spawnCli, walk } from './cli-helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  sandbox = await startSandbox({ replicas: 40, faults: { latencyMs: 10 } });
  work = await tempDir('replay-export-closed-stderr-');
});
afterAll(async () => {
  await sandbox.close();
  await work.cleanup();
});

test('an archive whose stderr reader goes away after two lines finishes, exit 0, no .tmp left', async () => {
  const out = `${work.dir}/out`;
  const env = sandboxEnv(sandbox);
  const { child, done } = spawnCli(['archive', '--out', out, '--settle', '0s', '--concurrency', '2'], env);
  let seen = '';
  child.stderr!.on('data', (d: string) => {
    seen += d;
    if (seen.split('\n').length > 2) child.stderr!.destroy();
  });
  const res = await done;
  expect(res.signal).toBeNull();
  expect(res.code, seen).toBe(0);
  expect((await walk(out)).filter((f) => f.endsWith('.tmp') || f.includes('.tmp'))).toEqual([]);
  // Everything was exported: a second run finds every replay done.
  const again = await runCliInProcess(['archive', '--out', out, '--settle', '0s'], { env });
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toMatch(/Summary \(.*\): ok 0, failed 0, empty 0, skipped 0, already done [1-9]\d*/);
});
