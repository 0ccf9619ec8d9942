/**
 * The scale part's API figure (issues #18, #30): three `archive` shards, each its own process with its own adaptive
 * windows and no coordinator, sharing one target and its work (`--balance`: claims in the target), against one sandbox that allows 5 API requests in flight per project (429 + Retry-After: 1
 * beyond) with latency L; then one process alone with no limit.
 *
 * The bound the limit sets: every API request (list pages and files requests, counted by the sandbox) holds one of
 * the 5 slots for at least L, so they need ceil(A / 5) · L; before the first the list page (L), after the last files
 * request its replay's downloads, w at a time (ceil(F / w) · L). Downloads go to object storage: not limited.
 *   bound = L + ceil(A / 5) · L + ceil(F / w) · L
 * Reported: wall time of the three processes (first start to last end) ÷ the bound, and the share of API calls the
 * sandbox answered 429. Alone with no limit: the effective parallelism, requests × L ÷ wall (each request holds L).
 */

import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { PIPELINE_DEFAULTS } from '../src/pipeline/defaults.js';
import { startSandbox, type Sandbox, type SandboxStats } from '../src/sandbox/index.js';
import { runChild } from './child-runner.js';
import { cleanup } from './file-throughput.js';
import type { measureArchive } from './measure-archive.js';

/** One archive process of a run: replays it exported, when it began, loaded its modules and ended (ms from the run's start). */
export interface ScaleProcess {
  replays: number;
  /** Spawn to `performance.timeOrigin` (exec and Node's own start). */
  execMs: number;
  /** Spawn to the job's start: Node's start plus loading the library's modules. */
  startMs: number;
  endMs: number;
}

/** One run against the limit: wall ÷ bound and the 429s. */
export interface LimitedRun {
  processes: number;
  /** First start to last end of the processes. */
  wallMs: number;
  boundMs: number;
  /** wall ÷ bound. */
  ratio: number;
  /** API requests answered (list + files) and answered 429 by the limit. */
  apiCalls: number;
  limited: number;
  /** limited ÷ (apiCalls + limited). */
  limitedShare: number;
  /** The first API request's arrival, ms from the run's start. */
  firstRequestMs: number;
  perProcess: ScaleProcess[];
}

export interface ShardedApiResult {
  replays: number;
  shards: number;
  latencyMs: number;
  apiLimit: number;
  filesPerReplay: number;
  /** The shards, each its own process, against the limit. */
  sharded: LimitedRun;
  /** The same shards, each exporting exactly its own replays (no `--balance`): the same-run baseline of balancing. */
  unbalanced: LimitedRun;
  /** One process (no shard) against the same limit. */
  single: LimitedRun;
  /**
   * CPU time of a process start alone (Node's start and loading the library: the bench child's `idle` job, spawned as
   * the shards are), ms, each of `START_CPU_RUNS` runs: what a shard's start costs whatever the load.
   */
  startCpuMs: number[];
  /** The machine's 1-minute load average at the start and the end (other work on the cores slows every figure). */
  load: [number, number];
  /** One process, no limit, same replays, `alone.latencyMs`. */
  alone: {
    latencyMs: number;
    wallMs: number;
    apiCalls: number;
    downloads: number;
    effectiveParallelism: number;
    limited: number;
  };
  explanation: string[];
}

/** Idle processes started to measure the CPU time of a start. */
const START_CPU_RUNS = 3;

async function startCpu(sandbox: Sandbox, workDir: string): Promise<number[]> {
  const runs: number[] = [];
  for (let i = 0; i < START_CPU_RUNS; i++)
    runs.push((await runChild('idle', sandbox, { out: join(workDir, 'scale-idle') }, false)).cpuMs ?? 0);
  return runs;
}

function requests(a: SandboxStats, b: SandboxStats): { api: number; storage: number } {
  return {
    api: b.listRequests - a.listRequests + b.filesRequests - a.filesRequests,
    storage: b.storageRequests - a.storageRequests,
  };
}

