import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, test } from 'vitest';
import { replayKey } from '../../sinks/keys.js';
import type { OutputSpec } from '../../sinks/sink.js';
import { shardOf } from '../../src/pipeline/shard.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCliSpawned, walk, type RunResult } from '../cli/cli-helpers.js';
import { readJson, readManifest, readOutput, tempDir } from '../pipeline/helpers.js';
import {
  cliEnv,
  getObject,
  jsonLines,
  keepStagingFolder,
  listObjects,
  outputKeys,
  parseOutput,
  readS3Manifest,
  s3Flags,
  sha256,
  stagingLeftovers,
  startS3,
  summaryOf,
  type S3Server,
} from '../s3-cli/s3-helpers.js';

let sandbox: Sandbox;
let expected: Map<string, unknown>;
let work: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  // Enough replays that every shard of 3 or 4 gets several.
  sandbox = await startSandbox({ replicas: 40 });
  expected = new Map();
  for (const r of sandbox.replays()) expected.set(r.replayId, await readJson(r.expectedPath));
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(async () => {
  work = await tempDir('replay-export-scale-');
});
afterEach(async () => {
  await work.cleanup();
});

const OUTPUT: OutputSpec = { format: 'json', gzip: true };
const ARGS = ['--gzip', '--settle', '0', '--log-format', 'json', '--concurrency', '2'];

/** Each process `i` of `runs` ran shard i/n: it reported exactly its shard's replays, each exported now, and said so. */
function expectEachRunDidItsShard(runs: RunResult[], n: number): void {
  const ids = sandbox.replays().map((r) => r.replayId);
  runs.forEach((run, i) => {
    expect(run.code, run.stderr).toBe(0);
    const mine = ids.filter((id) => shardOf(id, n) === i).sort();
    expect(mine.length, `shard ${i}/${n} has several replays`).toBeGreaterThanOrEqual(3);
    const reported = jsonLines(run.stderr).filter((l) => l.event === 'replay');
    expect(reported.map((l) => l.replay_id as string).sort()).toEqual(mine);
    expect(reported.every((l) => l.outcome === 'ok')).toBe(true);
    expect(summaryOf(run.stderr)).toMatchObject({ shard: `${i}/${n}`, ok: mine.length, failed: 0 });
  });
}

/**
 * The union of the shards' manifest entries: one per replay (nothing done twice, nothing missing), each complete,
 * each recorded by a process of the replay's own shard (one run id per shard).
 */
function expectManifestFromShards(
  entries: Array<Record<string, unknown>>,
  n: number,
): Map<string, Record<string, unknown>> {
  const byId = new Map<string, Record<string, unknown>>();
  for (const e of entries) {
    // A line appended while another process folded the log is written again to the new log: the same entry twice
    // (same run, same time) is one outcome; two different entries would be a replay done twice.
    const before = byId.get(e.replay_id as string);
    if (before !== undefined) expect(e, `${String(e.replay_id)} recorded twice`).toEqual(before);
    byId.set(e.replay_id as string, e);
  }
  expect([...byId.keys()].sort()).toEqual(
    sandbox
      .replays()
      .map((r) => r.replayId)
      .sort(),
  );
  const runOfShard = new Map<string, string>();
  for (const [id, e] of byId) {
    expect(e, id).toMatchObject({
      status: 'ok',
      shard: `${shardOf(id, n)}/${n}`,
      key: replayKey(id, OUTPUT),
      format: 'json',
      gzip: true,
    });
    expect(typeof e.sha256).toBe('string');
    expect(typeof e.recorded_at).toBe('string');
    const run = runOfShard.get(e.shard as string) ?? (e.run_id as string);
    runOfShard.set(e.shard as string, run);
    expect(e.run_id, `${id}: one process per shard`).toBe(run);
  }
  expect(new Set(runOfShard.values()).size).toBe(n);
  return byId;
}

async function runShards(
  n: number,
  out: string[],
  envs: Array<NodeJS.ProcessEnv>,
  shardFlags: Array<string[]>,
): Promise<RunResult[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) => runCliSpawned(['archive', ...out, ...ARGS, ...shardFlags[i]!], envs[i])),
  );
}

