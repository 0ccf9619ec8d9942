/**
 * The scale part's API figure (issue #18): three `archive` shards, each its own process with its own adaptive windows
 * and no coordinator, against one sandbox that allows 5 API requests in flight per project (429 + Retry-After: 1
 * beyond) with latency L; then one process alone with no limit.
 *
 * The bound the limit sets: every API request (list pages and files requests, counted by the sandbox) holds one of
 * the 5 slots for at least L, so they need ceil(A / 5) · L; before the first the list page (L), after the last files
 * request its replay's downloads, w at a time (ceil(F / w) · L). Downloads go to object storage: not limited.
 *   bound = L + ceil(A / 5) · L + ceil(F / w) · L
 * Reported: wall time of the three processes (first start to last end) ÷ the bound, and the share of API calls the
 * sandbox answered 429. Alone with no limit: the effective parallelism, requests × L ÷ wall (each request holds L).
 */

import { join } from 'node:path';
import { PIPELINE_DEFAULTS } from '../src/pipeline/defaults.js';
import { startSandbox, type Sandbox, type SandboxStats } from '../src/sandbox/index.js';
import { runChild } from './child-runner.js';
import { cleanup } from './file-throughput.js';
import type { measureArchive } from './measure-archive.js';

export interface ShardedApiResult {
  replays: number;
  shards: number;
  latencyMs: number;
  apiLimit: number;
  filesPerReplay: number;
  /** First start to last end of the shard processes. */
  wallMs: number;
  shardMs: number[];
  boundMs: number;
  /** wall ÷ bound. */
  ratio: number;
  /** API requests answered (list + files) and answered 429 by the limit. */
  apiCalls: number;
  limited: number;
  /** limited ÷ (apiCalls + limited). */
  limitedShare: number;
  /** One process, no limit, same replays and latency. */
  alone: { latencyMs: number; wallMs: number; apiCalls: number; downloads: number; effectiveParallelism: number; limited: number };
  explanation: string[];
}

function requests(a: SandboxStats, b: SandboxStats): { api: number; storage: number } {
  return { api: b.listRequests - a.listRequests + b.filesRequests - a.filesRequests, storage: b.storageRequests - a.storageRequests };
}

async function archiveRun(sandbox: Sandbox, workDir: string, shards: number, expected: number): Promise<{ wallMs: number; shardMs: number[] }> {
  const t0 = performance.now();
  const shardMs: number[] = [];
  const outs = Array.from({ length: shards }, (_, i) => join(workDir, `scale-shard-${i}`));
  const reports = await Promise.all(
    outs.map(async (out, index) => {
      const r = await runChild('archive', sandbox, { out, ...(shards > 1 ? { shard: { index, count: shards } } : {}) });
      shardMs[index] = performance.now() - t0;
      return r;
    }),
  );
  const wallMs = performance.now() - t0;
  for (const out of outs) await cleanup(out);
  const ok = reports.reduce((n, r) => n + (r.outcomes?.['ok'] ?? 0), 0);
  if (ok !== expected) throw new Error(`bench: ${shards} archive process(es) exported ${ok} of ${expected} replays (${reports.map((r) => r.error ?? '').join('; ')})`);
  return { wallMs, shardMs };
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
  try {
    const before = sandbox.stats();
    const limitedBefore = sandbox.apiCounters().concurrencyLimited;
    const run = await archiveRun(sandbox, opts.workDir, opts.shards, opts.replays);
    const used = requests(before, sandbox.stats());
    const limited = sandbox.apiCounters().concurrencyLimited - limitedBefore;
    const F = opts.sample.files[3].length;
    const w = PIPELINE_DEFAULTS.filesAhead + 1;
    const boundMs = L + Math.ceil(used.api / opts.apiLimit) * L + Math.ceil(F / w) * L;
    log(`  ${opts.shards} shards: ${(run.wallMs / 1000).toFixed(2)} s (shards ${run.shardMs.map((x) => (x / 1000).toFixed(2)).join(', ')} s), ${used.api} API calls + ${limited} answered 429, bound ${(boundMs / 1000).toFixed(2)} s`);

    sandbox.setApiConcurrency(0);
    sandbox.setFaults({ latencyMs: opts.aloneLatencyMs });
    const aloneBefore = sandbox.stats();
    const aloneLimited = sandbox.apiCounters().concurrencyLimited;
    const alone = await archiveRun(sandbox, opts.workDir, 1, opts.replays);
    const aloneUsed = requests(aloneBefore, sandbox.stats());
    const effectiveParallelism = ((aloneUsed.api + aloneUsed.storage) * opts.aloneLatencyMs) / alone.wallMs;
    log(`  one process, no limit, ${opts.aloneLatencyMs} ms: ${(alone.wallMs / 1000).toFixed(2)} s, ${aloneUsed.api} API calls + ${aloneUsed.storage} downloads, effective parallelism ${effectiveParallelism.toFixed(1)}`);
    return {
      replays: opts.replays,
      shards: opts.shards,
      latencyMs: L,
      apiLimit: opts.apiLimit,
      filesPerReplay: F,
      wallMs: run.wallMs,
      shardMs: run.shardMs,
      boundMs,
      ratio: run.wallMs / boundMs,
      apiCalls: used.api,
      limited,
      limitedShare: limited / (used.api + limited),
      alone: {
        latencyMs: opts.aloneLatencyMs,
        wallMs: alone.wallMs,
        apiCalls: aloneUsed.api,
        downloads: aloneUsed.storage,
        effectiveParallelism,
        limited: sandbox.apiCounters().concurrencyLimited - aloneLimited,
      },
      explanation: [
        `bound = L + ceil(API calls / limit) · L + ceil(files per replay / (filesAhead + 1)) · L = ${L} + ceil(${used.api} / ${opts.apiLimit}) · ${L} + ceil(${F} / ${w}) · ${L} = ${boundMs} ms`,
        `429 share = answered 429 / all API calls = ${limited} / ${used.api + limited}`,
        `effective parallelism alone = (API calls + downloads) · L / wall = (${aloneUsed.api} + ${aloneUsed.storage}) · ${opts.aloneLatencyMs} / ${alone.wallMs.toFixed(0)} ms`,
      ],
    };
  } finally {
    await sandbox.close();
  }
}