async function archiveRun(
  sandbox: Sandbox,
  workDir: string,
  shards: number,
  expected: number,
  balance = true,
): Promise<{ t0: number; wallMs: number; perProcess: ScaleProcess[] }> {
  const t0 = Date.now();
  // The shards share one target, as a night's shards do, and share out its work (`--balance`) unless told not to.
  const out = join(workDir, `scale-${shards}`);
  const night = balance ? { balance: `bench-${t0}` } : {};
  const reports = await Promise.all(
    Array.from({ length: shards }, async (_, index) => {
      const spawnedAt = Date.now();
      // Spawned directly (no launcher): a shard is one Node process, whose start is counted.
      const r = await runChild(
        'archive',
        sandbox,
        { out, ...(shards > 1 ? { shard: { index, count: shards }, ...night } : {}) },
        false,
      );
      return { r, spawnedAt, endedAt: Date.now() };
    }),
  );
  const wallMs = Date.now() - t0;
  await cleanup(out);
  const ok = reports.reduce((n, { r }) => n + (r.outcomes?.['ok'] ?? 0), 0);
  if (ok !== expected)
    throw new Error(
      `bench: ${shards} archive process(es) exported ${ok} of ${expected} replays (${reports.map(({ r }) => r.error ?? '').join('; ')})`,
    );
  const perProcess = reports.map(({ r, spawnedAt, endedAt }) => ({
    replays: r.outcomes?.['ok'] ?? 0,
    execMs: (r.originAt ?? spawnedAt) - spawnedAt,
    startMs: (r.loadedAt ?? spawnedAt) - spawnedAt,
    endMs: endedAt - t0,
  }));
  return { t0, wallMs, perProcess };
}

/**
 * Runs `processes` archive processes (shards when more than one) against the sandbox's current limit and latency.
 * The bound: L + ceil(API calls / limit) · L + ceil(files per replay / (filesAhead + 1)) · L.
 */
async function limitedRun(
  sandbox: Sandbox,
  opts: ShardedApiOptions,
  processes: number,
  balance = true,
): Promise<LimitedRun> {
  const L = opts.latencyMs;
  const before = sandbox.stats();
  const limitedBefore = sandbox.apiCounters().concurrencyLimited;
  const run = await archiveRun(sandbox, opts.workDir, processes, opts.replays, balance);
  const used = requests(before, sandbox.stats());
  const limited = sandbox.apiCounters().concurrencyLimited - limitedBefore;
  const F = opts.sample.files[3].length;
  const w = PIPELINE_DEFAULTS.filesAhead + 1;
  const boundMs = L + Math.ceil(used.api / opts.apiLimit) * L + Math.ceil(F / w) * L;
  const first = sandbox.apiArrivals().find((a) => a.at >= run.t0);
  return {
    processes,
    wallMs: run.wallMs,
    boundMs,
    ratio: run.wallMs / boundMs,
    apiCalls: used.api,
    limited,
    limitedShare: limited / (used.api + limited),
    firstRequestMs: first ? first.at - run.t0 : 0,
    perProcess: run.perProcess,
  };
}

/** The last shard's end minus the first's, s. */
function spread(r: LimitedRun): string {
  const ends = r.perProcess.map((p) => p.endMs);
  return ((Math.max(...ends) - Math.min(...ends)) / 1000).toFixed(2);
}

function describe(label: string, r: LimitedRun): string {
  const each = r.perProcess
    .map(
      (p) => `${p.replays} replays, started ${(p.startMs / 1000).toFixed(2)} s, ended ${(p.endMs / 1000).toFixed(2)} s`,
    )
    .join('; ');
  return (
    `  ${label}: ${(r.wallMs / 1000).toFixed(2)} s = ${r.ratio.toFixed(2)}× bound ${(r.boundMs / 1000).toFixed(2)} s, ${r.apiCalls} API calls + ${r.limited} answered 429 ` +
    `(${(100 * r.limitedShare).toFixed(1)}%), first request at ${(r.firstRequestMs / 1000).toFixed(2)} s; ${each}`
  );
}

/** The archive part's options (sandbox data, replays, latency, work folder, log) and the shards and limit. */
export type ShardedApiOptions = Omit<Parameters<typeof measureArchive>[0], 'runs'> & {
  shards: number;
  apiLimit: number;
  /** Latency of the run alone with no limit. */
  aloneLatencyMs: number;
};

