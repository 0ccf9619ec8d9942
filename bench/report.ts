/** The bench's table (stdout) and its JSON result. */

import type { Comparison } from './deps.js';
import type { ArchiveResult } from './measure-archive.js';
import type { ThroughputResult } from './measure-files.js';
import type { PlayerResult } from './measure-player.js';
import type { VideoBenchResult } from './measure-video.js';
import type { ResumeResult } from './measure-resume.js';
import type { S3ResumeResult } from './measure-resume-s3.js';
import type { ShardedApiResult } from './measure-scale-api.js';
import type { RssResult } from './measure-rss.js';
import { type ViewBenchResult, viewRows } from './measure-view.js';
import { mbPerSec, median, round } from './stats.js';

export const TARGETS = {
  v3Ratio: 0.7,
  v2Ratio: 0.6,
  peakPssBytes: 150e6,
  archiveRatio: 1.3,
  /** Resume of a 1M-replay archive's state (issue: ≤ 200 MB, ≤ 60 s). */
  resumeRssBytes: 200e6,
  resumeMs: 60_000,
  /** S3 requests of a resume of 1M archived replays, per shard (issue #18). */
  resumeS3Requests: 2_000,
  /** Three shards against a per-project limit of 5 in flight (issue #18): ≤ 1.5× the bound, ≤ 5% answered 429. */
  scaleApiRatio: 1.5,
  scaleApiLimitedShare: 0.05,
  /** The longest shard's time (spawn to end) ÷ the shards' mean: the night divided evenly (issue #30). */
  scaleShardSplit: 1.1,
  /** One process against the limit: wall ÷ bound. */
  scaleSingleRatio: 1.2,
  /** The offline player, 100 MB page (issue #15): first frame ≤ 5 s, a seek ≤ 1 s, heap ≤ 3× the events. */
  playerFirstFrameMs: 5_000,
  playerSeekMs: 1_000,
  playerHeapRatio: 3,
  /** Video export (issue #32): ≥ 4× real time at 10 fps, 1280×800, for each sample. */
  videoSpeed: 4,
} as const;

export interface Row {
  figure: string;
  subject: string;
  baseline: string;
  ratio: string;
  target: string;
  pass: boolean;
}

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  node: string;
  platform: string;
  cpus: number;
  /** Node and V8 flags of the bench process, passed on to its measured children ('none' without). */
  nodeFlags: string;
  /** The generated replays; absent when only the player and video parts ran (they use their own pages, the samples). */
  data?: {
    decodedBytes: number;
    files: number;
    events: number;
    compressed: { 2: number; 3: number };
    hugeBytes: number;
  };
  v3?: ThroughputResult;
  v2?: ThroughputResult;
  deps?: Comparison[];
  rss?: RssResult;
  archive?: ArchiveResult;
  resume?: ResumeResult;
  resumeS3?: S3ResumeResult;
  /** The scale part (issue #18): each figure its own field. */
  scale?: { api?: ShardedApiResult };
  player?: PlayerResult;
  video?: VideoBenchResult;
  /** The view part (issue #41): the catalogue against the in-memory index. */
  view?: ViewBenchResult;
}

const mbs = (n: number): string => `${n.toFixed(0)} MB/s`;
const mb = (n: number): string => `${(n / 1e6).toFixed(0)} MB`;

