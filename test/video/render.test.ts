/**
 * `renderVideo` on every sample recording: the file read back by a demuxer has one packet per frame, the expected
 * duration (within a frame) and size, and its middle frame matches what the offline player shows at that time.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../src/video/browser.js';
import { frameOffsets, renderVideo, segments, type VideoProgress } from '../../src/video/index.js';
import { offlineContext, ready, sample, writePage } from '../player/helpers.js';
import { recordHostile } from '../player/hostile.js';
import { exportReplay } from '../../src/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { imageDifference, readVideo, sampleFile, videoFrame } from './helpers.js';

const shots = join(import.meta.dirname, '..', '..', 'test-output', 'video');
let dir: string;
let browser: Browser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-video-'));
  await mkdir(shots, { recursive: true });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * The offline player paused at `t` (ms), seeked with its own range control: a screenshot of the replay's frame. The
 * player fits the replay to its window, up or down: a first window measures where the replay sits, a second leaves it
 * exactly its room, so that it is shown at scale 1, as the video draws it.
 */
async function playerShot(name: string, t: number): Promise<Buffer> {
  const { id, events } = await sample(name);
  const file = await writePage(join(dir, `page-${name}`), id, events);
  const measure = await offlineContext(browser, { width: 1700, height: 1100 });
  let room: number;
  try {
    const page = await measure.context.newPage();
    await ready(page, file, '?paused');
    room = await page.evaluate(() => {
      const frame = document.querySelector('#stage iframe') as HTMLIFrameElement;
      return Math.ceil(document.getElementById('stage')!.getBoundingClientRect().top + 8 + frame.offsetHeight) + 1;
    });
  } finally {
    await measure.context.close();
  }
  const { context, requests } = await offlineContext(browser, { width: 1700, height: room });
  try {
    const page = await context.newPage();
    await ready(page, file, '?paused');
    await page.evaluate((at) => {
      const seek = document.getElementById('seek') as HTMLInputElement;
      seek.value = String(at);
      seek.dispatchEvent(new Event('input'));
    }, t);
    // Canvas frames are drawn once decoded; the player applies a paused seek again until 3 s after it.
    await page.waitForTimeout(name === 'canvas-drawing' ? 3500 : 500);
    // The replay's frame without its border, as the video shows it (at the scale the player fitted it to).
    const clip = await page.evaluate(() => {
      const frame = document.querySelector('#stage iframe') as HTMLIFrameElement;
      const r = frame.getBoundingClientRect();
      const scale = r.width / frame.offsetWidth;
      return {
        x: r.x + frame.clientLeft * scale,
        y: r.y + frame.clientTop * scale,
        width: frame.clientWidth * scale,
        height: frame.clientHeight * scale,
      };
    });
    const shot = await page.screenshot({ clip });
    expect(requests).toEqual([]);
    return shot;
  } finally {
    await context.close();
  }
}

const SAMPLES = ['form-typing', 'todo-mutations', 'long-scroll', 'canvas-drawing', 'intl-image', 'styles-resize'];

describe('renderVideo on the samples', () => {
  for (const [i, name] of SAMPLES.entries()) {
    const format = i % 2 === 0 ? 'mp4' : 'webm';
    it(`${name} → ${format}: frames, duration and size read back; the middle frame is the player's`, async () => {
      const { file } = await sampleFile(name);
      const out = join(dir, `${name}.${format}`);
      const progress: VideoProgress[] = [];
      const result = await renderVideo(
        { file },
        { out, browserInstance: browser, onProgress: (p) => progress.push(p) },
      );
      expect(result.refusedRequests).toEqual([]);
      expect(progress.at(-1)).toMatchObject({ frame: result.frames, frames: result.frames });

      const facts = await readVideo(out);
      expect(facts.codec).toMatch(format === 'mp4' ? /^avc1\./ : /^vp09\./);
      expect(facts.packets).toBe(result.frames);
      expect(facts.keyPackets).toBeGreaterThanOrEqual(1);
      expect({ width: facts.width, height: facts.height }).toEqual({ width: result.width, height: result.height });
      // One frame per 1/fps of the replay's length, the last at its end.
      const length = result.to - result.from;
      expect(result.frames).toBe(Math.floor((length * result.fps) / 1000) + 1);
      expect(Math.abs(facts.duration - length / 1000)).toBeLessThanOrEqual(1 / result.fps + 1e-6);

      const middle = Math.floor(result.frames / 2);
      const offsets = [
        ...frameOffsets(
          segments({ start: 0, end: length, interactions: [] }, { fps: result.fps, speed: 1, skipInactivity: false }),
          result.fps,
        ),
      ];
      const frame = await videoFrame(browser, dir, out, (middle + 0.5) / result.fps);
      const player = await playerShot(name, offsets[middle]!);
      await writeFile(join(shots, `${name}-video.png`), frame);
      await writeFile(join(shots, `${name}-player.png`), player);
      const diff = await imageDifference(browser, frame, player);
      expect(diff.width).toBe(result.width);
      // Dense text (long-scroll) keeps some of the codec's ringing: measured 6.2 at the encoder's bitrate; a frame of
      // another moment (the wrong scroll position) differs by far more.
      expect(diff.mean, `${name}: mean difference per channel`).toBeLessThan(7);
      // The same for pixels far off: 2.7% on long-scroll's dense text; a frame of the wrong scroll position moves every
      // line of text (most of its dark pixels).
      expect(diff.off, `${name}: share of pixels off by > 64`).toBeLessThan(name === 'long-scroll' ? 0.04 : 0.01);
    });
  }
});

