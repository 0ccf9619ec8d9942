/**
 * The side panels in a 360 px window (issue #29, items 3 and 7), in Chromium, offline: each of Console, Network and
 * Events opened in turn (with long entries: a URL and a log line with no space to break at, a large payload in the
 * inspector), nothing scrolls sideways, and every control and the open panel's own stay within the window and
 * answer a click. Screenshots `narrow-<panel>-360.png` into test-output/player/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { loaded, offlineContext, sample, shots, writePage } from './helpers.js';

type Ev = { type: number; data: Record<string, unknown>; timestamp: number };

let dir: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const LONG = 'x'.repeat(400);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-viewer-narrow-'));
  await mkdir(shots, { recursive: true });
  browser = await launchChromium();
  const { id, events } = await sample('form-typing');
  const base = events as Ev[];
  const t0 = base[0]!.timestamp;
  const extra: Ev[] = [
    {
      type: 6,
      data: { plugin: 'rrweb/console@1', payload: { level: 'log', payload: [JSON.stringify(LONG)], trace: [] } },
      timestamp: t0 + 500,
    },
    {
      type: 6,
      data: { plugin: 'rrweb/console@1', payload: { level: 'error', payload: ['"failed"'], trace: [] } },
      timestamp: t0 + 800,
    },
    { type: 5, data: { tag: `checkout-${LONG}`, payload: { step: 2, blob: LONG } }, timestamp: t0 + 1500 },
    {
      type: 6,
      data: {
        plugin: 'rrweb/network@1',
        payload: {
          requests: [{ name: `https://api.example/${LONG}`, method: 'POST', status: 500, initiatorType: 'fetch' }],
        },
      },
      timestamp: t0 + 2000,
    },
  ];
  const file = await writePage(
    dir,
    id,
    [...base, ...extra].sort((a, b) => a.timestamp - b.timestamp),
  );
  ({ context } = await offlineContext(browser, { width: 360, height: 740 }));
  page = await context.newPage();
  await loaded(page, file, '?paused');
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The elements (by selector) that are not wholly inside the window sideways, and the page's scroll width. */
function outside(selectors: string[]): Promise<{ cut: string[]; scrollWidth: number; innerWidth: number }> {
  return page.evaluate((list) => {
    const cut = list.filter((sel) => {
      const el = document.querySelector(sel);
      if (!el) return true;
      const r = el.getBoundingClientRect();
      return r.width === 0 || r.left < 0 || r.right > window.innerWidth + 0.5;
    });
    return { cut, scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth };
  }, selectors);
}

const CONTROLS = ['#play', '#seek', '#speed', '#skip', '#fullscreen', '#status', '#timeline', '#tabs'];

describe('the side panels at 360 px (issue #29)', () => {
  it.each([
    ['Console', 'console', ['#console-level', '#console-filter', '#console button']],
    ['Network', 'network', ['#network button']],
    ['Events', 'events', ['#custom button']],
  ])(
    '%s: opens, nothing scrolls sideways, the controls and its entries are in the window and answer',
    async (tab, name, own) => {
      await page.click(`#tabs button:text-is("${tab}")`);
      await expect.poll(() => page.getAttribute(`#tabs button:text-is("${tab}")`, 'aria-selected')).toBe('true');
      // An entry chosen: its (long) payload shows in the inspector, which must not widen the page either.
      await page.locator(own.at(-1)!).first().click();
      await expect.poll(() => page.textContent('#inspector')).not.toBe('');
      const o = await outside([...CONTROLS, ...own, '#inspector']);
      expect(o.cut).toEqual([]);
      expect(o.scrollWidth).toBeLessThanOrEqual(o.innerWidth);
      // The panel follows the replay: the stage is as high as the fitted replay (in a column, flex grew it to the
      // recording's unscaled height, leaving a blank of ~500 px).
      const { stage, frame } = await page.evaluate(() => ({
        stage: document.getElementById('stage')!.getBoundingClientRect().height,
        frame: document.querySelector('#stage iframe')!.getBoundingClientRect().height,
      }));
      expect(stage - frame).toBeLessThan(4);
      // The controls answer: the panel's entry seeked, Play plays and pauses.
      const at = await page.evaluate(() =>
        (window as unknown as { replayer: { getCurrentTime(): number } }).replayer.getCurrentTime(),
      );
      expect(at).toBeGreaterThan(400);
      await page.click('#play');
      await expect.poll(() => page.getAttribute('#play', 'data-playing')).toBe('');
      await page.click('#play');
      await expect.poll(() => page.getAttribute('#play', 'data-playing')).toBe(null);
      await page.locator('#side').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(shots, `narrow-${name}-360.png`), fullPage: true });
    },
  );
});
