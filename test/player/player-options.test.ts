/**
 * The player's options and programmatic interface (issue #29, item 9), in Chromium, offline: the replay area's
 * width/height, speed, autoplay, controls and skip inactivity from the page's URL and from the library's options
 * (the URL wins), hostile URL values clamped or ignored, and `window.player`'s methods and events (rrweb-player's
 * shape). Screenshots into test-output/player/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { resolveSettings } from '../../src/index.js';
import { loaded, offlineContext, sample, shots, writePage } from './helpers.js';

let dir: string;
let browser: Browser;
let context: BrowserContext;
let file: string;
/** The same replay written with the library's player options. */
let withOptions: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-player-options-'));
  await mkdir(shots, { recursive: true });
  browser = await launchChromium();
  const { id, events } = await sample('form-typing');
  file = await writePage(dir, id, events);
  withOptions = await writePage(join(dir, 'options'), id, events, {
    width: 480,
    height: 300,
    autoPlay: false,
    speed: 2,
    skipInactive: false,
  });
  ({ context } = await offlineContext(browser, { width: 1280, height: 800 }));
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** What the page shows of its options. */
interface Shown {
  stage: { width: number; height: number };
  frame: { width: number; height: number };
  speed: string;
  configSpeed: number;
  skip: boolean;
  configSkip: boolean;
  playing: boolean;
  /** Played to the end (at 16× the sample ends within a second). */
  finished: boolean;
  topHeight: number;
  sideHeight: number;
  scrollWidth: number;
  innerWidth: number;
}

type Win = {
  replayer: { config: { speed: number; skipInactive: boolean }; getCurrentTime(): number };
  player: {
    play(): void;
    pause(): void;
    toggle(): void;
    goto(t: number, play?: boolean): void;
    setSpeed(s: number): void;
    toggleSkipInactive(): void;
    setSize(w?: number, h?: number): void;
    getMetaData(): { totalTime: number };
    getCurrentTime(): number;
    getReplayer(): unknown;
    ready(): boolean;
    addEventListener(name: string, handler: (e: { payload: unknown }) => void): void;
    removeEventListener(name: string, handler: (e: { payload: unknown }) => void): void;
  };
  told: Array<[string, unknown]>;
};

async function open(path: string, query: string): Promise<Page> {
  const page = await context.newPage();
  await loaded(page, path, query);
  await page.waitForFunction(() => document.getElementById('stage')!.hasAttribute('data-scale'));
  return page;
}

function shown(page: Page): Promise<Shown> {
  return page.evaluate(() => {
    const w = window as unknown as Win;
    const box = (el: Element): { width: number; height: number } => {
      const r = el.getBoundingClientRect();
      return { width: r.width, height: r.height };
    };
    return {
      stage: box(document.getElementById('stage')!),
      frame: box(document.querySelector('#stage iframe')!),
      speed: (document.getElementById('speed') as HTMLSelectElement).value,
      configSpeed: w.replayer.config.speed,
      skip: (document.getElementById('skip') as HTMLInputElement).checked,
      configSkip: w.replayer.config.skipInactive,
      playing: document.getElementById('play')!.hasAttribute('data-playing'),
      finished: document.body.hasAttribute('data-finished'),
      topHeight: document.getElementById('top')!.getBoundingClientRect().height,
      sideHeight: document.getElementById('side')!.getBoundingClientRect().height,
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
    };
  });
}

