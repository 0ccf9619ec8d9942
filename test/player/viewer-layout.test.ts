/**
 * The player's layout from 360 px to 4K (issue #29, item 3), in Chromium: the replay (recorded at 1024×768) scales
 * down and up to fit, every control stays in the window, nothing scrolls sideways, and below 720 px the side list
 * goes under the replay, right after it. Screenshots at 360, 1280 and 1920 px, light and dark, go to
 * test-output/player/ (`layout-<width>.png`, `layout-<width>-dark.png`).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { offlineContext, ready, sample, shots, writePage } from './helpers.js';

let dir: string;
let browser: Browser;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-viewer-layout-'));
  await mkdir(shots, { recursive: true });
  browser = await launchChromium();
  const { id, events } = await sample('form-typing');
  file = await writePage(dir, id, events);
});

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Layout {
  scale: number;
  scrollWidth: number;
  width: number;
  /** Controls not wholly inside the window. */
  cut: string[];
  frameRight: number;
  sideBelow: boolean;
  /** The stage's height beyond the fitted replay's (a blank between the replay and what follows). */
  stageSlack: number;
}

async function layoutAt(
  width: number,
  height: number,
  shot?: string,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<Layout> {
  const { context } = await offlineContext(browser, { width, height });
  const page = await context.newPage();
  await page.emulateMedia({ colorScheme });
  await ready(page, file, '?paused');
  await page.waitForFunction(() => document.getElementById('stage')!.hasAttribute('data-scale'));
  await page.waitForTimeout(200);
  const layout = await page.evaluate(() => {
    const inside = (id: string): boolean => {
      const r = document.getElementById(id)!.getBoundingClientRect();
      return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth + 0.5;
    };
    const cut = ['play', 'seek', 'speed', 'skip', 'fullscreen', 'status', 'timeline', 'side'].filter(
      (id) => !inside(id),
    );
    const stage = document.getElementById('stage')!.getBoundingClientRect();
    const side = document.getElementById('side')!.getBoundingClientRect();
    return {
      scale: Number(document.getElementById('stage')!.getAttribute('data-scale')),
      scrollWidth: document.documentElement.scrollWidth,
      width: window.innerWidth,
      cut,
      frameRight: document.querySelector('#stage iframe')!.getBoundingClientRect().right,
      sideBelow: side.top >= stage.bottom - 1,
      stageSlack: stage.height - document.querySelector('#stage iframe')!.getBoundingClientRect().height,
    };
  });
  if (shot) await page.screenshot({ path: join(shots, shot) });
  await context.close();
  return layout;
}

describe('the player layout (issue #29 item 3)', () => {
  it.each([
    [360, 740, 0.3, 0.4],
    [480, 800, 0.4, 0.5],
    [1280, 800, 0.7, 1.25],
    [1920, 1080, 1.1, 1.9],
    [3840, 2160, 2.2, 3.8],
  ])(
    'at %i×%i px: scale in (%f, %f), every control in the window, nothing scrolls sideways',
    async (width, height, low, high) => {
      const shot = width === 360 || width === 1280 || width === 1920 ? `layout-${width}.png` : undefined;
      const l = await layoutAt(width, height, shot);
      expect(l.cut).toEqual([]);
      expect(l.scrollWidth).toBeLessThanOrEqual(l.width);
      expect(l.frameRight).toBeLessThanOrEqual(l.width);
      expect(l.scale).toBeGreaterThan(low);
      expect(l.scale).toBeLessThan(high);
      expect(l.sideBelow).toBe(width <= 720);
      expect(l.stageSlack).toBeLessThan(4);
    },
  );

  it.each([
    [360, 740],
    [1280, 800],
    [1920, 1080],
  ])('follows the system: dark at %i×%i px', async (width, height) => {
    const l = await layoutAt(width, height, `layout-${width}-dark.png`, 'dark');
    expect(l.cut).toEqual([]);
    expect(l.scrollWidth).toBeLessThanOrEqual(l.width);
  });
});
