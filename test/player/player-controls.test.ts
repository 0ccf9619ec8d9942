/**
 * The viewer's controls of the offline player (issue #15), in a real Chromium with every request refused: markers
 * and the side list, idle periods and skipping them, the keyboard, fullscreen, the replay scaled to the window, time
 * as h:mm:ss, the recorded URL and start date. A screenshot per state goes to test-output/player/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { offlineContext, ready, sample, shots, writePage } from './helpers.js';

type Ev = { type: number; data: Record<string, unknown>; timestamp: number };
type Handle = { replayer: { getCurrentTime(): number; getMetaData(): { totalTime: number } } };

let dir: string;
let browser: Browser;
let page: Page;
let closeContext: () => Promise<void>;

/**
 * The form-typing sample (5 s) with a custom event at 1 s, a console error at 1.5 s, then a minute without input
 * (4.5 s → 64.5 s), a navigation to another page and a click after it.
 */
async function controlsPage(): Promise<{ file: string; href: string; idleFrom: number }> {
  const { id, events } = await sample('form-typing');
  const base = events as Ev[];
  const t0 = base[0]!.timestamp;
  const extra: Ev[] = [
    { type: 5, data: { tag: 'checkout', payload: { step: 2 } }, timestamp: t0 + 1000 },
    {
      type: 6,
      data: { plugin: 'rrweb/console@1', payload: { level: 'error', payload: ['"boom"'], trace: [] } },
      timestamp: t0 + 1500,
    },
    { type: 3, data: { source: 1, positions: [{ x: 10, y: 10, id: 1, timeOffset: 0 }] }, timestamp: t0 + 4500 },
    { type: 4, data: { href: 'https://example.test/next', width: 1024, height: 768 }, timestamp: t0 + 64_500 },
    { type: 3, data: { source: 1, positions: [{ x: 20, y: 20, id: 1, timeOffset: 0 }] }, timestamp: t0 + 65_000 },
    { type: 3, data: { source: 2, type: 2, id: 1, x: 20, y: 20 }, timestamp: t0 + 65_500 },
  ];
  const all = [...base, ...extra].sort((a, b) => a.timestamp - b.timestamp);
  const href = (base.find((e) => e.type === 4)!.data as { href: string }).href;
  // The idle period starts at the last user interaction (mouse, scroll, resize, input) before the quiet minute.
  const interactions = all.filter(
    (e) => e.type === 3 && (e.data.source as number) >= 1 && (e.data.source as number) <= 5,
  );
  const idleFrom = Math.max(...interactions.map((e) => e.timestamp).filter((t) => t < t0 + 60_000)) - t0;
  return { file: await writePage(dir, id, all), href, idleFrom };
}

const time = (): Promise<number> => page.evaluate(() => (window as unknown as Handle).replayer.getCurrentTime());
const total = (): Promise<number> =>
  page.evaluate(() => (window as unknown as Handle).replayer.getMetaData().totalTime);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-player-controls-'));
  await mkdir(shots, { recursive: true });
  browser = await launchChromium();
  const { file } = await controlsPage();
  const { context } = await offlineContext(browser, { width: 800, height: 600 });
  closeContext = () => context.close();
  page = await context.newPage();
  await ready(page, file, '?paused');
});

