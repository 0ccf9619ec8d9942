/**
 * Balanced runs (issue #30, item 3): shards sharing one target share out the work through claims there. A shard done
 * with its own replays takes the others' last ones; an owner whose replay another shard took waits for its line; a
 * claim left by a shard that died is waited for, then exported by the owner: every replay is exported exactly once
 * whatever the shards' timing, and none is left out.
 */
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalSink, createS3Sink } from '../../src/index.js';
import { archiveReplays, planArchive, type ArchiveEvent } from '../../src/index.js';
import { forgetReplays, verifyArchive } from '../../src/archive.js';
import { resolveSettings } from '../../src/pipeline/settings.js';
import { shardOf } from '../../src/pipeline/shard.js';
import { storedKind } from '../../sinks/layout.js';
import { Target } from '../../sinks/target/target.js';
import { localWorkClaims, workClaimKey } from '../../sinks/work-claims.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { FAST, readManifest, tempDir } from '../pipeline/helpers.js';
import { runCliInProcess, sandboxEnv } from '../cli/cli-helpers.js';
import { BUCKET, startS3, type S3Server } from '../s3-cli/s3-helpers.js';

let sandbox: Sandbox | undefined;
let work: { dir: string; cleanup: () => Promise<void> } | undefined;
let s3: S3Server | undefined;
afterEach(async () => {
  await sandbox?.close();
  await s3?.stop();
  await work?.cleanup();
  sandbox = undefined;
  s3 = undefined;
  work = undefined;
});

const N = 3;

async function shardRun(
  sb: Sandbox,
  out: string,
  index: number,
  extra: Record<string, unknown> = {},
): Promise<ArchiveEvent[]> {
  const events: ArchiveEvent[] = [];
  const options = {
    endpoint: sb.url,
    ...sb.credentials,
    ...FAST,
    out,
    settleMs: 0,
    concurrency: 2,
    shard: { index, count: N },
    balance: { run: 'night-1' },
    ...extra,
  };
  for await (const ev of archiveReplays(options)) events.push(ev);
  return events;
}

const outcomes = (events: ArchiveEvent[]): Map<string, string> =>
  new Map(events.flatMap((e) => (e.type === 'result' ? [[e.replayId, e.outcome] as const] : [])));

/** Every replay of the sandbox recorded `ok` exactly once in the target's manifest. */
async function expectEachOnce(sb: Sandbox, dir: string): Promise<Record<string, unknown>[]> {
  const byId = new Map<string, Record<string, unknown>>();
  for (const l of await readManifest(dir)) {
    // A line appended while another shard folded the log is written again: the same entry twice is one outcome.
    const before = byId.get(l.replay_id as string);
    if (before !== undefined) expect(l, `${String(l.replay_id)} recorded twice`).toEqual(before);
    byId.set(l.replay_id as string, l);
  }
  expect([...byId.keys()].sort()).toEqual(
    sb
      .replays()
      .map((r) => r.replayId)
      .sort(),
  );
  const lines = [...byId.values()];
  expect(lines.every((l) => l.status === 'ok')).toBe(true);
  return lines;
}

