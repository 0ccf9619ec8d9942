/**
 * A listing that keeps growing while a run pages (new replays arrive faster than pages are read, oldest first): the
 * run fixes its upper time bound when it starts, so the listing ends, and the newcomers wait for the next run.
 * `--max <n>` exports at most n replays a run.
 */
import { afterEach, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { tempDir } from '../pipeline/helpers.js';
import { runCli, sandboxEnv, walk } from './cli-helpers.js';

let sandbox: Sandbox | undefined;
let work: { dir: string; cleanup: () => Promise<void> } | undefined;
afterEach(async () => {
  await sandbox?.close();
  await work?.cleanup();
});

const outputs = async (dir: string): Promise<string[]> =>
  (await walk(dir)).filter((f) => f.endsWith('.json') && !f.startsWith('_') && !f.startsWith('.'));

test('replays arriving while an archive pages wait for the next run; the listing ends', async () => {
  // Five new replays after every page of five: without a bound the listing reaches its end only when the growth stops.
  sandbox = await startSandbox({ replicas: 10, sortOrder: 'asc', listGrowth: { perPage: 5, pages: 1000 } });
  work = await tempDir('replay-export-growing-');
  const before = sandbox.replays().length;
  const out = `${work.dir}/out`;
  const res = await runCli(
    ['archive', '--out', out, '--settle', '0s', '--page-size', '5', '--concurrency', '2'],
    sandboxEnv(sandbox),
  );
  expect(res.code, res.stderr).toBe(0);
  const written = await outputs(out);
  expect(written.filter((f) => f.startsWith('grown-'))).toEqual([]);
  expect(written).toHaveLength(before);
  // The listing read about the pages of the replays that were there (each page grows it by five more).
  expect(sandbox.replays().length - before).toBeLessThanOrEqual(5 * (Math.ceil(before / 5) + 2));
});

test('--max 3 exports three replays a run; the next run takes the next ones', async () => {
  sandbox = await startSandbox({ replicas: 10 });
  work = await tempDir('replay-export-max-');
  const out = `${work.dir}/out`;
  const env = sandboxEnv(sandbox);
  const first = await runCli(['archive', '--out', out, '--settle', '0s', '--max', '3'], env);
  expect(first.code, first.stderr).toBe(0);
  expect(first.stderr).toMatch(/Summary \(.*\): ok 3, failed 0/);
  expect(await outputs(out)).toHaveLength(3);
  const second = await runCli(['archive', '--out', out, '--settle', '0s', '--max', '3'], env);
  expect(second.stderr).toMatch(/ok 3, failed 0, .*already done 3/);
  expect(await outputs(out)).toHaveLength(6);
  const bad = await runCli(['archive', '--out', out, '--max', '0'], env);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--max');
});

/** The replay ids a dry run (`--log-format json`) would export. */
const planned = (stdout: string): string[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { replay_id: string; action: string })
    .filter((p) => p.action === 'export')
    .map((p) => p.replay_id);

test('--dry-run lists what the run would take: bounded by its start time, and by --max', async () => {
  sandbox = await startSandbox({ replicas: 10, sortOrder: 'asc', listGrowth: { perPage: 5, pages: 1000 } });
  work = await tempDir('replay-export-dry-bound-');
  const before = sandbox.replays().length;
  const out = `${work.dir}/out`;
  const env = sandboxEnv(sandbox);
  // A growing listing: the dry run ends as the run does, without the replays that arrive while it pages.
  const dry = await runCli(
    ['archive', '--out', out, '--settle', '0s', '--page-size', '5', '--dry-run', '--log-format', 'json'],
    env,
  );
  expect(dry.code, dry.stderr).toBe(0);
  const all = planned(dry.stdout);
  expect(all.filter((id) => id.includes('grown'))).toEqual([]);
  expect(all).toHaveLength(before);

  // --max 3: the dry run names exactly the three replays the run then exports.
  const three = planned(
    (await runCli(['archive', '--out', out, '--settle', '0s', '--max', '3', '--dry-run', '--log-format', 'json'], env))
      .stdout,
  );
  expect(three).toHaveLength(3);
  const run = await runCli(['archive', '--out', out, '--settle', '0s', '--max', '3', '--log-format', 'json'], env);
  expect(run.code, run.stderr).toBe(0);
  const exported = run.stderr
    .split('\n')
    .filter((l) => l.includes('"event":"replay"'))
    .map((l) => JSON.parse(l) as { replay_id: string; outcome: string })
    .filter((l) => l.outcome === 'ok')
    .map((l) => l.replay_id);
  expect(exported.sort()).toEqual([...three].sort());
});
