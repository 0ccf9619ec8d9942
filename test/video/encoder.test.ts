/**
 * The encoder page takes frames by index, in any order and several at once, and encodes them in index order: the
 * render sends each frame as soon as it is captured, by two pages at once.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../src/video/browser.js';
import { loadEncoder } from '../../src/video/encoder.js';
import { imageDifference, readVideo, videoFrame } from './helpers.js';

const W = 160;
const H = 120;
let dir: string;
let browser: Browser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-encoder-'));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A picture of one colour, W×H, as a base64 JPEG (what a capture gives) or a PNG. */
async function solid(context: BrowserContext, colour: string, type: 'jpeg' | 'png'): Promise<string> {
  const page = await context.newPage();
  try {
    await page.setViewportSize({ width: W, height: H });
    await page.setContent(`<body style="margin:0;background:${colour}">`);
    return (await page.screenshot({ type })).toString('base64');
  } finally {
    await page.close();
  }
}

describe('the encoder page', () => {
  it('encodes frames given out of order, and a frame repeated, in index order', async () => {
    const blank = join(dir, 'encoder.html');
    await writeFile(
      blank,
      `<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>encoder</title>`,
    );
    const context = await browser.newContext();
    try {
      const [red, blue] = [await solid(context, '#f00', 'jpeg'), await solid(context, '#00f', 'jpeg')];
      const out = join(dir, 'order.mp4');
      const encoder = await (await loadEncoder(context, pathToFileURL(blank).href)).open({
        format: 'mp4',
        width: W,
        height: H,
        fps: 10,
        path: out,
      });
      // Frame 2 (the one before again) and 1 are sent before frame 0, all at once.
      const calls = [encoder.again(2), encoder.add(blue, 1), encoder.add(red, 0)];
      await Promise.all(calls);
      await encoder.finish();

      const facts = await readVideo(out);
      expect(facts.packets).toBe(3);
      expect(facts.duration).toBeCloseTo(0.3, 5);
      const expected = {
        red: Buffer.from(await solid(context, '#f00', 'png'), 'base64'),
        blue: Buffer.from(await solid(context, '#00f', 'png'), 'base64'),
      };
      for (const [seconds, colour] of [
        [0.05, 'red'],
        [0.15, 'blue'],
        [0.25, 'blue'],
      ] as const) {
        const diff = await imageDifference(browser, await videoFrame(browser, dir, out, seconds), expected[colour]);
        expect(diff.mean, `the frame at ${seconds} s is ${colour}`).toBeLessThan(20);
      }
    } finally {
      await context.close();
    }
  });
});