afterAll(async () => {
  await closeContext?.();
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the player controls', () => {
  it('shows time as h:mm:ss, the recorded URL and start date, and scales the replay to the window', async () => {
    const { href } = await controlsPage();
    await expect.poll(() => page.textContent('#info')).toContain(href);
    expect(await page.textContent('#info')).toMatch(/recorded 20\d\d-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(await page.textContent('#status')).toMatch(/^0:00:00 \/ 0:01:0\d · \d+ events$/);
    // Recorded at 1024 px wide, shown in an 800 px window: scaled down, nothing wider than the stage.
    await expect.poll(async () => Number(await page.getAttribute('#stage', 'data-scale'))).toBeLessThan(1);
    const fits = await page.evaluate(() => {
      const stage = document.getElementById('stage')!.getBoundingClientRect();
      const frame = document.querySelector('#stage iframe')!.getBoundingClientRect();
      return {
        ok: frame.width > 100 && frame.right <= stage.right + 1 && frame.bottom <= window.innerHeight + 1,
        frame: frame.toJSON(),
        stage: stage.toJSON(),
        h: window.innerHeight,
      };
    });
    expect(fits.ok, JSON.stringify(fits)).toBe(true);
    await page.screenshot({ path: join(shots, 'controls-fit.png') });
    // A wider window: larger again.
    const before = Number(await page.getAttribute('#stage', 'data-scale'));
    await page.setViewportSize({ width: 1200, height: 900 });
    await expect.poll(async () => Number(await page.getAttribute('#stage', 'data-scale'))).toBeGreaterThan(before);
    await page.setViewportSize({ width: 800, height: 600 });
  });

  it('lists markers of each kind, shades the idle minute, and a marker seeks to its time', async () => {
    const items = (await page.locator('#markers button').allTextContents()).map((t) => t.trim());
    expect(items).toContain('0:00:01 checkout');
    expect(items).toContain('0:00:01 console error "boom"');
    expect(items).toContain('0:01:04 page https://example.test/next');
    expect(items.filter((t) => t.endsWith(' click')).length).toBeGreaterThanOrEqual(2);
    // Text from the recording is text: no link anywhere in the list.
    expect(await page.locator('#markers a').count()).toBe(0);
    const idle = await page
      .locator('#timeline .idle')
      .evaluateAll((spans) =>
        spans.map((s) => [parseFloat((s as HTMLElement).style.left), parseFloat((s as HTMLElement).style.width)]),
      );
    const end = await total();
    const { idleFrom } = await controlsPage();
    expect(idle).toHaveLength(1);
    expect(idle[0]![0]).toBeCloseTo((idleFrom / end) * 100, 1);
    expect(idle[0]![1]).toBeCloseTo(((65_000 - idleFrom) / end) * 100, 1);
    await page.screenshot({ path: join(shots, 'controls-markers.png') });
    await page.click('#markers button:text-is("0:00:01 checkout")');
    await expect.poll(time).toBeGreaterThanOrEqual(990);
    expect(await time()).toBeLessThan(1100);
    await page.click('#markers button:text-is("0:01:04 page https://example.test/next")');
    await expect.poll(time).toBeGreaterThanOrEqual(64_400);
    await expect.poll(() => page.textContent('#info')).toContain('https://example.test/next');
  });

  it('keys: ←/→ ±5 s, Home/End, Space plays and pauses, F asks for fullscreen; none reaches the replay', async () => {
    await page.keyboard.press('Home');
    await expect.poll(time).toBeLessThan(50);
    await page.keyboard.press('ArrowRight');
    await expect.poll(time).toBeGreaterThanOrEqual(4990);
    expect(await time()).toBeLessThan(5100);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(time).toBeLessThan(5100);
    expect(await time()).toBeGreaterThanOrEqual(4990);
    await page.keyboard.press('End');
    await expect.poll(time).toBeGreaterThanOrEqual((await total()) - 50);
    await page.keyboard.press('Home');
    await page.keyboard.press(' ');
    await expect.poll(() => page.textContent('#play')).toBe('Pause');
    await page.screenshot({ path: join(shots, 'controls-playing.png') });
    await page.keyboard.press(' ');
    await expect.poll(() => page.textContent('#play')).toBe('Play');
    await page.keyboard.press('f');
    expect(await page.getAttribute('body', 'data-fullscreen-requested')).toBe('true');
    await page.screenshot({ path: join(shots, 'controls-fullscreen.png') });
    await page.keyboard.press('f');
    expect(await page.getAttribute('body', 'data-fullscreen-requested')).toBe('false');
    const focusInReplay = await page.evaluate(() => {
      const stage = document.getElementById('stage')!;
      return stage.contains(document.activeElement) || document.activeElement?.tagName === 'IFRAME';
    });
    expect(focusInReplay).toBe(false);
  });

  it('skip inactivity (on by default) passes over the idle minute; off, replay time never runs ahead of the clock', async () => {
    expect(await page.isChecked('#skip')).toBe(true);
    // From the start: the replayer speeds up when it reaches the last interaction before the quiet minute.
    await page.keyboard.press('Home');
    await page.click('#play');
    await expect.poll(time, { timeout: 20_000, interval: 200 }).toBeGreaterThan(30_000);
    await page.click('#play');

    await page.uncheck('#skip');
    await page.keyboard.press('Home');
    const from = await time();
    const started = Date.now();
    await page.click('#play');
    await page.waitForTimeout(2000);
    const advanced = (await time()) - from;
    const elapsed = Date.now() - started;
    await page.click('#play');
    expect(advanced).toBeGreaterThan(0);
    expect(advanced).toBeLessThanOrEqual(elapsed + 250);
    await page.check('#skip');
  });
});