export function rows(r: BenchResults): Row[] {
  const out: Row[] = [];
  if (r.v3) {
    out.push({
      figure: 'v3 export: decode + checks + local sink',
      subject: mbs(r.v3.subjectMBs),
      baseline: `${mbs(r.v3.baselineMBs)} gunzip + write`,
      ratio: `${r.v3.ratio.toFixed(2)}×`,
      target: `≥ ${TARGETS.v3Ratio}×`,
      pass: r.v3.ratio >= TARGETS.v3Ratio,
    });
  }
  if (r.v2) {
    out.push({
      figure: 'v2 export: decode + checks + local sink',
      subject: mbs(r.v2.subjectMBs),
      baseline: `${mbs(r.v2.baselineMBs)} gunzip + inflate + write`,
      ratio: `${r.v2.ratio.toFixed(2)}×`,
      target: `≥ ${TARGETS.v2Ratio}×`,
      pass: r.v2.ratio >= TARGETS.v2Ratio,
    });
  }
  if (r.rss) {
    for (const v of r.rss.versions) {
      out.push({
        figure: `peak RSS, 1 GB replay, v${v.version} export (child)`,
        subject: `${mb(v.maxRssBytes)}`,
        baseline: `${mb(r.rss.idleRssBytes)} idle child`,
        ratio: '',
        target: `< ${mb(TARGETS.peakPssBytes)}`,
        pass: v.maxRssBytes < TARGETS.peakPssBytes,
      });
    }
  }
  if (r.archive) {
    const a = r.archive;
    out.push({
      figure: `archive ${a.replays} replays × ${a.filesPerReplay} files, ${a.latencyMs} ms latency`,
      subject: `${(a.medianMs / 1000).toFixed(2)} s`,
      baseline: `${(a.bound.ms / 1000).toFixed(2)} s bound`,
      ratio: `${a.ratio.toFixed(2)}×`,
      target: `≤ ${TARGETS.archiveRatio}× bound`,
      pass: a.ratio <= TARGETS.archiveRatio,
    });
  }
  if (r.resume) {
    const x = r.resume;
    const base = x.entries && 'maxRssBytes' in x.entries ? x.entries : undefined;
    out.push({
      figure: `resume state of ${x.replays} archived replays: peak RSS (child)`,
      subject: mb(x.state.maxRssBytes),
      baseline: base ? `${mb(base.maxRssBytes)} whole entries` : 'whole entries: did not fit',
      ratio: base ? `${(x.state.maxRssBytes / base.maxRssBytes).toFixed(2)}×` : '',
      target: `≤ ${mb(TARGETS.resumeRssBytes)}`,
      pass: x.state.maxRssBytes <= TARGETS.resumeRssBytes,
    });
    out.push({
      figure: `resume state of ${x.replays} archived replays: time`,
      subject: `${(x.state.ms / 1000).toFixed(1)} s`,
      baseline: base ? `${(base.ms / 1000).toFixed(1)} s whole entries` : 'whole entries: did not fit',
      ratio: base ? `${(x.state.ms / base.ms).toFixed(2)}×` : '',
      target: `≤ ${TARGETS.resumeMs / 1000} s`,
      pass: x.state.ms <= TARGETS.resumeMs,
    });
    out.push({
      figure: `fold of the same manifest into its snapshot (local): peak RSS (child)`,
      subject: mb(x.fold.maxRssBytes),
      baseline: `(it took ${(x.fold.ms / 1000).toFixed(1)} s)`,
      ratio: '',
      target: `≤ ${mb(TARGETS.resumeRssBytes)}`,
      pass: x.fold.maxRssBytes <= TARGETS.resumeRssBytes,
    });
  }
  if (r.view) out.push(...viewRows(r.view));
  if (r.resumeS3) {
    const x = r.resumeS3;
    const total = x.requests + x.outputListing;
    out.push({
      figure: `S3 resume of ${x.replays} archived replays (folded manifest, s3rver): peak RSS (child)`,
      subject: mb(x.maxRssBytes),
      baseline: '',
      ratio: '',
      target: `≤ ${mb(TARGETS.resumeRssBytes)}`,
      pass: x.maxRssBytes <= TARGETS.resumeRssBytes,
    });
    out.push({
      figure: `S3 resume of ${x.replays} archived replays: manifest read time`,
      subject: `${(x.ms / 1000).toFixed(1)} s`,
      baseline: '',
      ratio: '',
      target: `≤ ${TARGETS.resumeMs / 1000} s`,
      pass: x.ms <= TARGETS.resumeMs,
    });
    out.push({
      figure: `S3 resume of ${x.replays} archived replays: S3 requests`,
      subject: `${total} (${x.requests} sent + ${x.outputListing} output listing)`,
      baseline: `${2 * x.replays} GET + HEAD per replay before`,
      ratio: `${(total / (2 * x.replays)).toFixed(4)}×`,
      target: `≤ ${TARGETS.resumeS3Requests}`,
      pass: total <= TARGETS.resumeS3Requests,
    });
  }
  if (r.video) {
    for (const v of r.video.runs) {
      // Rendering speed is the frames' (first frame done to last): what a replay's length multiplies. The render's
      // fixed part (the browser's start and the pages' load before the first frame, the file's end after the last)
      // is shown beside it, with the whole: on these 2–5 s samples it is a quarter to a half of the whole.
      out.push({
        figure: `video, ${v.sample} (${(v.replayMs / 1000).toFixed(1)} s, ${v.frames} frames at ${r.video.fps} fps, ${r.video.size}): rendering`,
        subject: `frames ${v.framesSpeed.toFixed(2)}× real time; whole ${v.speed.toFixed(2)}× (fixed part ${((v.totalMs - v.framesMs) / 1000).toFixed(2)} s); peak PSS ${mb(v.peakPssBytes)}`,
        baseline: '1× (screen recording)',
        ratio: `${v.framesSpeed.toFixed(2)}×`,
        target: `≥ ${TARGETS.videoSpeed}× real time`,
        pass: v.framesSpeed >= TARGETS.videoSpeed,
      });
    }
  }
  if (r.player) {
    for (const p of r.player.pages) {
      const big = p.eventBytes >= 90e6;
      // A baseline step over its cap is NaN: shown as "> cap", the ratio as an upper bound.
      const seconds = (ms: number, cap: number, digits: number): string =>
        !p.baseline
          ? 'not run at this size'
          : Number.isNaN(ms)
            ? `> ${cap / 1000} s`
            : `${(ms / 1000).toFixed(digits)} s`;
      const ratio = (a: number, b: number, cap: number): string =>
        !p.baseline ? '' : Number.isNaN(b) ? `< ${(a / cap).toFixed(2)}×` : `${(a / b).toFixed(2)}×`;
      const base = p.baseline ?? { firstFrameMs: NaN, seekMs: NaN, seekInk: false, heapBytes: NaN, cappedMs: NaN };
      const cap = base.cappedMs;
      out.push({
        figure: `player, ${p.label} page: first frame`,
        subject: `${(p.subject.firstFrameMs / 1000).toFixed(1)} s`,
        baseline: `${seconds(base.firstFrameMs, cap, 1)}${p.baseline ? ' all frames' : ''}`,
        ratio: ratio(p.subject.firstFrameMs, base.firstFrameMs, cap),
        target: big ? `≤ ${TARGETS.playerFirstFrameMs / 1000} s` : '',
        pass: !big || p.subject.firstFrameMs <= TARGETS.playerFirstFrameMs,
      });
      out.push({
        figure: `player, ${p.label} page: seek to the middle`,
        subject: `${(p.subject.seekMs / 1000).toFixed(2)} s${p.subject.seekInk ? '' : ', canvas blank'}`,
        baseline: `${seconds(base.seekMs, cap, 2)}${p.baseline ? ' all frames' : ''}${!p.baseline || base.seekInk || Number.isNaN(base.seekMs) ? '' : ', canvas blank'}`,
        ratio: ratio(p.subject.seekMs, base.seekMs, cap),
        target: big ? `≤ ${TARGETS.playerSeekMs / 1000} s` : '',
        pass: p.subject.seekInk && (!big || p.subject.seekMs <= TARGETS.playerSeekMs),
      });
      out.push({
        figure: `player, ${p.label} page: JS heap`,
        subject: mb(p.subject.heapBytes),
        baseline: p.baseline ? `${mb(p.baseline.heapBytes)} all frames` : 'not run at this size',
        ratio: `${(p.subject.heapBytes / p.eventBytes).toFixed(2)}× events`,
        target: big ? `≤ ${TARGETS.playerHeapRatio}× events` : '',
        pass: !big || p.subject.heapBytes <= TARGETS.playerHeapRatio * p.eventBytes,
      });
    }
  }
  if (r.scale?.api) {
    const x = r.scale.api;
    const s = x.sharded;
    out.push({
      figure: `scale: ${x.replays} replays, ${x.shards} archive shards (--balance), limit ${x.apiLimit} in flight, ${x.latencyMs} ms: wall`,
      subject: `${(s.wallMs / 1000).toFixed(2)} s`,
      baseline: `bound ${(s.boundMs / 1000).toFixed(2)} s; ${(x.unbalanced.wallMs / 1000).toFixed(2)} s (${x.unbalanced.ratio.toFixed(2)}×) unbalanced`,
      ratio: `${s.ratio.toFixed(2)}×`,
      target: `≤ ${TARGETS.scaleApiRatio}× bound`,
      pass: s.ratio <= TARGETS.scaleApiRatio,
    });
    out.push({
      figure: `scale: the same run, API calls answered 429`,
      subject: `${s.limited} of ${s.apiCalls + s.limited}`,
      baseline: '—',
      ratio: `${(100 * s.limitedShare).toFixed(1)}%`,
      target: `≤ ${100 * TARGETS.scaleApiLimitedShare}%`,
      pass: s.limitedShare <= TARGETS.scaleApiLimitedShare,
    });
    // Balanced, the replays go to whichever shard has the API's room, so the night is divided by time: each shard's
    // time (spawn to end) against their mean; the replays each exported, and the hash's split, are shown beside it.
    const ends = (r: typeof s): number[] => r.perProcess.map((p) => p.endMs);
    const mean = ends(s).reduce((a, b) => a + b, 0) / s.perProcess.length;
    const secs = (ms: number[]): string => ms.map((m) => (m / 1000).toFixed(2)).join(' / ');
    out.push({
      figure: `scale: the same run, each shard's time (spawn to end)`,
      subject: `${secs(ends(s))} s; replays ${s.perProcess.map((p) => p.replays).join(' / ')}`,
      baseline: `unbalanced ${secs(ends(x.unbalanced))} s; replays ${x.unbalanced.perProcess.map((p) => p.replays).join(' / ')}`,
      ratio: `${(Math.max(...ends(s)) / mean).toFixed(2)}× mean`,
      target: `≤ ${TARGETS.scaleShardSplit}× mean`,
      pass: Math.max(...ends(s)) <= TARGETS.scaleShardSplit * mean,
    });
    out.push({
      figure: `scale: one process, the same limit and replays: wall`,
      subject: `${(x.single.wallMs / 1000).toFixed(2)} s`,
      baseline: `bound ${(x.single.boundMs / 1000).toFixed(2)} s`,
      ratio: `${x.single.ratio.toFixed(2)}×`,
      target: `≤ ${TARGETS.scaleSingleRatio}× bound`,
      pass: x.single.ratio <= TARGETS.scaleSingleRatio,
    });
  }
  return out;
}