describe('scale-out: shard processes at the same time, one sandbox, one target', () => {
  test('4 processes with --shard i/4 into one local folder', async () => {
    const out = join(work.dir, 'out');
    const n = 4;
    const runs = await runShards(
      n,
      ['--out', out],
      Array.from({ length: n }, () => cliEnv(sandbox)),
      Array.from({ length: n }, (_, i) => ['--shard', `${i}/${n}`]),
    );
    await expectLocalUnion(out, runs, n);
  });

  test('3 processes with --shard i/3 into one S3 prefix', async () => {
    const s3: S3Server = await startS3(join(work.dir, 's3'));
    try {
      const n = 3;
      await keepStagingFolder(s3, 'scale');
      const runs = await runShards(
        n,
        s3Flags(s3, 'scale'),
        Array.from({ length: n }, () => cliEnv(sandbox)),
        Array.from({ length: n }, (_, i) => ['--shard', `${i}/${n}`]),
      );
      expectEachRunDidItsShard(runs, n);
      const objects = await listObjects(s3.reader, 'scale/');
      expect(stagingLeftovers(objects, 'scale')).toEqual([]);
      expect(outputKeys(objects, 'scale')).toEqual(
        sandbox
          .replays()
          .map((r) => replayKey(r.replayId, OUTPUT))
          .sort(),
      );
      const manifest = await readS3Manifest(s3.reader, 'scale');
      const byId = expectManifestFromShards(manifest, n);
      for (const [id, e] of byId) {
        const object = await getObject(s3.reader, `scale/${e.key as string}`);
        expect(parseOutput(e.key as string, object.body), id).toEqual(expected.get(id));
        expect(sha256(object.body)).toBe(e.sha256);
        expect(object.metadata['sha256']).toBe(e.sha256);
      }
    } finally {
      await s3.stop();
    }
  });

  test('shards from the environment: Kubernetes Indexed Job and AWS Batch array job', async () => {
    const out = join(work.dir, 'out');
    const n = 4;
    const envs = [
      cliEnv(sandbox, { JOB_COMPLETION_INDEX: '0', REPLAY_EXPORT_SHARD_COUNT: '4' }),
      cliEnv(sandbox, { JOB_COMPLETION_INDEX: '1', REPLAY_EXPORT_SHARD_COUNT: '4' }),
      cliEnv(sandbox, { AWS_BATCH_JOB_ARRAY_INDEX: '2', AWS_BATCH_JOB_ARRAY_SIZE: '4' }),
      // Batch sets only the index; the size may come from REPLAY_EXPORT_SHARD_COUNT instead.
      cliEnv(sandbox, { AWS_BATCH_JOB_ARRAY_INDEX: '3', REPLAY_EXPORT_SHARD_COUNT: '4' }),
    ];
    const runs = await runShards(
      n,
      ['--out', out],
      envs,
      Array.from({ length: n }, () => []),
    );
    await expectLocalUnion(out, runs, n);
  });

  test('an index without its count stops before any request (exit 2), never exporting everything', async () => {
    const out = join(work.dir, 'out');
    const before = sandbox.stats();
    const res = await runCliSpawned(['archive', '--out', out, ...ARGS], cliEnv(sandbox, { JOB_COMPLETION_INDEX: '1' }));
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain('REPLAY_EXPORT_SHARD_COUNT');
    expect(sandbox.stats()).toEqual(before);
    expect(await walk(out).catch(() => [])).toEqual([]);
  });
});

/** Local target: outputs, manifest lines and each process's report add up to every replay exactly once. */
async function expectLocalUnion(out: string, runs: RunResult[], n: number): Promise<void> {
  expectEachRunDidItsShard(runs, n);
  // Every line whole (each parsed): appends of concurrent processes never interleave, and each process's fold at its
  // end, while others still append, loses no line.
  const lines = await readManifest(out);
  const byId = expectManifestFromShards(lines, n);
  // Exactly one output per replay, no temporary files left behind.
  expect((await walk(out)).filter((f) => f !== 'manifest.ndjson' && !f.startsWith('_manifest/'))).toEqual(
    sandbox
      .replays()
      .map((r) => replayKey(r.replayId, OUTPUT))
      .sort(),
  );
  for (const [id, e] of byId) {
    const path = join(out, e.key as string);
    expect(await readOutput(path), id).toEqual(expected.get(id));
    expect(sha256(await readFile(path))).toBe(e.sha256);
  }
}