describe('renderVideo on a hostile recording', () => {
  it('renders it with no recorded code run and no request made', async () => {
    const events = await recordHostile();
    expect(JSON.stringify(events)).toContain('pwned:m-img');
    async function* given(): AsyncGenerator<Buffer[]> {
      yield events.map((e) => Buffer.from(JSON.stringify(e)));
    }
    const out = join(dir, 'hostile.webm');
    const result = await renderVideo({ events: given() }, { out, browserInstance: browser });
    // Every vector requests OUTSIDE/hit/<name> when it runs: none did, and nothing else was asked for.
    expect(result.refusedRequests).toEqual([]);
    const facts = await readVideo(out);
    expect(facts.packets).toBe(result.frames);
    await writeFile(
      join(shots, 'hostile-video.png'),
      await videoFrame(browser, dir, out, (result.frames - 0.5) / result.fps),
    );
  });
});

describe('renderVideo from an archive and from the platform', () => {
  it('renders the same replay from an archive entry and from the sandbox as from its file', async () => {
    const { file, id } = await sampleFile('styles-resize');
    const sandbox = await startSandbox({});
    try {
      const platform = {
        endpoint: sandbox.url,
        apiKey: sandbox.credentials.apiKey,
        secretKey: sandbox.credentials.secretKey,
      };
      const archive = join(dir, 'archive');
      const entry = await exportReplay(id, { ...platform, out: archive, format: 'ndjson', gzip: true });
      expect(entry.status).toBe('ok');
      const fromFile = await renderVideo({ file }, { out: join(dir, 'sr-file.webm'), browserInstance: browser });
      const fromArchive = await renderVideo(
        { archive: { out: archive }, replayId: id },
        { out: join(dir, 'sr-archive.webm'), browserInstance: browser },
      );
      const fromPlatform = await renderVideo(
        { replayId: id, platform },
        { out: join(dir, 'sr-platform.webm'), browserInstance: browser },
      );
      for (const r of [fromArchive, fromPlatform]) {
        expect({ frames: r.frames, width: r.width, height: r.height, to: r.to }).toEqual({
          frames: fromFile.frames,
          width: fromFile.width,
          height: fromFile.height,
          to: fromFile.to,
        });
        expect((await readVideo(r.file)).packets).toBe(fromFile.frames);
      }
      await expect(
        renderVideo(
          { archive: { out: archive }, replayId: 'nope/1' },
          { out: join(dir, 'none.webm'), browserInstance: browser },
        ),
      ).rejects.toMatchObject({ code: 'VIDEO_BAD_OPTION' });
    } finally {
      await sandbox.close();
    }
  });
});

describe('canvas frames decoded late', () => {
  it('are waited for: with every image decode 300 ms slower, each frame shows the same canvas', async () => {
    const { file } = await sampleFile('canvas-drawing');
    const normal = join(dir, 'canvas-normal.mp4');
    const slow = join(dir, 'canvas-slow.mp4');
    await renderVideo({ file }, { out: normal, browserInstance: browser });
    // The same render where rrweb's canvas decodes (createImageBitmap) resolve 300 ms late, as on a busy machine.
    const newContext = browser.newContext.bind(browser);
    browser.newContext = async (o) => {
      const context = await newContext(o);
      await context.addInitScript(() => {
        const w = globalThis as unknown as { createImageBitmap: (...a: unknown[]) => Promise<unknown> };
        const original = w.createImageBitmap;
        w.createImageBitmap = (...a: unknown[]) =>
          new Promise((r) => setTimeout(r, 300)).then(() => original.apply(globalThis, a));
      });
      return context;
    };
    try {
      await renderVideo({ file }, { out: slow, browserInstance: browser });
    } finally {
      browser.newContext = newContext;
    }
    // Frames just after canvas frames were recorded (at 0.51, 0.76, 1.28, 1.54, 2.04 and 2.29 s of the replay).
    for (const seconds of [0.55, 0.85, 1.35, 1.65, 2.15]) {
      const diff = await imageDifference(
        browser,
        await videoFrame(browser, dir, normal, seconds),
        await videoFrame(browser, dir, slow, seconds),
      );
      // A stroke drawn or not is hundreds of pixels off; the same picture encoded twice, none.
      expect(diff.off * diff.width * diff.height, `pixels off at ${seconds} s`).toBeLessThan(20);
    }
  }, 120_000);
});