function table(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string => '| ' + cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |';
  return [line(head), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(line)].join('\n');
}

const secs = (ms: readonly number[]): string => ms.map((m) => (m / 1000).toFixed(2)).join(', ');

export function formatReport(r: BenchResults): string {
  const lines: string[] = [];
  lines.push(
    `replay-export bench — ${r.startedAt} — node ${r.node}, ${r.platform}, ${r.cpus} CPUs, node flags: ${r.nodeFlags}`,
  );
  if (r.data) {
    lines.push(
      `data: one replay of ${mb(r.data.decodedBytes)} decoded (${r.data.events} events) in ${r.data.files} files; ` +
        `v3 files ${mb(r.data.compressed[3])} gzip, v2 files ${mb(r.data.compressed[2])} gzip; 1 GB replay = ${mb(r.data.hugeBytes)} decoded`,
    );
  }
  lines.push(
    'MB/s = decoded replay bytes (10^6) per second, for subject and baseline alike; medians of alternating runs after a warm-up.',
  );
  if (r.v3 || r.v2)
    lines.push(
      '(a) and (b): subject and baseline alternate in one child process that holds the library, as an exporting process does (bench/throughput-child.ts).',
    );
  lines.push('');
  const rs = rows(r);
  lines.push(
    table(
      ['figure', 'subject', 'baseline (same run)', 'ratio', 'target', 'result'],
      rs.map((x) => [x.figure, x.subject, x.baseline, x.ratio, x.target, x.pass ? 'PASS' : 'FAIL']),
    ),
  );
  lines.push('');
  for (const t of [r.v3, r.v2]) {
    if (!t) continue;
    lines.push(
      `v${t.version}: ${t.runs} runs each; subject s: ${secs(t.subjectMs)}; baseline s: ${secs(t.baselineMs)}`,
    );
    // Each subject run next to the baseline run made right before or after it: how much the ratio moves run to run.
    const pairs = t.subjectMs.map((ms, i) => t.baselineMs[i]! / ms);
    if (pairs.length > 1) {
      lines.push(
        `  each pair (baseline ÷ subject of adjacent runs): ${Math.min(...pairs).toFixed(2)}–${Math.max(...pairs).toFixed(2)}, median ${median(pairs).toFixed(2)}`,
      );
    }
    if (t.hashPlaces) {
      const w = median(t.hashPlaces.workerMs);
      const c = median(t.hashPlaces.callingThreadMs);
      lines.push(
        `  SHA-256 on the hashing worker (the subject) vs on the calling thread (hashWorker: false), ${t.hashPlaces.workerMs.length} alternating pairs: ` +
          `${mbs(mbPerSec(t.decodedBytes, w))} vs ${mbs(mbPerSec(t.decodedBytes, c))} (s: ${secs(t.hashPlaces.workerMs)} vs ${secs(t.hashPlaces.callingThreadMs)}); the worker ${(c / w).toFixed(2)}× as fast`,
      );
    }
    for (const b of t.breakdown)
      lines.push(`  alone: ${b.label.padEnd(52)} ${mbs(b.MBs).padStart(9)}  (s: ${secs(b.ms)})`);
    for (const c of t.checks) lines.push(`  checked: ${c}`);
  }
  if (r.deps) {
    lines.push('dependencies, measured on the first files of the same replay (medians):');
    for (const c of r.deps) {
      lines.push(
        `  ${c.what}: ${c.ours.name} ${mbs(c.ours.MBs)} vs ${c.theirs.name} ${mbs(c.theirs.MBs)} (${c.speedup.toFixed(1)}×)`,
      );
    }
  }
  if (r.rss) {
    lines.push(
      `peak RSS (process.resourceUsage().maxRSS of a child, launched from a minimal process, running exportReplay against the sandbox, local sink):`,
    );
    for (const v of r.rss.versions) {
      lines.push(
        `  v${v.version}: runs ${v.runs.map((x) => mb(x.maxRssBytes)).join(', ')}` +
          (v.runs.every((x) => x.vmHwmBytes !== undefined)
            ? ` (VmHWM ${v.runs.map((x) => mb(x.vmHwmBytes!)).join(', ')})`
            : '') +
          `; end to end ${v.runs.map((x) => mbs(x.MBs)).join(', ')}`,
      );
      const p = v.runs.find((x) => x.maxRssBytes === v.maxRssBytes)?.peaks;
      if (p) {
        lines.push(
          `      highest run, sampled peaks: heapTotal ${mb(p.heapTotal)} (heapUsed ${mb(p.heapUsed)}), external ${mb(p.external)} (arrayBuffers ${mb(p.arrayBuffers)})`,
        );
      }
    }
    lines.push(`  idle child (library loaded, nothing done): ${mb(r.rss.idleRssBytes)}`);
    for (const c of r.rss.checks) lines.push(`  checked: ${c}`);
  }
  if (r.archive) {
    const a = r.archive;
    lines.push(`archive: runs s: ${secs(a.runsMs)}; child peak RSS ${mb(a.maxRssBytes)}`);
    lines.push(
      `  measured baseline, same requests and caps with bare undici, bodies dropped (bench/raw-archive.ts): ${(a.rawMedianMs / 1000).toFixed(2)} s ` +
        `(s: ${secs(a.rawRunsMs)}) = ${(a.rawMedianMs / a.bound.ms).toFixed(2)}× bound; archive = ${(a.medianMs / a.rawMedianMs).toFixed(2)}× raw schedule`,
    );
    for (const e of a.bound.explanation) lines.push(`  ${e}`);
    for (const c of a.checks) lines.push(`  checked: ${c}`);
  }
  if (r.resume) {
    lines.push(
      `resume: a ${mb(r.resume.manifestBytes)} manifest; ${r.resume.entries && 'failed' in r.resume.entries ? `whole entries ${r.resume.entries.failed}` : 'both children found every replay done'}`,
    );
    for (const c of r.resume.checks) lines.push(`  checked: ${c}`);
  }
  if (r.resumeS3) {
    lines.push(
      `S3 resume: a ${mb(r.resumeS3.snapshotBytes)} gzip snapshot; the outputs' listing counted, not timed (s3rver walks its folders per page)`,
    );
    for (const c of r.resumeS3.checks) lines.push(`  checked: ${c}`);
  }
  if (r.scale?.api) {
    const x = r.scale.api;
    lines.push(
      `scale (API): shards ended after ${x.sharded.perProcess.map((p) => (p.endMs / 1000).toFixed(2)).join(', ')} s, started (library loaded) after ${x.sharded.perProcess.map((p) => (p.startMs / 1000).toFixed(2)).join(', ')} s`,
    );
    lines.push(
      `  one process against the limit: started after ${(x.single.perProcess[0]!.startMs / 1000).toFixed(2)} s, first request at ${(x.single.firstRequestMs / 1000).toFixed(2)} s`,
    );
    lines.push(
      `  one process alone, no limit, ${x.alone.latencyMs} ms: ${(x.alone.wallMs / 1000).toFixed(2)} s for ${x.alone.apiCalls} API calls + ${x.alone.downloads} downloads: effective parallelism ${x.alone.effectiveParallelism.toFixed(1)}`,
    );
    for (const e of x.explanation) lines.push(`  ${e}`);
  }
  const passed = rs.filter((x) => x.pass).length;
  lines.push('');
  lines.push(`targets: ${passed} of ${rs.length} met`);
  return lines.join('\n');
}

