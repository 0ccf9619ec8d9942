/** (d): `archive` of many small replays against the sandbox with latency, against its concurrency bound. */

import { join } from 'node:path';
import { DEFAULT_CONCURRENCY } from '../src/http/index.js';
import { PIPELINE_DEFAULTS } from '../src/pipeline/defaults.js';
import { startSandbox, type SandboxStats } from '../src/sandbox/index.js';
import { archiveBound, type Bound } from './archive-bound.js';
import { runChild } from './child-runner.js';
import { cleanup } from './file-throughput.js';
import type { GeneratedReplay } from './generate.js';
import { median } from './stats.js';

export interface ArchiveResult {
  replays: number;
  filesPerReplay: number;
  latencyMs: number;
  runsMs: number[];
  medianMs: number;
  bound: Bound;
  /** median ÷ bound. */
  ratio: number;
  requests: { list: number; files: number; storage: number };
  maxRssBytes: number;
  checks: string[];
}

function diff(a: SandboxStats, b: SandboxStats): { list: number; files: number; storage: number; errors: number } {
  return {
    list: b.listRequests - a.listRequests,
    files: b.filesRequests - a.filesRequests,
    storage: b.storageRequests - a.storageRequests,
    errors: b.serverErrors - a.serverErrors + b.rateLimited - a.rateLimited + b.forbidden - a.forbidden + b.resets - a.resets,
  };
}

export async function measureArchive(opts: {
  samplesDir: string;
  sample: GeneratedReplay;
  replays: number;
  latencyMs: number;
  runs: number;
  workDir: string;
  log: (line: string) => void;
}): Promise<ArchiveResult> {
  const { log } = opts;
  // The sample itself plus replicas of it: every replay has the sample's files.
  const sandbox = await startSandbox({ samplesDir: opts.samplesDir, replicas: opts.replays - 1, faults: { latencyMs: opts.latencyMs } });
  const checks: string[] = [];
  try {
    const runsMs: number[] = [];
    let requests = { list: 0, files: 0, storage: 0 };
    let maxRss = 0;
    for (let i = 0; i <= opts.runs; i++) {
      const out = join(opts.workDir, 'archive');
      const before = sandbox.stats();
      const r = await runChild('archive', sandbox, { out });
      const d = diff(before, sandbox.stats());
      await cleanup(out);
      const ok = r.outcomes?.['ok'] ?? 0;
      if (ok !== opts.replays || d.errors > 0) {
        throw new Error(`bench: archive exported ${ok} of ${opts.replays} replays (${JSON.stringify(r.outcomes)}; ${r.error ?? ''})`);
      }
      requests = { list: d.list, files: d.files, storage: d.storage };
      if (i === 0) {
        log(`  archive warm-up: ${(r.ms / 1000).toFixed(2)} s`);
        continue;
      }
      runsMs.push(r.ms);
      maxRss = Math.max(maxRss, r.maxRssBytes);
      log(`  archive run ${i}/${opts.runs}: ${(r.ms / 1000).toFixed(2)} s (${d.list} list, ${d.files} files requests, ${d.storage} downloads)`);
    }
    checks.push(`every run exported all ${opts.replays} replays (ok), with no error answers`);
    const bound = archiveBound({
      latencyMs: opts.latencyMs,
      replays: opts.replays,
      listRequests: requests.list,
      filesRequests: requests.files,
      storageRequests: requests.storage,
      concurrency: PIPELINE_DEFAULTS.concurrency,
      filesInFlight: PIPELINE_DEFAULTS.filesAhead + 1,
      apiCap: DEFAULT_CONCURRENCY.replay,
      storageCap: DEFAULT_CONCURRENCY.storage,
    });
    const medianMs = median(runsMs);
    return {
      replays: opts.replays,
      filesPerReplay: opts.sample.files[3].length,
      latencyMs: opts.latencyMs,
      runsMs,
      medianMs,
      bound,
      ratio: medianMs / bound.ms,
      requests,
      maxRssBytes: maxRss,
      checks,
    };
  } finally {
    await sandbox.close();
  }
}
