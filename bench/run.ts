/**
 * `npm run bench`: every figure next to its baseline, measured in the same run on the same files.
 *
 *   node dist/bench/run.js [--only=v3,v2,deps,rss,archive,resume,player,scale,video,view]
 *
 * Progress goes to stderr; the table to stdout; the full result to bench/results/<iso-time>.json.
 */

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIG_FILES, ensureBenchData } from './generate.js';
import { compareFastPath, compareInflate, compareSplitter } from './deps.js';
import { measureArchive } from './measure-archive.js';
import { measurePlayer } from './measure-player.js';
import { measureVideo } from './measure-video.js';
import { measureResume } from './measure-resume.js';
import { measureResumeS3 } from './measure-resume-s3.js';
import { measureShardedApi } from './measure-scale-api.js';
import { measureRss } from './measure-rss.js';
import { measureView } from './measure-view.js';
import { runThroughputChild } from './child-runner.js';
import { ARCHIVE_SAMPLES_DIR, BIG_SAMPLES_DIR, RESULTS_DIR } from './paths.js';
import { formatReport, resultJson, type BenchResults } from './report.js';

const SECTIONS = ['v3', 'v2', 'deps', 'rss', 'archive', 'resume', 'player', 'scale', 'video', 'view'] as const;
type Section = (typeof SECTIONS)[number];

/** How many measured runs each figure gets (after its warm-up). */
const PLAN = {
  v3Runs: 15,
  /** Unmeasured runs of each side first (see ThroughputPlan.warmUps). */
  v3WarmUps: 3,
  v2WarmUps: 1,
  v2Runs: 3,
  v3StageRuns: 3,
  /** Alternating pairs: the v3 subject with SHA-256 on the hashing worker and on the calling thread. */
  v3HashPlaceRuns: 6,
  v2StageRuns: 1,
  rssRuns: (process.env['BENCH_RSS_RUNS'] ? JSON.parse(process.env['BENCH_RSS_RUNS']) : { 3: 3, 2: 1 }) as Record<
    2 | 3,
    number
  >,
  archiveReplays: 200,
  archiveLatencyMs: 50,
  archiveRuns: 3,
  /** Replays of the synthetic archive resumed by the resume part (BENCH_RESUME_REPLAYS overrides). */
  resumeReplays: Number(process.env['BENCH_RESUME_REPLAYS'] ?? 1_000_000),
  /** Heap cap of the resume baseline (whole entries), so that it fails rather than swaps. */
  resumeBaselineHeapMb: 2048,
  /** Sizes of the player part's pages (their events), MB: BENCH_PLAYER_MB=30,100 adds the 100 MB page (long). */
  playerPagesMB: (process.env['BENCH_PLAYER_MB'] ?? '30').split(',').map(Number),
  /** Replays of the view part's archive (BENCH_VIEW_REPLAYS), and of its S3 archive on s3rver (BENCH_VIEW_S3_REPLAYS). */
  viewReplays: Number(process.env['BENCH_VIEW_REPLAYS'] ?? 1_000_000),
  viewS3Replays: Number(process.env['BENCH_VIEW_S3_REPLAYS'] ?? 1_000_000),
  /** Renders of each sample by the video part. */
  videoRuns: Number(process.env['BENCH_VIDEO_RUNS'] ?? 1),
  /** Scale part, API: replays archived by three shards against a limit of 5 in flight, latency (BENCH_SCALE_REPLAYS). */
  scaleReplays: Number(process.env['BENCH_SCALE_REPLAYS'] ?? 150),
  scaleShards: 3,
  scaleApiLimit: 5,
  scaleLatencyMs: 100,
  /** The same replays by one process with no limit. */
  scaleAloneLatencyMs: 50,
  /** The dependency comparisons use the first files of the replay. */
  depsFiles: 2,
  depsRuns: 3,
};

function parseSections(argv: readonly string[]): Set<Section> {
  const only = argv.find((a) => a.startsWith('--only='));
  if (!only) return new Set(SECTIONS);
  const picked = only.slice('--only='.length).split(',').filter(Boolean);
  for (const p of picked) {
    if (!(SECTIONS as readonly string[]).includes(p))
      throw new Error(`--only: unknown section ${p} (known: ${SECTIONS.join(', ')})`);
  }
  return new Set(picked as Section[]);
}

