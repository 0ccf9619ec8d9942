/**
 * Claims that cannot hide a replay (issue 37, item 5): a balanced shard reports a replay of its own `taken` only when
 * the archive shows it exported — an `ok` line for it in this archive's format, its output there. Planted `.taken` +
 * `.done` files (a run name used again, a `.done` dated in the future, another format's archive under the same run
 * name) make no replay vanish: the owner exports it itself, the run exits 0 and `verify` finds the archive whole.
 */
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { archiveReplays, createLocalSink, type ArchiveEvent } from '../../src/index.js';
import { shardOf } from '../../src/pipeline/shard.js';
import { verifyArchive } from '../../src/archive.js';
import { workClaimKey } from '../../sinks/work-claims.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { FAST, lastById, readManifest, tempDir } from '../pipeline/helpers.js';
import { runCliInProcess, sandboxEnv } from '../cli/cli-helpers.js';

const N = 3;
let sandbox: Sandbox | undefined;
let work: { dir: string; cleanup: () => Promise<void> } | undefined;
afterEach(async () => {
  await sandbox?.close();
  await work?.cleanup();
  sandbox = work = undefined;
});

/** The sandbox's replays of shard 0 of 3. */
const mine = (sb: Sandbox): string[] =>
  sb
    .replays()
    .map((r) => r.replayId)
    .filter((id) => shardOf(id, N) === 0);

/** Plants, under `run`, a claim of each of `ids` by shard 2 and its `.done`, dated `at` (default: now). */
async function plant(dir: string, run: string, ids: readonly string[], at?: Date): Promise<void> {
  const sink = createLocalSink(dir);
  const claims = sink.workClaims!(run);
  for (const id of ids) {
    expect(await claims.take(id, '2/3')).toBeUndefined();
    await claims.finish(id);
    if (at !== undefined) await utimes(join(dir, workClaimKey(run, id, 'done')), at, at);
  }
  await sink.close();
}

async function shard0(sb: Sandbox, out: string, extra: Record<string, unknown>): Promise<Map<string, string>> {
  const got = new Map<string, string>();
  const options = {
    endpoint: sb.url,
    ...sb.credentials,
    ...FAST,
    out,
    settleMs: 0,
    shard: { index: 0, count: N },
    balance: { run: 'nightly', waitMs: 300 },
    ...extra,
  };
  for await (const ev of archiveReplays(options) as AsyncIterable<ArchiveEvent>)
    if (ev.type === 'result') got.set(ev.replayId, ev.outcome);
  return got;
}

async function verifyClean(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const verify = await runCliInProcess(['verify', dir], { env });
  expect(verify.code, verify.stderr).toBe(0);
}

describe('forged claims', () => {
  it('planted .taken and .done under a run name used again: the owner exports its replays; exit 0, verify clean', async () => {
    sandbox = await startSandbox({ replicas: 8 });
    work = await tempDir('replay-export-forged-');
    const ids = mine(sandbox);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    await plant(work.dir, 'nightly', ids);
    const env = sandboxEnv(sandbox);
    const args = ['archive', '--out', work.dir, '--settle', '0', '--shard', '0/3', '--balance', 'nightly'];
    const run = await runCliInProcess(args, { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/taken by other shards/);
    const last = lastById(await readManifest(work.dir));
    for (const id of ids) expect(last.get(id)?.status, id).toBe('ok');
    await verifyClean(work.dir, env);
  });

  it('a .done dated in the future counts as absent: waited for, then exported here', async () => {
    sandbox = await startSandbox({ replicas: 8 });
    work = await tempDir('replay-export-forged-');
    const ids = mine(sandbox);
    await plant(work.dir, 'nightly', ids, new Date(Date.now() + 24 * 3_600_000));
    const got = await shard0(sandbox, work.dir, {});
    for (const id of ids) expect(got.get(id), id).toBe('ok');
    const last = lastById(await readManifest(work.dir));
    for (const id of ids) expect(last.get(id)?.status, id).toBe('ok');
    await verifyClean(work.dir, sandboxEnv(sandbox));
  });

  it("another format's claims and lines under the same run name hide nothing: exported here in this format", async () => {
    sandbox = await startSandbox({ replicas: 8 });
    work = await tempDir('replay-export-forged-');
    const ids = mine(sandbox);
    // The replays archived as json, and the claims a json run of this name would have left (no format recorded).
    for await (const _ of archiveReplays({
      endpoint: sandbox.url,
      ...sandbox.credentials,
      out: work.dir,
      settleMs: 0,
    }));
    await plant(work.dir, 'nightly', ids);
    const got = await shard0(sandbox, work.dir, { format: 'html' });
    for (const id of ids) expect(got.get(id), id).toBe('ok');
    const last = lastById(await readManifest(work.dir));
    for (const id of ids) expect(last.get(id)).toMatchObject({ status: 'ok', format: 'html' });
    // Every replay's last line is intact; what verify reports is the json outputs the html lines replaced (orphans).
    const verification = verifyArchive({ out: work.dir });
    const problems: { kind: string; key?: string }[] = [];
    for await (const p of verification) problems.push(p);
    expect(problems.filter((p) => p.kind !== 'orphan' || !p.key?.endsWith('.json'))).toEqual([]);
    expect(await verification.summary).toMatchObject({ intact: sandbox.replays().length });
  });

  it('a run name taken by an archive of another format in this target is refused (exit 2); nothing is lost', async () => {
    sandbox = await startSandbox({ replicas: 8 });
    work = await tempDir('replay-export-forged-');
    const env = sandboxEnv(sandbox);
    const args = (i: number, format: string): string[] =>
      ['archive', '--out', work!.dir, '--settle', '0', '--shard', `${i}/3`, '--balance', 'shared'].concat(
        '--format',
        format,
      );
    const json = await Promise.all([0, 1, 2].map((i) => runCliInProcess(args(i, 'json'), { env })));
    for (const r of json) expect(r.code, r.stderr).toBe(0);
    const html = await runCliInProcess(args(0, 'html'), { env });
    expect(html.code, html.stderr).toBe(2);
    expect(html.stderr).toMatch(/"shared" is used in this target by an archive of another format \(json\)/);
    const last = lastById(await readManifest(work.dir));
    for (const r of sandbox.replays()) expect(last.get(r.replayId)).toMatchObject({ status: 'ok', format: 'json' });
    await verifyClean(work.dir, env);
  });
});
