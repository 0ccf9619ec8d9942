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
  /** The same requests under the same caps with bare undici (bench/raw-archive.ts), bodies dropped. */
  rawRunsMs: number[];
  rawMedianMs: number;
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
    errors:
      b.serverErrors - a.serverErrors + b.rateLimited - a.rateLimited + b.forbidden - a.forbidden + b.resets - a.resets,
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
  const sandbox = await startSandbox({
    samplesDir: opts.samplesDir,
    replicas: opts.replays - 1,
    faults: { latencyMs: opts.latencyMs },
  });
  const checks: string[] = [];
  try {
    const runsMs: number[] = [];
    const rawRunsMs: number[] = [];
    let requests = { list: 0, files: 0, storage: 0 };
    let maxRss = 0;
    const archiveOnce = async (): Promise<number> => {
      const out = join(opts.workDir, 'archive');
      const before = sandbox.stats();
      const r = await runChild('archive', sandbox, { out });
      const d = diff(before, sandbox.stats());
      await cleanup(out);
      const ok = r.outcomes?.['ok'] ?? 0;
      if (ok !== opts.replays || d.errors > 0) {
        throw new Error(
          `bench: archive exported ${ok} of ${opts.replays} replays (${JSON.stringify(r.outcomes)}; ${r.error ?? ''})`,
        );
      }
      requests = { list: d.list, files: d.files, storage: d.storage };
      maxRss = Math.max(maxRss, r.maxRssBytes);
      return r.ms;
    };
    const rawOnce = async (): Promise<number> => {
      const before = sandbox.stats();
      const r = await runChild('raw-archive', sandbox, { out: '' });
      const d = diff(before, sandbox.stats());
      if (d.list !== requests.list || d.files !== requests.files || d.storage !== requests.storage || d.errors > 0) {
        throw new Error(
          `bench: the raw schedule made other requests than archive (${JSON.stringify(d)} vs ${JSON.stringify(requests)})`,
        );
      }
      return r.ms;
    };
    log(
      `  archive warm-up: ${((await archiveOnce()) / 1000).toFixed(2)} s; raw schedule warm-up: ${((await rawOnce()) / 1000).toFixed(2)} s`,
    );
    for (let i = 0; i < opts.runs; i++) {
      if (i % 2 === 0) {
        rawRunsMs.push(await rawOnce());
        runsMs.push(await archiveOnce());
      } else {
        runsMs.push(await archiveOnce());
        rawRunsMs.push(await rawOnce());
      }
      log(
        `  run ${i + 1}/${opts.runs}: archive ${(runsMs.at(-1)! / 1000).toFixed(2)} s, raw schedule ${(rawRunsMs.at(-1)! / 1000).toFixed(2)} s (${requests.list} list, ${requests.files} files requests, ${requests.storage} downloads)`,
      );
    }
    checks.push(`every archive run exported all ${opts.replays} replays (ok), with no error answers`);
    checks.push('the raw schedule made exactly the same list, files and storage requests');
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
      rawRunsMs,
      rawMedianMs: median(rawRunsMs),
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
