/**
 * Defects of the offline player met in use (issue #29), in a real Chromium with every request refused: a periodic
 * full snapshot's Meta event is no page marker, a link keeps its look with a neutral href, and the keys stay the
 * player's after the speed menu. A screenshot per state goes to test-output/player/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { offlineContext, ready, sample, shots, writePage } from './helpers.js';

type Ev = { type: number; data: Record<string, unknown>; timestamp: number };
type Handle = { replayer: { getCurrentTime(): number } };

let dir: string;
let browser: Browser;
let page: Page;
let requests: string[];
let closeContext: () => Promise<void>;

/** The form-typing sample's body element. */
const BODY_ID = 15;

/**
 * The form-typing sample with, at 0.5 s, a periodic checkout (a Meta event with the same URL and a full snapshot, as
 * rrweb's `checkoutEveryNms` writes), at 1 s a link to an outside URL added, and at 3 s a navigation to another URL.
 */
async function defectsPage(): Promise<string> {
  const { id, events } = await sample('form-typing');
  const base = events as Ev[];
  const t0 = base[0]!.timestamp;
  const meta = base.find((e) => e.type === 4)!;
  const snapshot = base.find((e) => e.type === 2)!;
  const link = {
    parentId: BODY_ID,
    nextId: null,
    node: {
      type: 2,
      tagName: 'a',
      attributes: { id: 'lnk', href: 'https://tracker.example/landing' },
      childNodes: [{ type: 3, textContent: 'a styled link', id: 10_001 }],
      id: 10_000,
    },
  };
  const extra: Ev[] = [
    { type: 4, data: structuredClone(meta.data), timestamp: t0 + 500 },
    { type: 2, data: structuredClone(snapshot.data), timestamp: t0 + 500 },
    { type: 3, data: { source: 0, adds: [link], removes: [], texts: [], attributes: [] }, timestamp: t0 + 1000 },
    { type: 4, data: { href: 'https://example.test/next', width: 1024, height: 768 }, timestamp: t0 + 3000 },
  ];
  const all = [...base, ...extra].sort((a, b) => a.timestamp - b.timestamp);
  return writePage(dir, id, all);
}

const time = (): Promise<number> => page.evaluate(() => (window as unknown as Handle).replayer.getCurrentTime());

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-viewer-defects-'));
  await mkdir(shots, { recursive: true });
  browser = await launchChromium();
  const file = await defectsPage();
  const offline = await offlineContext(browser, { width: 1280, height: 800 });
  requests = offline.requests;
  closeContext = () => offline.context.close();
  page = await offline.context.newPage();
  await ready(page, file, '?paused');
  await page.waitForSelector('body[data-loaded="true"]');
});

afterAll(async () => {
  await closeContext?.();
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the offline player (issue #29 defects)', () => {
  it('marks a page only when the URL changes, not at each periodic full snapshot', async () => {
    const pages = await page.locator('#markers button.page').allTextContents();
    expect(pages).toEqual(['0:00:03 page https://example.test/next']);
    expect(await page.locator('#timeline .mark.page').count()).toBe(1);
  });

  it('a link keeps its look with a neutral href and loads nothing', async () => {
    await page.keyboard.press('Home');
    await page.evaluate(() => (window as unknown as { replayer: { pause(t: number): void } }).replayer.pause(2000));
    const look = await page.evaluate(() => {
      const doc = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument!;
      const a = doc.getElementById('lnk')!;
      const style = getComputedStyle(a);
      const text = getComputedStyle(doc.body);
      return {
        href: a.getAttribute('href'),
        color: style.color,
        body: text.color,
        line: style.textDecorationLine,
        cursor: style.cursor,
      };
    });
    await page.screenshot({ path: join(shots, 'viewer-link.png') });
    expect(look.href).toBe('#');
    expect(look.line).toContain('underline');
    expect(look.color).not.toBe(look.body);
    expect(requests).toEqual([]);
  });

  it('after the speed menu, Space plays and ←/→ seek; on the menu itself too', async () => {
    await page.keyboard.press('Home');
    await expect.poll(time).toBeLessThan(50);
    await page.focus('#speed');
    await page.selectOption('#speed', '2');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('play');
    await page.keyboard.press('ArrowRight');
    await expect.poll(time).toBeGreaterThanOrEqual(4900);
    expect(await page.inputValue('#speed')).toBe('2');
    await page.keyboard.press(' ');
    await expect.poll(() => page.textContent('#play')).toBe('Pause');
    await page.keyboard.press(' ');
    await expect.poll(() => page.textContent('#play')).toBe('Play');
    // Focus left on the menu (tabbed to, nothing chosen): the keys are still the player's, not the menu's.
    await page.keyboard.press('Home');
    await page.focus('#speed');
    await page.keyboard.press('ArrowRight');
    await expect.poll(time).toBeGreaterThanOrEqual(4900);
    expect(await page.inputValue('#speed')).toBe('2');
    await page.keyboard.press(' ');
    await expect.poll(() => page.textContent('#play')).toBe('Pause');
    await page.screenshot({ path: join(shots, 'viewer-keys-after-speed.png') });
    await page.keyboard.press(' ');
  });
});