/** The JSON written to bench/results (numbers rounded for reading; raw run times kept). */
export function resultJson(r: BenchResults): unknown {
  return {
    ...r,
    targets: TARGETS,
    table: rows(r).map((x) => ({ ...x })),
    summary: {
      v3Ratio: r.v3 ? round(r.v3.ratio, 3) : null,
      v2Ratio: r.v2 ? round(r.v2.ratio, 3) : null,
      peakPssBytes: r.rss ? Object.fromEntries(r.rss.versions.map((v) => [`v${v.version}`, v.maxRssBytes])) : null,
      archiveRatio: r.archive ? round(r.archive.ratio, 3) : null,
      scaleApi: r.scale?.api
        ? {
            ratio: round(r.scale.api.sharded.ratio, 3),
            limitedShare: round(r.scale.api.sharded.limitedShare, 4),
            split: r.scale.api.sharded.perProcess.map((p) => p.replays),
            endsMs: r.scale.api.sharded.perProcess.map((p) => Math.round(p.endMs)),
            unbalancedRatio: round(r.scale.api.unbalanced.ratio, 3),
            singleRatio: round(r.scale.api.single.ratio, 3),
            aloneParallelism: round(r.scale.api.alone.effectiveParallelism, 1),
            startCpuMs: r.scale.api.startCpuMs.map((ms) => Math.round(ms)),
          }
        : null,
      resume: r.resume
        ? { replays: r.resume.replays, ms: Math.round(r.resume.state.ms), maxRssBytes: r.resume.state.maxRssBytes }
        : null,
      view: r.view ?? null,
      resumeS3: r.resumeS3
        ? {
            replays: r.resumeS3.replays,
            ms: Math.round(r.resumeS3.ms),
            maxRssBytes: r.resumeS3.maxRssBytes,
            requests: r.resumeS3.requests + r.resumeS3.outputListing,
          }
        : null,
    },
  };
}
