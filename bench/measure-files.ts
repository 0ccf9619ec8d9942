/** (a) and (b): one replay's files through the subject and its baseline, alternating, after a warm-up. */

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { GeneratedReplay } from './generate.js';
import {
  baselineV2,
  baselineV3,
  cleanup,
  loadFiles,
  runStage,
  sha256OfFile,
  STAGE_LABELS,
  subjectExport,
  type LoadedFile,
  type RunResult,
  type Stage,
} from './file-throughput.js';
import { mbPerSec, median } from './stats.js';

export interface ThroughputResult {
  version: 2 | 3;
  runs: number;
  /** Decoded bytes of the replay: the numerator of every MB/s figure. */
  decodedBytes: number;
  compressedBytes: number;
  subjectMs: number[];
  baselineMs: number[];
  subjectMBs: number;
  baselineMBs: number;
  /** subject MB/s ÷ baseline MB/s (medians). */
  ratio: number;
  checks: string[];
  breakdown: Array<{ stage: Stage; label: string; ms: number[]; MBs: number }>;
  /**
   * The subject as measured (SHA-256 on the hashing worker) against the same export hashing on the calling thread
   * (`hashWorker: false`), in alternating runs after the main ones.
   */
  hashPlaces?: { workerMs: number[]; callingThreadMs: number[] };
}

export interface ThroughputPlan {
  version: 2 | 3;
  replay: GeneratedReplay;
  samplesDir: string;
  runs: number;
  workDir: string;
  /** Stages timed alone and how often. */
  stages: readonly Stage[];
  stageRuns: number;
  /** Alternating pairs of the subject with the hash on the worker and on the calling thread (0: not measured). */
  hashPlaceRuns?: number;
  /**
   * Runs of each (not counted) before the measured ones: a fresh process, its zlib and the file system need a few
   * 200 MB runs before they settle (both sides ran 30–70% slower in the first runs).
   */
  warmUps: number;
  log: (line: string) => void;
}

function check(ok: boolean, what: string, checks: string[]): void {
  if (!ok) throw new Error(`bench: ${what} — the figures would not compare the same work`);
  checks.push(what);
}

export async function measureThroughput(plan: ThroughputPlan): Promise<ThroughputResult> {
  const { version, replay, workDir, log } = plan;
  const files: LoadedFile[] = await loadFiles(plan.samplesDir, replay.files[version]);
  const dir = join(workDir, `v${version}`);
  await mkdir(dir, { recursive: true });
  const baseline = (path: string): Promise<RunResult> =>
    version === 3 ? baselineV3(files, path) : baselineV2(files, path);
  const subject = (out: string): Promise<RunResult> => subjectExport(files, out, replay.replay_id);
  const checks: string[] = [];

  // Warm-up: `warmUps` runs of each (not counted); the outputs of the first are checked.
  log(`  v${version}: warm-up (${plan.warmUps} runs of each)`);
  const wb = await baseline(join(dir, 'baseline.json'));
  const ws = await subject(join(dir, 'subject'));
  check(
    ws.sha256 === replay.sha256 && ws.events === replay.event_count,
    `subject output = expected events (sha256 ${replay.sha256.slice(0, 12)}…, ${replay.event_count} events)`,
    checks,
  );
  if (version === 3) {
    check((await sha256OfFile(wb.path)) === replay.sha256, 'baseline output = the same bytes', checks);
  } else {
    check(
      wb.events === replay.event_count,
      `baseline wrote ${replay.event_count} inflated events (packer marker kept)`,
      checks,
    );
  }
  await cleanup(wb.path);
  await cleanup(join(dir, 'subject'));
  for (let i = 1; i < plan.warmUps; i++) {
    await cleanup((await baseline(join(dir, 'baseline.json'))).path);
    await subject(join(dir, 'subject'));
    await cleanup(join(dir, 'subject'));
  }

  const subjectMs: number[] = [];
  const baselineMs: number[] = [];
  for (let i = 0; i < plan.runs; i++) {
    // Alternate which one goes first, so that drift within the run hits both alike.
    const order = i % 2 === 0 ? (['baseline', 'subject'] as const) : (['subject', 'baseline'] as const);
    for (const which of order) {
      if (which === 'baseline') {
        const r = await baseline(join(dir, 'baseline.json'));
        baselineMs.push(r.ms);
        await cleanup(r.path);
      } else {
        const r = await subject(join(dir, 'subject'));
        subjectMs.push(r.ms);
        await cleanup(join(dir, 'subject'));
      }
    }
    log(
      `  v${version}: run ${i + 1}/${plan.runs}: baseline ${mbPerSec(replay.bytes, baselineMs.at(-1)!).toFixed(0)} MB/s, subject ${mbPerSec(replay.bytes, subjectMs.at(-1)!).toFixed(0)} MB/s`,
    );
  }

  let hashPlaces: ThroughputResult['hashPlaces'];
  if ((plan.hashPlaceRuns ?? 0) > 0) {
    hashPlaces = { workerMs: [], callingThreadMs: [] };
    for (let i = 0; i < plan.hashPlaceRuns!; i++) {
      const order = i % 2 === 0 ? ([true, false] as const) : ([false, true] as const);
      for (const onWorker of order) {
        const r = await subjectExport(
          files,
          join(dir, 'subject'),
          replay.replay_id,
          onWorker ? {} : { hashWorker: false },
        );
        await cleanup(join(dir, 'subject'));
        if (r.sha256 !== replay.sha256)
          throw new Error(
            `bench: the export with the hash ${onWorker ? 'on the worker' : 'on the calling thread'} gave another sha256`,
          );
        (onWorker ? hashPlaces.workerMs : hashPlaces.callingThreadMs).push(r.ms);
      }
    }
    const w = median(hashPlaces.workerMs);
    const c = median(hashPlaces.callingThreadMs);
    log(
      `  v${version}: SHA-256 on the hashing worker ${(w / 1000).toFixed(2)} s, on the calling thread ${(c / 1000).toFixed(2)} s`,
    );
  }

  const breakdown: ThroughputResult['breakdown'] = [];
  for (const stage of plan.stages) {
    const ms: number[] = [];
    await runStage(files, stage); // warm-up
    for (let i = 0; i < plan.stageRuns; i++) ms.push(await runStage(files, stage));
    breakdown.push({ stage, label: STAGE_LABELS[stage], ms, MBs: mbPerSec(replay.bytes, median(ms)) });
    log(`  v${version}: ${STAGE_LABELS[stage]}: ${mbPerSec(replay.bytes, median(ms)).toFixed(0)} MB/s`);
  }
  await cleanup(dir);

  const subjectMBs = mbPerSec(replay.bytes, median(subjectMs));
  const baselineMBs = mbPerSec(replay.bytes, median(baselineMs));
  return {
    version,
    runs: plan.runs,
    decodedBytes: replay.bytes,
    compressedBytes: replay.compressed[version],
    subjectMs,
    baselineMs,
    subjectMBs,
    baselineMBs,
    ratio: subjectMBs / baselineMBs,
    checks,
    breakdown,
    ...(hashPlaces === undefined ? {} : { hashPlaces }),
  };
}
