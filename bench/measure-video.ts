/**
 * (h) Video export (issue #32): each sample recording rendered to MP4 at 10 fps and 1280×800 by `renderVideo`, the
 * browser started for each render as the CLI does. Speed is the replay time covered over the wall time, whole (the
 * browser's start and the page's load included) and of the frames alone (first frame done to last); peak memory, in a
 * second render of the sample (see `measureVideo`), is the largest sum, sampled every 50 ms, of the proportional set
 * size (PSS: a shared page counted once across processes; RSS where PSS cannot be read) of this process and every
 * process under it (Chromium's), from /proc (Linux).
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderVideo } from '../src/video/index.js';
import { SAMPLES_DIR } from './paths.js';

export interface VideoRun {
  sample: string;
  replayMs: number;
  frames: number;
  totalMs: number;
  framesMs: number;
  /** Replay time over wall time. */
  speed: number;
  framesSpeed: number;
  peakPssBytes: number;
}

export interface VideoBenchResult {
  fps: number;
  size: string;
  runs: VideoRun[];
}

/** PSS (else RSS) in bytes of `pid` and its descendants (0 when /proc cannot be read). */
async function treeRss(pid: number): Promise<number> {
  let entries: string[];
  try {
    entries = (await readdir('/proc')).filter((e) => /^\d+$/.test(e));
  } catch {
    return 0;
  }
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  await Promise.all(
    entries.map(async (e) => {
      try {
        const status = await readFile(`/proc/${e}/status`, 'utf8');
        const pp = /^PPid:\s+(\d+)/m.exec(status);
        const vm = /^VmRSS:\s+(\d+) kB/m.exec(status);
        if (pp) parent.set(Number(e), Number(pp[1]));
        const pss = await readFile(`/proc/${e}/smaps_rollup`, 'utf8').then(
          (t) => /^Pss:\s+(\d+) kB/m.exec(t),
          () => null,
        );
        if (pss) rss.set(Number(e), Number(pss[1]) * 1024);
        else if (vm) rss.set(Number(e), Number(vm[1]) * 1024);
      } catch {
        // gone meanwhile
      }
    }),
  );
  let sum = 0;
  for (const [p] of rss) {
    for (let q: number | undefined = p; q !== undefined && q > 1; q = parent.get(q)) {
      if (q === pid) {
        sum += rss.get(p)!;
        break;
      }
    }
  }
  return sum;
}

/** One render of the sample at `file` into `out`: its wall time, its frames' time and, when `sampled`, its peak PSS. */
async function renderOnce(
  file: string,
  out: string,
  sampled: boolean,
): Promise<{ replayMs: number; frames: number; totalMs: number; framesMs: number; peak: number }> {
  let peak = 0;
  let sampling = sampled;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await treeRss(process.pid));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const started = performance.now();
  let firstDone = 0;
  let lastDone = 0;
  const result = await renderVideo(
    { file },
    {
      out,
      size: { width: 1280, height: 800 },
      onProgress: (p) => {
        lastDone = performance.now();
        if (p.frame === 1) firstDone = lastDone;
      },
    },
  ).finally(() => void (sampling = false));
  const totalMs = performance.now() - started;
  await sampler;
  // The frames after the first, scaled to all of them.
  const framesMs = result.frames > 1 ? ((lastDone - firstDone) * result.frames) / (result.frames - 1) : totalMs;
  return { replayMs: result.to - result.from, frames: result.frames, totalMs, framesMs, peak };
}

/**
 * Each run renders the sample twice: once timed, once with its memory sampled. Reading a Chromium process's
 * `smaps_rollup` costs the kernel a few ms (~20 ms of CPU for a render's processes, every 50 ms: about a third of one
 * of this machine's two cores), which would slow the render it measures.
 */
export async function measureVideo(opts: { runs: number; log: (line: string) => void }): Promise<VideoBenchResult> {
  const index = JSON.parse(await readFile(join(SAMPLES_DIR, 'index.json'), 'utf8')) as {
    replays: { name: string; expected: string }[];
  };
  const dir = await mkdtemp(join(tmpdir(), 'replay-export-bench-video-'));
  const runs: VideoRun[] = [];
  try {
    for (const sample of index.replays) {
      for (let i = 0; i < opts.runs; i++) {
        const file = join(SAMPLES_DIR, sample.expected);
        const out = join(dir, `${sample.name}.mp4`);
        const { replayMs, frames, totalMs, framesMs } = await renderOnce(file, out, false);
        const { peak } = await renderOnce(file, out, true);
        const run = {
          sample: sample.name,
          replayMs,
          frames,
          totalMs,
          framesMs,
          speed: replayMs / totalMs,
          framesSpeed: replayMs / framesMs,
          peakPssBytes: peak,
        };
        runs.push(run);
        opts.log(
          `  ${sample.name}: ${(replayMs / 1000).toFixed(1)} s of replay, ${frames} frames in ${(totalMs / 1000).toFixed(1)} s ` +
            `(${run.speed.toFixed(2)}× real time; frames alone ${run.framesSpeed.toFixed(2)}×), peak PSS ${(peak / 1e6).toFixed(0)} MB`,
        );
      }
    }
    return { fps: 10, size: '1280x800', runs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
