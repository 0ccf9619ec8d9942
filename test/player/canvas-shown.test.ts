/**
 * A recorded `<canvas>` is shown. In a frame whose scripting is off (sandbox without allow-scripts) a canvas shows its
 * fallback content, not its bitmap: the canvas-drawing sample's 200×120 pad was a 2×21 px box, its strokes drawn into
 * a bitmap nobody saw (in the player, `view` and the videos). The frame of a replay with a canvas is scripted; one
 * without keeps `allow-same-origin` alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { loaded, offlineContext, sample, shots, writePage } from './helpers.js';

let dir: string;
let browser: Browser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-canvas-shown-'));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The replay frame's sandbox, and its first canvas's box and drawn (dark) pixels as the screen shows them. */
async function shown(name: string): Promise<{
  sandbox: string | null;
  box: { width: number; height: number } | null;
  dark: number;
  requests: string[];
}> {
  const { id, events } = await sample(name);
  const file = await writePage(join(dir, name), id, events);
  const { context, requests } = await offlineContext(browser);
  try {
    const page = await context.newPage();
    await loaded(page, file, '?paused');
    const end = await page.evaluate(
      () =>
        (window as unknown as { replayer: { getMetaData(): { totalTime: number } } }).replayer.getMetaData().totalTime,
    );
    await page.evaluate((t) => {
      const seek = document.getElementById('seek') as HTMLInputElement;
      seek.value = String(t);
      seek.dispatchEvent(new Event('input'));
    }, end);
    const frame = page.frameLocator('#stage iframe');
    const sandbox = await page.getAttribute('#stage iframe', 'sandbox');
    if ((await frame.locator('canvas').count()) === 0) return { sandbox, box: null, dark: 0, requests };
    const canvas = frame.locator('canvas').first();
    // Its layout box in the replay's document (the player scales the frame to fit the window).
    const box = await canvas.evaluate((c) => ({
      width: (c as HTMLElement).offsetWidth,
      height: (c as HTMLElement).offsetHeight,
    }));
    // The strokes are drawn once their frames decode (the player re-applies a paused seek for 3 s): wait for them on
    // screen, then count them in a screenshot of the canvas (what a person sees, not the bitmap).
    let dark = 0;
    await expect
      .poll(
        async () => {
          const png = await canvas.screenshot({ path: join(shots, `canvas-shown-${name}.png`) });
          dark = await page.evaluate(async (b64) => {
            const img = new Image();
            img.src = `data:image/png;base64,${b64}`;
            await img.decode();
            const c = new OffscreenCanvas(img.width, img.height);
            const ctx = c.getContext('2d')!;
            ctx.drawImage(img, 0, 0);
            const d = ctx.getImageData(0, 0, img.width, img.height).data;
            let n = 0;
            for (let i = 0; i < d.length; i += 4) if (d[i]! + d[i + 1]! + d[i + 2]! < 500) n++;
            return n;
          }, png.toString('base64'));
          return dark;
        },
        { timeout: 10_000 },
      )
      .toBeGreaterThan(500);
    return { sandbox, box, dark, requests };
  } finally {
    await context.close();
  }
}

describe('a recorded canvas', () => {
  it('is shown at its size with its strokes (canvas-drawing: a 200×120 pad with a 1 px border)', async () => {
    const r = await shown('canvas-drawing');
    expect(r.sandbox).toBe('allow-same-origin allow-scripts');
    expect(r.box).toEqual({ width: 202, height: 122 });
    expect(r.dark).toBeGreaterThan(500);
    expect(r.requests).toEqual([]);
  }, 60_000);

  it('a replay without a canvas keeps a frame with no scripting', async () => {
    const r = await shown('form-typing');
    expect(r.box).toBeNull();
    expect(r.sandbox).toBe('allow-same-origin');
  }, 60_000);
});
