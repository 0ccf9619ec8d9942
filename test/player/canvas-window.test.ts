/**
 * The canvas window (issue #15, large replays): the Replayer is given each canvas's frames only from the last whole
 * frame before the position to a short way ahead, the rest as playback nears them. In Chromium, offline: a seek shows
 * a drawn canvas that depends only on the position, not on the seeks before it (with every frame given at once,
 * rrweb's asynchronous frame decoding makes it differ from run to run); playing on past the first window, frames keep
 * coming (they are added on the way).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playerPageEvents, type Ev } from '../../bench/player-pages.js';
import { launchChromium } from '../../samples/lib/chromium.js';
import { offlineContext, ready, shots, writePage } from './helpers.js';

let dir: string;
let browser: Browser;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-canvas-window-'));
  browser = await launchChromium();
  // ~1,200 whole frames 40 ms apart: 48 s of canvas, far longer than the first window.
  const events: Ev[] = await playerPageEvents(3e6);
  file = await writePage(dir, 'canvas-window/1795308171251', events);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Handle = { replayer: { getCurrentTime(): number; pause(t?: number): void } };

/** A digest of the replay canvas's pixels, once it has ink (frames are drawn asynchronously). */
async function canvasDigest(page: Page): Promise<number> {
  let digest = 0;
  for (let tries = 0; tries < 40 && digest === 0; tries++) {
    await page.waitForTimeout(100);
    digest = await page.evaluate(() => {
      const c = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument!.querySelector(
        'canvas',
      )!;
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let h = 0;
      for (let i = 0; i < d.length; i++) h = (Math.imul(h, 31) + d[i]!) | 0;
      let ink = false;
      for (let i = 3; i < d.length && !ink; i += 4) ink = d[i]! > 0;
      return ink ? h || 1 : 0;
    });
  }
  // Let a late frame land (the player applies a paused seek again after 0.3 s), then read the settled state.
  await page.waitForTimeout(600);
  return page.evaluate(() => {
    const c = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument!.querySelector('canvas')!;
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let h = 0;
    for (let i = 0; i < d.length; i++) h = (Math.imul(h, 31) + d[i]!) | 0;
    return h;
  });
}

async function seek(page: Page, ms: number): Promise<void> {
  await page.evaluate((t) => {
    const s = document.getElementById('seek') as HTMLInputElement;
    s.value = String(t);
    s.dispatchEvent(new Event('input'));
  }, ms);
}

async function open(path: string, query: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const { context } = await offlineContext(browser);
  const page = await context.newPage();
  await ready(page, path, query);
  return { page, close: () => context.close() };
}

/** What a freshly opened page shows after one seek to `t`. */
async function freshAt(t: number): Promise<number> {
  const fresh = await open(file, '?paused');
  try {
    await seek(fresh.page, t);
    return await canvasDigest(fresh.page);
  } finally {
    await fresh.close();
  }
}

describe('the canvas window', () => {
  it('a seek forward or back shows a drawn canvas that depends on the position only', async () => {
    const windowed = await open(file, '?paused');
    try {
      for (const t of [20_000, 41_000, 9_000, 30_123]) {
        await seek(windowed.page, t);
        const shown = await canvasDigest(windowed.page);
        expect(shown, `at ${t} ms`).not.toBe(0);
        expect(shown, `at ${t} ms`).toBe(await freshAt(t));
      }
      await windowed.page.screenshot({ path: join(shots, 'canvas-window.png') });
    } finally {
      await windowed.close();
    }
  }, 120_000);

  it('playing on past the first window, frames keep coming', async () => {
    const windowed = await open(file, '?paused');
    try {
      await windowed.page.selectOption('#speed', '4');
      await windowed.page.click('#play');
      // 4×: the first window reaches 13 s ahead. Past it, only frames added on the way can change the canvas.
      await windowed.page.waitForFunction(
        () => (window as unknown as Handle).replayer.getCurrentTime() > 16_000,
        null,
        { timeout: 30_000 },
      );
      const seen = new Set<number>();
      for (let i = 0; i < 6; i++) {
        seen.add(
          await windowed.page.evaluate(() => {
            const c = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument!.querySelector(
              'canvas',
            )!;
            const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
            let h = 0;
            for (let k = 0; k < d.length; k++) h = (Math.imul(h, 31) + d[k]!) | 0;
            return h;
          }),
        );
        await windowed.page.waitForTimeout(150);
      }
      const at = await windowed.page.evaluate(() => (window as unknown as Handle).replayer.getCurrentTime());
      expect(at).toBeGreaterThan(16_000);
      expect(seen.size).toBeGreaterThan(1);
    } finally {
      await windowed.close();
    }
  }, 120_000);
});
