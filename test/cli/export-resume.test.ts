/**
 * Issue #28, finding 10: an interrupted `export` of several replays says "run the same command again to resume", and
 * running it again now does: the replays already exported (recorded ok, output present, files unchanged) are left
 * alone, the others are exported.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { tempDir } from '../pipeline/helpers.js';
import { runCli, runCliInProcess, sandboxEnv, walk } from './cli-helpers.js';

let sandbox: Sandbox | undefined;
let work: { dir: string; cleanup: () => Promise<void> } | undefined;
afterEach(async () => {
  await sandbox?.close();
  await work?.cleanup();
});

const outputs = async (dir: string): Promise<string[]> =>
  (await walk(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.json') && !f.startsWith('_'));

/** Outcome per replay id of a `--log-format json` run. */
const outcomes = (stderr: string): Map<string, string> =>
  new Map(
    stderr
      .split('\n')
      .filter((l) => l.includes('"event":"replay"'))
      .map((l) => JSON.parse(l) as { replay_id: string; outcome: string })
      .map((l) => [l.replay_id, l.outcome]),
  );

test('an interrupted export of several replays, run again, exports only the replays it had not finished', async () => {
  sandbox = await startSandbox({ replicas: 6, faults: { latencyMs: 150 } });
  work = await tempDir('replay-export-export-resume-');
  const env = sandboxEnv(sandbox);
  const ids = sandbox
    .replays()
    .slice(0, 6)
    .map((r) => r.replayId);
  const out = join(work.dir, 'out');

  const stop = new AbortController();
  const first = runCliInProcess(['export', ...ids, '--out', out, '--concurrency', '1', '--log-format', 'json'], {
    env,
    signal: stop.signal,
  });
  for (let i = 0; i < 400 && (await outputs(out)).length < 2; i++) await delay(25);
  stop.abort(new InterruptedError());
  const interrupted = await first;
  expect(interrupted.code).toBe(130);
  expect(interrupted.stderr).toContain('interrupted — run the same command again to resume');
  const kept = [...outcomes(interrupted.stderr)].filter(([, o]) => o === 'ok').map(([id]) => id);
  expect(kept.length).toBeGreaterThanOrEqual(2);
  expect(kept.length).toBeLessThan(ids.length);

  const again = await runCli(['export', ...ids, '--out', out, '--log-format', 'json'], env);
  expect(again.code, again.stderr).toBe(0);
  const second = outcomes(again.stderr);
  for (const id of ids) expect([id, second.get(id)]).toEqual([id, kept.includes(id) ? 'unchanged' : 'ok']);
  expect(await outputs(out)).toHaveLength(ids.length);
}, 120_000);
