/**
 * Child process of the bench: runs one job against a sandbox (started by the parent) through the library's public
 * entry points, and prints one JSON line with the result, the wall time and `process.resourceUsage().maxRSS`.
 *
 *   node dist/bench/child.js <job>      job = idle | export | archive | raw-archive
 * Settings come in BENCH_CHILD (JSON): { endpoint, replayId?, out, fileVersion?, shard? }; the sandbox's API key and
 * secret in BENCH_API_KEY / BENCH_SECRET_KEY (never on the command line).
 */

import { readFileSync } from 'node:fs';
import { archiveReplays, exportReplay } from '../src/index.js';
import { DEFAULT_CONCURRENCY } from '../src/http/index.js';
import { PIPELINE_DEFAULTS } from '../src/pipeline/defaults.js';
import { rawArchive } from './raw-archive.js';

export interface ChildSettings {
  endpoint: string;
  out: string;
  replayId?: string;
  fileVersion?: 2 | 3;
  /** `archive` only: this process's shard of the replays. */
  shard?: { index: number; count: number };
  /** `archive` only: the balanced run the shards share (`--balance`). */
  balance?: string;
}

export interface ChildReport {
  job: string;
  ms: number;
  /** Peak resident set size of the child, bytes (`process.resourceUsage().maxRSS`). */
  maxRssBytes: number;
  /** Linux only: VmHWM of /proc/self/status (the same peak, read from the kernel's memory map), bytes. */
  vmHwmBytes?: number;
  status?: string;
  bytes?: number;
  sha256?: string;
  eventCount?: number;
  error?: string;
  outcomes?: Record<string, number>;
  files?: number;
  /** `performance.timeOrigin` (epoch ms): when this process began, before Node loaded any module. */
  originAt?: number;
  /** Epoch ms when the job began: the library's modules loaded (this module imports them statically). */
  loadedAt?: number;
  /** CPU time of the whole process (user + system, all threads), ms. */
  cpuMs?: number;
  /** Peaks of process.memoryUsage() sampled every 20 ms, bytes. */
  peaks?: { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number };
}

/** Samples process.memoryUsage() to show what the peak RSS is made of. */
function memorySampler(): { stop(): NonNullable<ChildReport['peaks']> } {
  const peaks = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
  const sample = (): void => {
    const m = process.memoryUsage();
    for (const k of Object.keys(peaks) as Array<keyof typeof peaks>) peaks[k] = Math.max(peaks[k], m[k]);
  };
  const timer = setInterval(sample, 20);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}

function vmHwm(): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const job = process.argv[2];
  const settings = JSON.parse(process.env['BENCH_CHILD'] ?? '{}') as ChildSettings;
  const connection = {
    endpoint: settings.endpoint,
    apiKey: process.env['BENCH_API_KEY'] ?? '',
    secretKey: process.env['BENCH_SECRET_KEY'] ?? '',
  };
  const report: ChildReport = {
    job: job ?? '',
    ms: 0,
    maxRssBytes: 0,
    originAt: performance.timeOrigin,
    loadedAt: Date.now(),
  };
  const sampler = memorySampler();
  const t0 = performance.now();
  if (job === 'idle') {
    // The library loaded, nothing done: the floor under the other figures.
  } else if (job === 'export') {
    const entry = await exportReplay(settings.replayId ?? '', {
      ...connection,
      out: settings.out,
      ...(settings.fileVersion !== undefined ? { fileVersion: settings.fileVersion } : {}),
      ...(process.env['BENCH_PREFETCH_BYTES'] ? { prefetchBytes: Number(process.env['BENCH_PREFETCH_BYTES']) } : {}),
    });
    report.status = entry.status;
    if (entry.status === 'ok') {
      report.bytes = entry.bytes;
      report.sha256 = entry.sha256;
      report.eventCount = entry.event_count;
    }
    if ('error' in entry) report.error = `${entry.error.code}: ${entry.error.message}`;
  } else if (job === 'archive') {
    const outcomes: Record<string, number> = {};
    for await (const ev of archiveReplays({
      ...connection,
      out: settings.out,
      settleMs: 0,
      ...(settings.shard ? { shard: settings.shard } : {}),
      ...(settings.balance ? { balance: { run: settings.balance } } : {}),
    })) {
      if (ev.type === 'result') {
        outcomes[ev.outcome] = (outcomes[ev.outcome] ?? 0) + 1;
        if (ev.outcome === 'failed' && report.error === undefined && ev.entry?.status === 'failed') {
          report.error = `${ev.replayId}: ${ev.entry.error.code}: ${ev.entry.error.message}`;
        }
      }
    }
    report.outcomes = outcomes;
  } else if (job === 'raw-archive') {
    report.files = await rawArchive({
      ...connection,
      concurrency: PIPELINE_DEFAULTS.concurrency,
      apiCap: DEFAULT_CONCURRENCY.replay,
      storageCap: DEFAULT_CONCURRENCY.storage,
      filesInFlight: PIPELINE_DEFAULTS.filesAhead + 1,
      // As archive lists (200 a page), so that both make the same requests.
      listPageSize: PIPELINE_DEFAULTS.archiveListPageSize,
    });
  } else {
    throw new Error(`unknown bench child job ${String(job)}`);
  }
  report.ms = performance.now() - t0;
  const cpu = process.cpuUsage();
  report.cpuMs = (cpu.user + cpu.system) / 1000;
  report.peaks = sampler.stop();
  // maxRSS is in kilobytes (KiB).
  report.maxRssBytes = process.resourceUsage().maxRSS * 1024;
  const hwm = vmHwm();
  if (hwm !== undefined) report.vmHwmBytes = hwm;
  process.stdout.write(JSON.stringify(report) + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`bench child failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
