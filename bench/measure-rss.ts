/** (c): peak RSS of a child process exporting the 1 GB replay through the real pipeline, against an idle child. */

import { join } from 'node:path';
import { startSandbox } from '../src/sandbox/index.js';
import { runChild } from './child-runner.js';
import { cleanup } from './file-throughput.js';
import type { GeneratedReplay } from './generate.js';
import { mbPerSec, median } from './stats.js';

export interface RssRun {
  maxRssBytes: number;
  vmHwmBytes?: number | undefined;
  /** Peaks of process.memoryUsage() in the child (sampled). */
  peaks?: { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number } | undefined;
  ms: number;
  MBs: number;
}

export interface RssResult {
  replayBytes: number;
  events: number;
  /** Peak RSS of a child that loaded the library and did nothing. */
  idleRssBytes: number;
  /** Per file version: each run's peak RSS, wall time and end-to-end MB/s (decoded bytes). */
  versions: Array<{ version: 2 | 3; runs: RssRun[]; medianRssBytes: number; maxRssBytes: number; medianMBs: number }>;
  checks: string[];
}

export async function measureRss(opts: {
  samplesDir: string;
  replay: GeneratedReplay;
  workDir: string;
  runs: Record<2 | 3, number>;
  log: (line: string) => void;
}): Promise<RssResult> {
  const { replay, log } = opts;
  const sandbox = await startSandbox({ samplesDir: opts.samplesDir });
  const checks: string[] = [];
  try {
    const idle = await runChild('idle', sandbox, { out: join(opts.workDir, 'idle') });
    const versions: RssResult['versions'] = [];
    for (const version of [3, 2] as const) {
      const runs: RssRun[] = [];
      for (let i = 0; i < opts.runs[version]; i++) {
        const out = join(opts.workDir, `rss-v${version}`);
        const r = await runChild('export', sandbox, { out, replayId: replay.replay_id, fileVersion: version });
        await cleanup(out);
        if (r.status !== 'ok' || r.sha256 !== replay.sha256 || r.eventCount !== replay.event_count) {
          throw new Error(
            `bench: the 1 GB v${version} export did not produce the expected events (status ${String(r.status)}, ${r.error ?? ''})`,
          );
        }
        runs.push({
          maxRssBytes: r.maxRssBytes,
          vmHwmBytes: r.vmHwmBytes,
          peaks: r.peaks,
          ms: r.ms,
          MBs: mbPerSec(replay.bytes, r.ms),
        });
        log(
          `  1 GB v${version} export ${i + 1}/${opts.runs[version]}: peak RSS ${(r.maxRssBytes / 1e6).toFixed(0)} MB, ${mbPerSec(replay.bytes, r.ms).toFixed(0)} MB/s end to end`,
        );
      }
      if (runs.length === 0) continue;
      checks.push(
        `v${version}: every export wrote the expected ${replay.event_count} events (sha256 ${replay.sha256.slice(0, 12)}…)`,
      );
      versions.push({
        version,
        runs,
        medianRssBytes: median(runs.map((r) => r.maxRssBytes)),
        maxRssBytes: Math.max(...runs.map((r) => r.maxRssBytes)),
        medianMBs: median(runs.map((r) => r.MBs)),
      });
    }
    return { replayBytes: replay.bytes, events: replay.event_count, idleRssBytes: idle.maxRssBytes, versions, checks };
  } finally {
    await sandbox.close();
  }
}
