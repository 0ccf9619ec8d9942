/**
 * The four defects of issue #15, each seen in a real Chromium playing a written html page offline: recorded code
 * never runs and nothing leaves the page, the viewer's keyboard never reaches the replay, `?paused` starts at 0:00
 * with a working Play, and a backward seek on a canvas replay redraws the canvas.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { offlineContext, ready, sample, shots, writePage } from './helpers.js';
import { recordHostile } from './hostile.js';

let dir: string;
let browser: Browser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-player-defects-'));
  await mkdir(shots, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const writePageHere = (replayId: string, events: unknown[]): Promise<string> => writePage(dir, replayId, events);
const offline = (): ReturnType<typeof offlineContext> => offlineContext(browser);

type ReplayerHandle = {
  replayer: { pause(t?: number): void; getCurrentTime(): number; getMetaData(): { totalTime: number } };
};

describe('defect 1: nothing from the recording runs, nothing leaves the page', () => {
  it('plays a recorded hostile page without running any vector or making any request', async () => {
    const events = await recordHostile();
    // The recording really holds the vectors, in the snapshot and in mutations.
    const recorded = JSON.stringify(events);
    for (const needle of [
      'onerror',
      'onanimationstart',
      'ontoggle',
      'srcdoc',
      'javascript:',
      'refresh',
      'pwned:m-img',
    ]) {
      expect(recorded).toContain(needle);
    }

    const file = await writePageHere('hostile', events);
    const { context, requests } = await offline();
    const page = await context.newPage();
    const messages: string[] = [];
    await page.exposeFunction('__seenMessage', (m: string) => messages.push(m));
    await page.addInitScript(() => {
      window.addEventListener('message', (e) =>
        (window as unknown as { __seenMessage(m: string): void }).__seenMessage(String(e.data)),
      );
    });
    await ready(page, file);
    await page.waitForSelector('body[data-finished="true"]', { timeout: 20_000 });
    await page.evaluate(() => {
      const r = (window as unknown as ReplayerHandle).replayer;
      r.pause(r.getMetaData().totalTime);
    });
    await page.waitForTimeout(1000);
    const seen = await page.evaluate(() => {
      const doc = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument!;
      const bad: string[] = [];
      for (const el of Array.from(doc.querySelectorAll('*'))) {
        for (const a of Array.from(el.attributes)) {
          const v = a.value.replace(/[\u0000-\u0020]/g, '');
          if (/^on/i.test(a.name) || a.name === 'srcdoc' || /^javascript:/i.test(v))
            bad.push(`${el.tagName} ${a.name}`);
        }
        const tag = el.tagName.toLowerCase();
        if (tag === 'meta' && el.hasAttribute('http-equiv')) bad.push('meta http-equiv');
        if (tag === 'base' && el.hasAttribute('href')) bad.push('base href');
        if (tag === 'form' && el.hasAttribute('action')) bad.push('form action');
        if ((tag === 'object' && el.hasAttribute('data')) || (tag === 'embed' && el.hasAttribute('src'))) bad.push(tag);
      }
      return { hits: (window as unknown as { __hits?: string[] }).__hits ?? [], bad, text: doc.body?.innerText ?? '' };
    });
    await page.screenshot({ path: join(shots, 'hostile-replayed.png') });
    await context.close();
    expect(seen.text).toContain('hostile page');
    expect(seen.text).toContain('m-link');
    expect(seen.hits).toEqual([]);
    expect(messages.filter((m) => m.startsWith('pwned'))).toEqual([]);
    expect(seen.bad).toEqual([]);
    expect(requests).toEqual([]);
  });
});

// ---- defect 2: focus -------------------------------------------------------------------------------------------
describe('defect 2: the viewer keeps the keyboard', () => {
  it('keys typed while the replay plays do not reach the replayed form', async () => {
    const { id, events } = await sample('form-typing');
    const file = await writePageHere(id, events);
    const { context } = await offline();
    const page = await context.newPage();
    await ready(page, file);
    // Type all through playback; the value is read where playback ends, without a seek (which would rebuild it).
    for (let i = 0; i < 120 && !(await page.$('body[data-finished="true"]')); i++) {
      if (i === 4) await page.screenshot({ path: join(shots, 'playing.png') });
      await page.keyboard.type('xyz', { delay: 10 });
      await page.waitForTimeout(150);
    }
    const value = await page.evaluate(() => {
      const doc = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument!;
      return (doc.querySelector('#name') as HTMLInputElement).value;
    });
    await context.close();
    expect(value).toBe('Ada Lovelace');
  });
});

// ---- defect 3: ?paused -----------------------------------------------------------------------------------------
describe('defect 3: ?paused', () => {
  it('shows 0:00:00 and plays when Play is pressed', async () => {
    const { id, events } = await sample('form-typing');
    const file = await writePageHere(id, events);
    const { context } = await offline();
    const page = await context.newPage();
    await ready(page, file, '?paused');
    await page.waitForTimeout(300);
    const before = await page.textContent('#status');
    await page.screenshot({ path: join(shots, 'paused.png') });
    await page.click('#play');
    await page.waitForTimeout(1500);
    const after = await page.evaluate(() => (window as unknown as ReplayerHandle).replayer.getCurrentTime());
    const shown = await page.textContent('#status');
    await context.close();
    expect(before).toMatch(/^0:00:00 \/ 0:00:\d\d /);
    expect(after).toBeGreaterThan(500);
    expect(shown).not.toContain('-');
  });
});

// ---- defect 4: backward seek on canvas -----------------------------------------------------------------------------
describe('defect 4: a backward seek while paused redraws the canvas', () => {
  it('has ink on the canvas after seeking back from 2.4 s to 1.2 s', async () => {
    const { id, events } = await sample('canvas-drawing');
    const file = await writePageHere(id, events);
    const { context } = await offline();
    const page = await context.newPage();
    await ready(page, file, '?paused');
    const seekTo = async (t: number): Promise<number> => {
      await page.evaluate((ms) => {
        const seek = document.getElementById('seek') as HTMLInputElement;
        seek.value = String(ms);
        seek.dispatchEvent(new Event('input'));
      }, t);
      // Canvas frames are decoded asynchronously: wait (up to 5 s) for ink to appear rather than a fixed time.
      let ink = 0;
      for (let tries = 0; tries < 20 && ink === 0; tries++) {
        await page.waitForTimeout(250);
        ink = await countInk();
      }
      return ink;
    };
    const countInk = (): Promise<number> =>
      page.evaluate(() => {
        const doc = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument!;
        const canvas = doc.querySelector('canvas')!;
        const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let ink = 0;
        for (let i = 0; i < data.length; i += 4) {
          const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
          if (a > 128 && ((r > 150 && g < 100 && b < 100) || (b > 150 && r < 100 && g < 100))) ink++;
        }
        return ink;
      });
    const late = await seekTo(2400);
    const early = await seekTo(1200);
    await context.close();
    expect(late).toBeGreaterThan(0);
    expect(early).toBeGreaterThan(0);
  });
});
