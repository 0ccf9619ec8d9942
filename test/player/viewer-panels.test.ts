/**
 * The player's panels and timeline (issue #29, items 7 and 9), in Chromium, offline: console (every level of rrweb's
 * console plugin, filterable, a click seeks), network (rrweb's network plugin, or "not recorded"), custom events and
 * the inspector (payloads as text, never markup), a link to a moment (`?t=`), N/P to the next and previous marker,
 * the current marker highlighted, the playhead and the activity density on the strip.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { offlineContext, ready, sample, shots, writePage } from './helpers.js';

type Ev = { type: number; data: Record<string, unknown>; timestamp: number };

let dir: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let plain: string;
let rich: string;

const MARKUP = '<img src=x onerror=alert(1)><b>bold</b>';
const log = (level: string, text: string, at: number): Ev => ({
  type: 6,
  data: { plugin: 'rrweb/console@1', payload: { level, payload: [JSON.stringify(text)], trace: [] } },
  timestamp: at,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-viewer-panels-'));
  await mkdir(shots, { recursive: true });
  browser = await launchChromium();
  const { id, events } = await sample('form-typing');
  const base = events as Ev[];
  const t0 = base[0]!.timestamp;
  const extra: Ev[] = [
    log('log', 'started', t0 + 500),
    log('info', 'info line', t0 + 1000),
    log('warn', 'careful', t0 + 1500),
    log('error', MARKUP, t0 + 2000),
    { type: 5, data: { tag: 'checkout', payload: { step: 2, note: MARKUP } }, timestamp: t0 + 2500 },
    {
      type: 6,
      data: {
        plugin: 'rrweb/network@1',
        payload: {
          requests: [{ name: 'https://api.example/items', method: 'GET', status: 200, initiatorType: 'fetch' }],
        },
      },
      timestamp: t0 + 3000,
    },
  ];
  rich = await writePage(
    dir,
    id,
    [...base, ...extra].sort((a, b) => a.timestamp - b.timestamp),
  );
  plain = await writePage(join(dir, 'plain'), id, base);
  ({ context } = await offlineContext(browser, { width: 1280, height: 800 }));
  page = await context.newPage();
  await ready(page, rich, '?paused');
  await page.waitForSelector('body[data-loaded="true"]');
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const time = (): Promise<number> =>
  page.evaluate(() => (window as unknown as { replayer: { getCurrentTime(): number } }).replayer.getCurrentTime());
const visible = (list: string): Promise<string[]> => page.locator(`#${list} li:not([hidden])`).allTextContents();

describe('the player panels (issue #29)', () => {
  it('console: every level, filtered by level and text, a click seeks and shows the payload as text', async () => {
    await page.click('#tabs button:text-is("Console")');
    expect(await visible('console')).toEqual([
      '0:00:00 "started"',
      '0:00:01 "info line"',
      '0:00:01 "careful"',
      `0:00:02 "${MARKUP}"`,
    ]);
    await page.selectOption('#console-level', 'warn');
    expect(await visible('console')).toEqual(['0:00:01 "careful"']);
    await page.selectOption('#console-level', '');
    await page.fill('#console-filter', 'INFO');
    expect(await visible('console')).toEqual(['0:00:01 "info line"']);
    await page.fill('#console-filter', '');
    await page.click('#console button.error');
    await expect.poll(time).toBeGreaterThanOrEqual(1990);
    expect(await page.textContent('#inspector')).toContain('"level": "error"');
    expect(await page.locator('#side img, #side b').count()).toBe(0);
    await page.screenshot({ path: join(shots, 'panels-console.png') });
  });

  it('network: the recorded requests; a replay without them says "network not recorded"', async () => {
    await page.click('#tabs button:text-is("Network")');
    expect(await visible('network')).toEqual(['0:00:03 GET 200 https://api.example/items']);
    const other = await context.newPage();
    await ready(other, plain, '?paused');
    await other.waitForSelector('body[data-loaded="true"]');
    await other.click('#tabs button:text-is("Network")');
    expect(await other.locator('#network li').allTextContents()).toEqual(['network not recorded']);
    await other.close();
  });

  it('events: a custom event and the chosen marker show their payload as text in the inspector', async () => {
    await page.click('#tabs button:text-is("Events")');
    await page.click('#custom button');
    await expect.poll(() => page.textContent('#inspector')).toContain('"step": 2');
    expect(await page.textContent('#inspector')).toContain(MARKUP.replace(/"/g, '\\"'));
    expect(await page.locator('#inspector *').count()).toBe(0);
    await page.click('#tabs button:text-is("Markers")');
    await page.click('#markers button:text-is("0:00:02 checkout")');
    await expect.poll(() => page.textContent('#inspector')).toMatch(/^0:00:02 checkout\n\{\n {2}"tag": "checkout"/);
    await page.screenshot({ path: join(shots, 'panels-inspector.png') });
  });

  it('N/P go to the next and previous marker, the current one is highlighted, the playhead follows', async () => {
    await page.keyboard.press('Home');
    await expect.poll(time).toBeLessThan(50);
    const markers = (
      await page.locator('#markers button').evaluateAll((bs) => bs.map((b) => Number(b.getAttribute('data-time'))))
    ).filter((t) => t > 50);
    await page.keyboard.press('n');
    await expect.poll(time).toBeGreaterThanOrEqual(markers[0]! - 5);
    expect(await time()).toBeLessThan(markers[0]! + 100);
    await page.keyboard.press('n');
    await expect.poll(time).toBeGreaterThanOrEqual(markers[1]! - 5);
    await expect.poll(() => page.locator('#markers button.current').getAttribute('data-time')).toBe(String(markers[1]));
    await page.keyboard.press('p');
    await expect.poll(time).toBeLessThan(markers[1]! - 5);
    const { left, total } = await page.evaluate(() => ({
      left: parseFloat((document.querySelector('#timeline .playhead') as HTMLElement).style.left),
      total: (window as unknown as { replayer: { getMetaData(): { totalTime: number } } }).replayer.getMetaData()
        .totalTime,
    }));
    expect(left).toBeCloseTo(((await time()) / total) * 100, 0);
    expect(await page.locator('#timeline .density').count()).toBeGreaterThan(3);
  });

  it('?t= opens paused at that moment; the link follows the position', async () => {
    const other = await context.newPage();
    await ready(other, rich, '?t=3');
    await other.waitForSelector('body[data-loaded="true"]');
    const at = await other.evaluate(() =>
      (window as unknown as { replayer: { getCurrentTime(): number } }).replayer.getCurrentTime(),
    );
    expect(at).toBeGreaterThanOrEqual(2990);
    expect(at).toBeLessThan(3100);
    expect(await other.textContent('#play')).toBe('Play');
    expect(await other.getAttribute('#moment', 'href')).toBe('?t=3');
    await other.screenshot({ path: join(shots, 'panels-moment.png') });
    await other.close();
  });
});
