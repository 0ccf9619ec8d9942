/**
 * The offline player on large pages, in Chromium: time to the first frame (the canvas shows ink and the page
 * answers), a seek to the middle (until the canvas shows ink again and the page answers), and the tab's JS heap.
 * Subject: the page as written (canvas window on), opened `?paused`; baseline, same run, same file:
 * `?paused&canvas=all` (every canvas frame given to rrweb's Replayer at once, as the player did before).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../samples/lib/chromium.js';
import { writePlayerPage } from './player-pages.js';

export interface PlayerRun {
  /** NaN when the page showed no frame within the run's cap (`cappedMs`). */
  firstFrameMs: number;
  /** Until the page answers at the new position. */
  seekMs: number;
  /** Whether the canvas showed anything within 5 s of the seek (rrweb can leave it blank). */
  seekInk: boolean;
  heapBytes: number;
  /** The longest a step was waited for; a step that took longer is NaN (the baseline of a large page). */
  cappedMs: number;
}

export interface PlayerResult {
  pages: Array<{
    label: string;
    eventBytes: number;
    events: number;
    durationMs: number;
    subject: PlayerRun;
    baseline?: PlayerRun | undefined;
  }>;
}

/* The page's globals, as far as these measurements read them (the bench compiles without the DOM library). */
type Doc = {
  querySelector(
    s: string,
  ): { contentDocument?: Doc | null; getContext?(k: '2d'): Ctx; width?: number; height?: number } | null;
  getElementById(id: string): { value: string; max: string; dispatchEvent(e: unknown): void } | null;
};
type Ctx = { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
type PageGlobals = { document: Doc; replayer: { getCurrentTime(): number }; Event: new (type: string) => unknown };

/**
 * Whether the replay's canvas shows anything (and, with `near`, the replay is within 1 s of it); run in the page,
 * which answers only once its main thread is free. Functions, not strings: the page's CSP forbids eval.
 */
function hasInk(near: number | null): boolean {
  const g = globalThis as unknown as PageGlobals;
  if (near !== null && Math.abs(g.replayer.getCurrentTime() - near) >= 1000) return false;
  const frame = g.document.querySelector('#stage iframe');
  const canvas = frame?.contentDocument?.querySelector('canvas');
  if (!canvas?.getContext || !canvas.width || !canvas.height) return false;
  const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) return true;
  return false;
}

function atPosition(t: number): boolean {
  const g = globalThis as unknown as PageGlobals;
  return Math.abs(g.replayer.getCurrentTime() - t) < 1000;
}

function seekToMiddle(): number {
  const g = globalThis as unknown as PageGlobals;
  const s = g.document.getElementById('seek')!;
  const t = Math.floor(Number(s.max) / 2);
  s.value = String(t);
  s.dispatchEvent(new g.Event('input'));
  return t;
}

/** `wait` in ms, or NaN when it did not finish within `capMs`. */
async function timed(capMs: number, wait: (timeout: number) => Promise<unknown>): Promise<number> {
  const started = Date.now();
  try {
    await wait(capMs);
  } catch (err) {
    if (err instanceof Error && err.name === 'TimeoutError') return NaN;
    throw err;
  }
  return Date.now() - started;
}

async function measure(browser: Browser, file: string, query: string, capMs: number): Promise<PlayerRun> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route('**', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
  const page: Page = await context.newPage();
  try {
    const firstFrameMs = await timed(capMs, async (timeout) => {
      await page.goto(pathToFileURL(file).href + query, { timeout, waitUntil: 'commit' });
      await page.waitForFunction(hasInk, null, { timeout, polling: 50 });
    });
    if (Number.isNaN(firstFrameMs)) return { firstFrameMs, seekMs: NaN, seekInk: false, heapBytes: 0, cappedMs: capMs };
    let middle = 0;
    const seekMs = await timed(capMs, async (timeout) => {
      middle = await page.evaluate(seekToMiddle);
      await page.waitForFunction(atPosition, middle, { timeout, polling: 50 });
    });
    const seekInk =
      !Number.isNaN(seekMs) &&
      (await page.waitForFunction(hasInk, middle, { timeout: 5_000, polling: 50 }).then(
        () => true,
        () => false,
      ));
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const heapBytes = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
    return { firstFrameMs, seekMs, seekInk, heapBytes, cappedMs: capMs };
  } finally {
    await context.close();
  }
}

/** How long a step of the subject may take (a failure beyond it), and of the baseline (then reported as "> cap"). */
const SUBJECT_CAP_MS = 300_000;
const BASELINE_CAP_MS = 120_000;
/** The largest page the baseline is run on. */
const BASELINE_MAX_MB = 30;

export async function measurePlayer(opts: {
  sizesMB: readonly number[];
  log: (line: string) => void;
}): Promise<PlayerResult> {
  const dir = await mkdtemp(join(tmpdir(), 'replay-export-bench-player-'));
  const browser = await launchChromium();
  try {
    const pages: PlayerResult['pages'] = [];
    for (const mb of opts.sizesMB) {
      const written = await writePlayerPage(dir, `bench-player/${1795308171251 + mb}`, mb * 1e6);
      opts.log(`  ${mb} MB page: ${written.events} events, ${(written.durationMs / 1000).toFixed(0)} s of replay`);
      // Paused, so that the position stays where the seek put it while the page works.
      const subject = await measure(browser, written.file, '?paused', SUBJECT_CAP_MS);
      // Past BASELINE_MAX_MB the baseline does not finish: at 100 MB its page never answered a seek within minutes.
      const baseline =
        mb <= BASELINE_MAX_MB ? await measure(browser, written.file, '?paused&canvas=all', BASELINE_CAP_MS) : undefined;
      const against = (ms: number | undefined): string =>
        ms === undefined ? '(baseline not run at this size)' : `vs ${ms} ms`;
      opts.log(
        `    first frame ${subject.firstFrameMs} ms ${against(baseline?.firstFrameMs)}; seek ${subject.seekMs} ms ${against(baseline?.seekMs)}`,
      );
      pages.push({
        label: `${mb} MB`,
        eventBytes: written.eventBytes,
        events: written.events,
        durationMs: written.durationMs,
        subject,
        baseline,
      });
    }
    return { pages };
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
}