export async function measureShardedApi(opts: ShardedApiOptions): Promise<ShardedApiResult> {
  const { log, latencyMs: L } = opts;
  const sandbox = await startSandbox({
    samplesDir: opts.samplesDir,
    replicas: opts.replays - 1,
    apiConcurrency: opts.apiLimit,
    faults: { latencyMs: L },
  });
  const loadBefore = loadavg()[0]!;
  try {
    const sharded = await limitedRun(sandbox, opts, opts.shards);
    log(describe(`${opts.shards} shards, balanced`, sharded));
    const unbalanced = await limitedRun(sandbox, opts, opts.shards, false);
    log(describe(`${opts.shards} shards, each its own replays`, unbalanced));
    const single = await limitedRun(sandbox, opts, 1);
    log(describe('one process', single));
    const startCpuMs = await startCpu(sandbox, opts.workDir);
    log(`  process start alone (idle child): ${startCpuMs.map((ms) => ms.toFixed(0)).join(', ')} ms of CPU`);

    sandbox.setApiConcurrency(0);
    sandbox.setFaults({ latencyMs: opts.aloneLatencyMs });
    const aloneBefore = sandbox.stats();
    const aloneLimited = sandbox.apiCounters().concurrencyLimited;
    const alone = await archiveRun(sandbox, opts.workDir, 1, opts.replays);
    const aloneUsed = requests(aloneBefore, sandbox.stats());
    const effectiveParallelism = ((aloneUsed.api + aloneUsed.storage) * opts.aloneLatencyMs) / alone.wallMs;
    log(
      `  one process, no limit, ${opts.aloneLatencyMs} ms: ${(alone.wallMs / 1000).toFixed(2)} s, ${aloneUsed.api} API calls + ${aloneUsed.storage} downloads, effective parallelism ${effectiveParallelism.toFixed(1)}`,
    );
    const F = opts.sample.files[3].length;
    const w = PIPELINE_DEFAULTS.filesAhead + 1;
    const meanStart = sharded.perProcess.reduce((n, p) => n + p.startMs, 0) / sharded.perProcess.length;
    const gap = sharded.wallMs - sharded.boundMs;
    return {
      replays: opts.replays,
      shards: opts.shards,
      latencyMs: L,
      apiLimit: opts.apiLimit,
      filesPerReplay: F,
      sharded,
      unbalanced,
      single,
      startCpuMs,
      load: [loadBefore, loadavg()[0]!],
      alone: {
        latencyMs: opts.aloneLatencyMs,
        wallMs: alone.wallMs,
        apiCalls: aloneUsed.api,
        downloads: aloneUsed.storage,
        effectiveParallelism,
        limited: sandbox.apiCounters().concurrencyLimited - aloneLimited,
      },
      explanation: [
        `bound = L + ceil(API calls / limit) · L + ceil(files per replay / (filesAhead + 1)) · L = ${L} + ceil(${sharded.apiCalls} / ${opts.apiLimit}) · ${L} + ceil(${F} / ${w}) · ${L} = ${sharded.boundMs} ms`,
        `429 share = answered 429 / all API calls = ${sharded.limited} / ${sharded.apiCalls + sharded.limited}`,
        `shard split (balanced: replays each exported): ${sharded.perProcess.map((p) => p.replays).join(' / ')} (largest ${((100 * Math.max(...sharded.perProcess.map((p) => p.replays))) / (opts.replays / opts.shards) - 100).toFixed(0)}% above an even share); by the hash alone ${unbalanced.perProcess.map((p) => p.replays).join(' / ')}`,
        `balancing, same run: ${sharded.ratio.toFixed(2)}× bound balanced, ${unbalanced.ratio.toFixed(2)}× each shard its own replays (${((100 * sharded.wallMs) / unbalanced.wallMs - 100).toFixed(0)}% wall time); the shards ended ${spread(sharded)} s apart balanced, ${spread(unbalanced)} s not`,
        `process start (spawn to the library loaded), mean of the shards ${meanStart.toFixed(0)} ms (exec and Node ${(sharded.perProcess.reduce((n, p) => n + p.execMs, 0) / sharded.perProcess.length).toFixed(0)} ms of it): ${gap > 0 ? `${((100 * meanStart) / gap).toFixed(0)}% of the gap to the bound (${gap.toFixed(0)} ms)` : 'no gap'}`,
        `process start, CPU (Node and the library, an idle child alone): ${startCpuMs.map((ms) => ms.toFixed(0)).join(', ')} ms; the shards' start above is that CPU at the machine's load`,
        `load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, on ${cpus().length} cores`,
        `effective parallelism alone = (API calls + downloads) · L / wall = (${aloneUsed.api} + ${aloneUsed.storage}) · ${opts.aloneLatencyMs} / ${alone.wallMs.toFixed(0)} ms`,
      ],
    };
  } finally {
    await sandbox.close();
  }
}