describe('the player options from the URL (issue #29 item 9)', () => {
  it('?width=&height= size the replay area; the replay (1024×768) is fitted inside it', async () => {
    const page = await open(file, '?paused&width=640&height=360');
    const s = await shown(page);
    expect(s.stage).toEqual({ width: 640, height: 360 });
    // Fitted: the height limits (360/768 < 640/1024), the width follows the recording's shape.
    expect(s.frame.height).toBeCloseTo(360, 0);
    expect(Math.abs(s.frame.width - 480)).toBeLessThan(1.5);
    await page.screenshot({ path: join(shots, 'options-640x360.png') });
    await page.close();
  });

  it('?width= alone: the height follows the recording; a width beyond the window is held to it', async () => {
    const page = await open(file, '?paused&width=512');
    const s = await shown(page);
    // 512 px for the frame's 1024 px and its border: 384 px high, or one more (rounded up).
    expect(s.stage.width).toBe(512);
    expect(s.stage.height).toBeGreaterThanOrEqual(384);
    expect(s.stage.height).toBeLessThanOrEqual(385);
    await page.close();
    const wide = await open(file, '?paused&width=5000');
    const w = await shown(wide);
    expect(w.scrollWidth).toBeLessThanOrEqual(w.innerWidth);
    expect(w.stage.width).toBeLessThan(1280);
    await wide.close();
  });

  it('?speed=, ?skip=0, ?autoplay=0: the menus show them and the Replayer uses them', async () => {
    const page = await open(file, '?speed=4&skip=0&autoplay=0');
    const s = await shown(page);
    expect([s.speed, s.configSpeed, s.skip, s.configSkip, s.playing]).toEqual(['4', 4, false, false, false]);
    await page.close();
    // Without options: playing, 1×, skipping.
    const plain = await open(file, '');
    const p = await shown(plain);
    expect([p.speed, p.configSpeed, p.skip, p.configSkip]).toEqual(['1', 1, true, true]);
    await plain.close();
  });

  it('?controls=0 hides the bar, the timeline and the side panel; the keys still play', async () => {
    const page = await open(file, '?paused&controls=0');
    const s = await shown(page);
    expect(s.topHeight).toBe(0);
    expect(s.sideHeight).toBe(0);
    const top = await page.evaluate(() => document.getElementById('stage')!.getBoundingClientRect().top);
    expect(top).toBeLessThan(20);
    await page.keyboard.press(' ');
    await expect.poll(async () => (await shown(page)).playing).toBe(true);
    await page.screenshot({ path: join(shots, 'options-no-controls.png') });
    await page.close();
  });

  it('hostile values are clamped or ignored and the page plays', async () => {
    const query =
      '?width=-5&height=%3Cscript%3Ealert(1)%3C/script%3E&speed=1e308&autoplay=maybe&controls=%22%3E%3Cb%3E&skip=2&scale=x&t=abc&unknown=1';
    const page = await open(file, query);
    const s = await shown(page);
    expect([s.speed, s.configSpeed, s.skip, s.playing || s.finished]).toEqual(['16', 16, true, true]);
    expect(s.topHeight).toBeGreaterThan(20);
    expect(s.scrollWidth).toBeLessThanOrEqual(s.innerWidth);
    expect(s.stage.width).toBeGreaterThan(640);
    await page.close();
    const tiny = await open(file, '?paused&width=1&height=0.5&speed=0.0001');
    const t = await shown(tiny);
    expect(t.stage).toEqual({ width: 100, height: 100 });
    expect(t.speed).toBe('0.5');
    await tiny.close();
    const near = await open(file, '?paused&speed=3');
    expect((await shown(near)).speed).toBe('4');
    await near.close();
  });
});

describe('the speed after a seek', () => {
  it('a canvas replay rebuilt at the seek keeps the chosen speed', async () => {
    const { id, events } = await sample('canvas-drawing');
    const canvas = await writePage(join(dir, 'canvas'), id, events);
    const page = await open(canvas, '?paused');
    await page.selectOption('#speed', '4');
    await page.evaluate(() => {
      const seek = document.getElementById('seek') as HTMLInputElement;
      seek.value = '1000';
      seek.dispatchEvent(new Event('input'));
    });
    expect(await page.evaluate(() => (window as unknown as Win).replayer.config.speed)).toBe(4);
    await page.close();
  });
});

describe("the library's player options (OutputSpec.player)", () => {
  it('are written into the page; the URL overrides them', async () => {
    const page = await open(withOptions, '');
    const s = await shown(page);
    expect(s.stage).toEqual({ width: 480, height: 300 });
    expect([s.speed, s.configSpeed, s.skip, s.playing]).toEqual(['2', 2, false, false]);
    await page.close();
    const over = await open(withOptions, '?speed=8&width=800&autoplay=1');
    const o = await shown(over);
    expect(o.stage.width).toBe(800);
    expect([o.speed, o.playing || o.finished]).toEqual(['8', true]);
    await over.close();
  });

  it('resolveSettings checks them', () => {
    expect(resolveSettings({ format: 'html', player: { width: 640, speed: 2 } }).output.player).toEqual({
      width: 640,
      speed: 2,
    });
    expect(() => resolveSettings({ player: { speed: 3 } })).toThrow(/player\.speed must be/);
    expect(() => resolveSettings({ player: { width: 50 } })).toThrow(/player\.width must be/);
  });
});