async function main(): Promise<void> {
  const sections = parseSections(process.argv.slice(2));
  const log = (line: string): void => void process.stderr.write(line + '\n');
  const startedAt = new Date();
  // The player and video parts use their own pages and the samples: the generated replays only for the others.
  const data = [...sections].some((s) => s !== 'player' && s !== 'video' && s !== 'view')
    ? await ensureBenchData(log)
    : undefined;
  const workDir = await mkdtemp(join(tmpdir(), 'replay-export-bench-'));
  const results: BenchResults = {
    startedAt: startedAt.toISOString(),
    finishedAt: '',
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
    nodeFlags: process.execArgv.join(' ') || 'none',
    ...(data
      ? {
          data: {
            decodedBytes: data.big.bytes,
            files: BIG_FILES,
            events: data.big.event_count,
            compressed: data.big.compressed,
            hugeBytes: data.huge.bytes,
          },
        }
      : {}),
  };
  try {
    if (sections.has('v3')) {
      log('(a) version 3 files: subject vs gunzip + write (child process holding the library)');
      results.v3 = await runThroughputChild({
        version: 3,
        replay: data!.big,
        samplesDir: BIG_SAMPLES_DIR,
        runs: PLAN.v3Runs,
        warmUps: PLAN.v3WarmUps,
        workDir,
        stages: ['gunzip', 'decode', 'decode-batches', 'decode+checks', 'decode+checks+encode'],
        stageRuns: PLAN.v3StageRuns,
        hashPlaceRuns: PLAN.v3HashPlaceRuns,
        log,
      });
    }
    if (sections.has('v2')) {
      log('(b) version 2 files: subject vs gunzip + per-string inflate + write (child process holding the library)');
      results.v2 = await runThroughputChild({
        version: 2,
        replay: data!.big,
        samplesDir: BIG_SAMPLES_DIR,
        runs: PLAN.v2Runs,
        warmUps: PLAN.v2WarmUps,
        workDir,
        stages: ['decode'],
        stageRuns: PLAN.v2StageRuns,
        log,
      });
    }
    if (sections.has('deps')) {
      log(
        'dependencies: node:zlib vs pako (v2 inflate), byte scanner vs stream-json (v3 split), WebAssembly fast paths vs TypeScript (v3, v2)',
      );
      results.deps = [
        await compareInflate(BIG_SAMPLES_DIR, data!.big, PLAN.depsFiles, PLAN.depsRuns),
        await compareSplitter(BIG_SAMPLES_DIR, data!.big, PLAN.depsFiles, PLAN.depsRuns),
        await compareFastPath(BIG_SAMPLES_DIR, data!.big, 3, PLAN.depsFiles, PLAN.depsRuns),
        await compareFastPath(BIG_SAMPLES_DIR, data!.big, 2, PLAN.depsFiles, PLAN.depsRuns),
      ];
      for (const c of results.deps)
        log(`  ${c.ours.name} ${c.ours.MBs.toFixed(0)} MB/s vs ${c.theirs.name} ${c.theirs.MBs.toFixed(0)} MB/s`);
    }
    if (sections.has('rss')) {
      log('(c) peak RSS exporting the 1 GB replay (child process, sandbox)');
      results.rss = await measureRss({
        samplesDir: BIG_SAMPLES_DIR,
        replay: data!.huge,
        workDir,
        runs: PLAN.rssRuns,
        log,
      });
    }
    if (sections.has('archive')) {
      log(`(d) archive of ${PLAN.archiveReplays} replays against the sandbox with ${PLAN.archiveLatencyMs} ms latency`);
      results.archive = await measureArchive({
        samplesDir: ARCHIVE_SAMPLES_DIR,
        sample: data!.small,
        replays: PLAN.archiveReplays,
        latencyMs: PLAN.archiveLatencyMs,
        runs: PLAN.archiveRuns,
        workDir,
        log,
      });
    }
    // The scale part (issue #18) reports the resume figures too; `--only=resume` runs them alone.
    if (sections.has('resume') || sections.has('scale')) {
      log(
        `(e) resume of a synthetic archive of ${PLAN.resumeReplays} replays: resume state vs whole manifest entries (children)`,
      );
      results.resume = await measureResume({
        replays: PLAN.resumeReplays,
        workDir,
        entriesHeapMb: PLAN.resumeBaselineHeapMb,
        log,
      });
      log(
        `(e) the same archive on S3 (s3rver), its manifest folded into one snapshot: resume state through the S3 sink (child)`,
      );
      results.resumeS3 = await measureResumeS3({ replays: PLAN.resumeReplays, workDir, log });
    }
    if (sections.has('player')) {
      log(
        `(f) the offline player in Chromium: pages of ${PLAN.playerPagesMB.join(' and ')} MB of events, canvas window vs every canvas frame at once`,
      );
      results.player = await measurePlayer({ sizesMB: PLAN.playerPagesMB, log });
    }
    if (sections.has('video')) {
      log(
        `(h) video export: each sample rendered to MP4 at 10 fps, 1280x800, ${PLAN.videoRuns} run(s) each, Chromium started per render`,
      );
      results.video = await measureVideo({ runs: PLAN.videoRuns, log });
    }
    if (sections.has('view')) {
      log(
        `(i) view of ${PLAN.viewReplays} replays: the catalogue (built, then opened) against the in-memory index; S3: ${PLAN.viewS3Replays} on s3rver (children)`,
      );
      results.view = await measureView({ replays: PLAN.viewReplays, s3Replays: PLAN.viewS3Replays, workDir, log });
    }
    if (sections.has('scale')) {
      results.scale ??= {};
      log(
        `(g) scale: ${PLAN.scaleReplays} replays by ${PLAN.scaleShards} archive shards (processes) against a limit of ${PLAN.scaleApiLimit} API requests in flight, ${PLAN.scaleLatencyMs} ms latency; then one process, no limit, ${PLAN.scaleAloneLatencyMs} ms`,
      );
      results.scale.api = await measureShardedApi({
        samplesDir: ARCHIVE_SAMPLES_DIR,
        sample: data!.small,
        replays: PLAN.scaleReplays,
        shards: PLAN.scaleShards,
        latencyMs: PLAN.scaleLatencyMs,
        apiLimit: PLAN.scaleApiLimit,
        aloneLatencyMs: PLAN.scaleAloneLatencyMs,
        workDir,
        log,
      });
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  results.finishedAt = new Date().toISOString();
  process.stdout.write(formatReport(results) + '\n');
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${results.startedAt.replace(/:/g, '-')}.json`);
  await writeFile(file, JSON.stringify(resultJson(results), null, 2) + '\n');
  log(`results: ${file} (${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s)`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