describe('a balanced run', () => {
  it("lets a shard done with its own take the others' replays; their owner then finds them taken", async () => {
    sandbox = await startSandbox({ replicas: 17, faults: { latencyMs: 20 } });
    work = await tempDir('replay-export-balance-');
    // The listing's order (a dry run lists as the run does).
    const ids: string[] = [];
    for await (const p of planArchive({ endpoint: sandbox.url, ...sandbox.credentials, out: work.dir, settleMs: 0 }))
      ids.push(p.replayId);
    expect(ids.length).toBe(sandbox.replays().length);
    const own = (i: number): string[] => ids.filter((id) => shardOf(id, N) === i);
    // Shard 0 exports one replay at a time, the others four: they are done first and take shard 0's last replays.
    const runs = (
      await Promise.all([
        shardRun(sandbox, work.dir, 0, { concurrency: 1 }),
        shardRun(sandbox, work.dir, 1, { concurrency: 4 }),
        shardRun(sandbox, work.dir, 2, { concurrency: 4 }),
      ])
    ).map(outcomes);
    for (const id of ids) {
      // Exported by exactly one shard; its owner says `ok` (itself) or `taken` (another one did).
      expect(
        runs.filter((o) => o.get(id) === 'ok'),
        id,
      ).toHaveLength(1);
      expect(['ok', 'taken'], id).toContain(runs[shardOf(id, N)]!.get(id));
    }
    const taken = own(0).filter((id) => runs[0]!.get(id) === 'taken');
    expect(taken.length).toBeGreaterThan(0);
    // They are the last of shard 0's replays in the listing's order: the others took them from the end.
    expect(own(0).slice(-taken.length)).toEqual(taken);
    const lines = await expectEachOnce(sandbox, work.dir);
    // The lines name the shard that exported each replay.
    for (const l of lines.filter((x) => taken.includes(x.replay_id as string)))
      expect(['1/3', '2/3']).toContain(l.shard);
    // `forget` leaves the claims (its tombstone names the replay too); the next balanced run removes them.
    const gone = taken[0]!;
    await forgetReplays({ out: work.dir, replayIds: [gone] });
    // A shard run again under the same name later finds every replay done (the forgotten one stays forgotten).
    const again = outcomes(await shardRun(sandbox, work.dir, 0));
    expect(
      new Set(
        own(0)
          .filter((id) => id !== gone)
          .map((id) => again.get(id)),
      ),
    ).toEqual(new Set(['done-before']));
    expect(again.get(gone)).toBe('skipped');
  });

  it('exports every replay exactly once when the shards run at once', async () => {
    sandbox = await startSandbox({ replicas: 29, faults: { latencyMs: 20 } });
    work = await tempDir('replay-export-balance-');
    const runs = await Promise.all([0, 1, 2].map((i) => shardRun(sandbox!, work!.dir, i)));
    await expectEachOnce(sandbox, work.dir);
    const exported = runs.flatMap((r) => [...outcomes(r)].filter(([, o]) => o === 'ok').map(([id]) => id));
    expect(exported.sort()).toEqual(
      sandbox
        .replays()
        .map((r) => r.replayId)
        .sort(),
    );
    // `verify` finds the archive whole, its claims the archive's own (no orphan).
    const verification = verifyArchive({ out: work.dir });
    const problems: unknown[] = [];
    for await (const p of verification) problems.push(p);
    expect(problems).toEqual([]);
    expect(await verification.summary).toMatchObject({ problems: 0, intact: sandbox.replays().length });
  });

  it('waits for a claim whose holder died, then exports the replay itself; takes back its own earlier claims', async () => {
    sandbox = await startSandbox({ replicas: 11 });
    work = await tempDir('replay-export-balance-');
    const mine = sandbox
      .replays()
      .map((r) => r.replayId)
      .filter((id) => shardOf(id, N) === 0);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    const sink = createLocalSink(work.dir);
    const claims = sink.workClaims!('night-1');
    // One held by shard 2, which died before writing its line; one held by an earlier process of shard 0 itself.
    expect(await claims.take(mine[0]!, '2/3')).toBeUndefined();
    expect(await claims.take(mine[1]!, '0/3')).toBeUndefined();
    await sink.close();
    const events = await shardRun(sandbox, work.dir, 0, { balance: { run: 'night-1', waitMs: 300 } });
    const got = outcomes(events);
    for (const id of mine) expect(got.get(id), id).toBe('ok');
    const lines = await readManifest(work.dir);
    expect(lines.filter((l) => l.replay_id === mine[0])).toHaveLength(1);
  });

  it('tries again at once a replay another shard finished before it started (a run name used again)', async () => {
    sandbox = await startSandbox({ replicas: 5 });
    work = await tempDir('replay-export-balance-');
    const mine = sandbox
      .replays()
      .map((r) => r.replayId)
      .filter((id) => shardOf(id, N) === 0);
    const sink = createLocalSink(work.dir);
    const claims = sink.workClaims!('nightly');
    // Shard 2 took it in an earlier run of the same name, and its line there was no `ok` (the manifest has none).
    expect(await claims.take(mine[0]!, '2/3')).toBeUndefined();
    await claims.finish(mine[0]!);
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(join(work.dir, workClaimKey('nightly', mine[0]!, 'done')), hourAgo, hourAgo);
    await sink.close();
    // A wait far longer than the test may take: the replay is not waited for.
    const got = outcomes(await shardRun(sandbox, work.dir, 0, { balance: { run: 'nightly', waitMs: 3_600_000 } }));
    expect(got.get(mine[0]!)).toBe('ok');
  });

  it("takes in the owners' order with --order expiry, and still exports each replay once", async () => {
    sandbox = await startSandbox({ replicas: 14, faults: { latencyMs: 10 } });
    work = await tempDir('replay-export-balance-');
    const runs = (
      await Promise.all(
        [0, 1, 2].map((i) => shardRun(sandbox!, work!.dir, i, { order: 'expiry', concurrency: i === 0 ? 1 : 4 })),
      )
    ).map(outcomes);
    for (const r of sandbox.replays())
      expect(
        runs.filter((o) => o.get(r.replayId) === 'ok'),
        r.replayId,
      ).toHaveLength(1);
    await expectEachOnce(sandbox, work.dir);
  });

  it("needs a sink that holds claims: a caller's own without workClaims is refused before any export", async () => {
    sandbox = await startSandbox({ replicas: 1 });
    work = await tempDir('replay-export-balance-');
    const local = createLocalSink(work.dir);
    const { workClaims: _, ...sink } = local;
    await expect(shardRun(sandbox, work.dir, 0, { out: undefined, sink })).rejects.toMatchObject({
      code: 'SINK_CONFIG',
      message: expect.stringMatching(/hold work claims/),
    });
    expect(await readManifest(work.dir)).toEqual([]);
    await local.close();
  });

  it('removes the claims of earlier runs when it starts', async () => {
    sandbox = await startSandbox({ replicas: 2 });
    work = await tempDir('replay-export-balance-');
    const old = localWorkClaims(new Target(work.dir), 'night-0');
    const id = sandbox.replays()[0]!.replayId;
    const { mkdir } = await import('node:fs/promises');
    await mkdir(`${work.dir}/_balance`, { recursive: true });
    expect(await old.take(id, '1/3')).toBeUndefined();
    await shardRun(sandbox, work.dir, 0);
    expect(await old.take(id, '2/3')).toBeUndefined();
  });

  it('is refused without shards, or with a name that is not a run name', () => {
    expect(() => resolveSettings({ balance: { run: 'night-1' } })).toThrow(
      /balance shares the work of shards: it needs shard/,
    );
    expect(() => resolveSettings({ balance: { run: 'night-1' }, shard: { index: 0, count: 1 } })).toThrow(
      /more than one shard/,
    );
    expect(() => resolveSettings({ balance: { run: '../x' }, shard: { index: 0, count: 2 } })).toThrow(/run's name/);
    expect(() => resolveSettings({}, { env: { REPLAY_EXPORT_BALANCE: 'n1' }, jobEnvironment: true })).toThrow(
      /REPLAY_EXPORT_BALANCE shares the work/,
    );
    expect(
      resolveSettings(
        {},
        {
          env: { REPLAY_EXPORT_BALANCE: 'n1', JOB_COMPLETION_INDEX: '1', REPLAY_EXPORT_SHARD_COUNT: '4' },
          jobEnvironment: true,
        },
      ).balance,
    ).toMatchObject({ run: 'n1' });
  });

  it("keeps its claims where verify knows them as the archive's own", () => {
    expect(storedKind(workClaimKey('night-1', 'device-1/123', 'taken'))).toBe('own');
    expect(storedKind(workClaimKey('night-1', 'device-1/123', 'done'))).toBe('own');
    expect(storedKind('_balance/night-1/device-1/123.json')).toBe('foreign');
  });
});

describe('archive --balance', () => {
  it('runs shards that share the work, each saying what it did; refuses a run name without shards', async () => {
    sandbox = await startSandbox({ replicas: 8 });
    work = await tempDir('replay-export-balance-cli-');
    const env = sandboxEnv(sandbox);
    const args = (i: number): string[] => [
      'archive',
      '--out',
      work!.dir,
      '--settle',
      '0',
      '--log-format',
      'json',
      '--shard',
      `${i}/3`,
      '--balance',
      'cli-night',
    ];
    const runs = await Promise.all([0, 1, 2].map((i) => runCliInProcess(args(i), { env })));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const summaries = runs.map(
      (r) =>
        JSON.parse(
          r.stderr
            .trim()
            .split('\n')
            .filter((l) => l.includes('"summary"'))
            .at(-1)!,
        ) as Record<string, number>,
    );
    expect(summaries.reduce((n, x) => n + x.ok!, 0)).toBe(sandbox.replays().length);
    await expectEachOnce(sandbox, work.dir);
    const alone = await runCliInProcess(['archive', '--out', work.dir, '--balance', 'cli-night'], { env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(
      /--balance shares the work of shards: it needs --shard <i>\/<n> with more than one shard/,
    );
    const bad = await runCliInProcess(['archive', '--out', work.dir, '--shard', '0/2', '--balance', 'a/b'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--balance takes the run's name/);
  });
});

describe('work claims on S3', () => {
  it("are created once: a second taker is told the holder; a finish is seen; other runs' claims are removed", async () => {
    work = await tempDir('replay-export-balance-s3-');
    s3 = await startS3(work.dir);
    const sink = createS3Sink(`s3://${BUCKET}/archive`, { client: s3.reader });
    const claims = sink.workClaims!('night-2');
    expect(await claims.take('d/1', '0/3')).toBeUndefined();
    expect(await claims.take('d/1', '1/3')).toBe('0/3');
    expect(await claims.finishedAt('d/1')).toBeUndefined();
    const before = Date.now();
    await claims.finish('d/1');
    expect(Math.abs((await claims.finishedAt('d/1'))! - before)).toBeLessThan(60_000);
    await claims.retake('d/1', '2/3');
    expect(await claims.take('d/1', '1/3')).toBe('2/3');
    const older = sink.workClaims!('night-1');
    expect(await older.take('d/2', '1/3')).toBeUndefined();
    expect(await claims.clearOtherRuns()).toBe(1);
    expect(await older.take('d/2', '2/3')).toBeUndefined();
    expect(await claims.take('d/1', '1/3')).toBe('2/3');
    await claims.finish('d/1');
    await sink.close();
  });
});