describe('window.player (rrweb-player shaped)', () => {
  it('play, pause, toggle, goto, setSpeed, toggleSkipInactive, setSize, getMetaData, and their events', async () => {
    const page = await open(file, '?paused');
    await page.evaluate(() => {
      const w = window as unknown as Win;
      w.told = [];
      for (const name of ['ui-update-player-state', 'ui-update-current-time', 'ui-update-progress', 'finish']) {
        w.player.addEventListener(name, (e) => w.told.push([name, e.payload]));
      }
    });
    const told = (name: string): Promise<unknown[]> =>
      page.evaluate((n) => (window as unknown as Win).told.filter((t) => t[0] === n).map((t) => t[1]), name);
    // Each function runs in the page, where its parameter's default is the page's window.
    const call = <T>(fn: (w?: Win) => T): Promise<T> => page.evaluate(fn as never) as Promise<T>;
    const near = (values: unknown[], v: number, by: number): boolean =>
      values.some((x) => Math.abs(Number(x) - v) < by);

    expect(await call((w: Win = window as unknown as Win) => w.player.ready())).toBe(true);
    const total = await call((w: Win = window as unknown as Win) => w.player.getMetaData().totalTime);
    expect(total).toBeGreaterThan(4000);

    await call((w: Win = window as unknown as Win) => w.player.goto(3000));
    expect(await call((w: Win = window as unknown as Win) => w.player.getCurrentTime())).toBeCloseTo(3000, -1);
    expect(await call((w: Win = window as unknown as Win) => w.replayer.getCurrentTime())).toBeCloseTo(3000, -1);
    await expect.poll(async () => near(await told('ui-update-current-time'), 3000, 5)).toBe(true);
    expect(near(await told('ui-update-progress'), 3000 / total, 0.002)).toBe(true);

    await call((w: Win = window as unknown as Win) => w.player.play());
    await call((w: Win = window as unknown as Win) => w.player.pause());
    await call((w: Win = window as unknown as Win) => w.player.toggle());
    expect(await told('ui-update-player-state')).toEqual(['playing', 'paused', 'playing']);
    expect((await shown(page)).playing).toBe(true);

    // goto(t, false): paused there; goto(t, true): playing from there.
    await call((w: Win = window as unknown as Win) => w.player.goto(1000, false));
    expect(await call((w: Win = window as unknown as Win) => w.player.getCurrentTime())).toBeCloseTo(1000, -1);
    expect((await shown(page)).playing).toBe(false);
    await page.evaluate((t) => (window as unknown as Win).player.goto(t, true), total - 300);
    await expect.poll(() => told('finish'), { timeout: 10_000 }).toEqual([null]);
    expect((await told('ui-update-player-state')).slice(-3)).toEqual(['paused', 'playing', 'paused']);

    await call((w: Win = window as unknown as Win) => w.player.setSpeed(8));
    await call((w: Win = window as unknown as Win) => w.player.toggleSkipInactive());
    let s = await shown(page);
    expect([s.speed, s.configSpeed, s.skip, s.configSkip]).toEqual(['8', 8, false, false]);
    await call((w: Win = window as unknown as Win) => w.player.toggleSkipInactive());
    expect((await shown(page)).configSkip).toBe(true);

    await call((w: Win = window as unknown as Win) => w.player.setSize(400, 300));
    s = await shown(page);
    expect(s.stage).toEqual({ width: 400, height: 300 });
    expect(Math.abs(s.frame.width - 400)).toBeLessThan(1.5);
    await call((w: Win = window as unknown as Win) => w.player.setSize());
    expect((await shown(page)).stage.width).toBeGreaterThan(640);

    expect(await call((w: Win = window as unknown as Win) => w.player.getReplayer() === w.replayer)).toBe(true);
    await expect(
      call((w: Win = window as unknown as Win) => w.player.addEventListener('no-such-event', () => {})),
    ).rejects.toThrow(/no event no-such-event/);
    await expect(call((w: Win = window as unknown as Win) => w.player.goto(Number.NaN))).rejects.toThrow(
      /finite number/,
    );
    // A handler that throws does not stop the player or the other handlers.
    const before = (await told('ui-update-current-time')).length;
    await call((w: Win = window as unknown as Win) => {
      w.player.addEventListener('ui-update-current-time', () => {
        throw new Error('an embedder bug');
      });
      w.player.goto(2000);
    });
    expect((await told('ui-update-current-time')).length).toBeGreaterThan(before);
    await page.close();
  });
});
