import type { Page } from 'playwright-core';

export interface DriveContext {
  /** When set, the scenario that shows the most (intl-image) saves a screenshot here. */
  screenshot?: string;
}

/** One page recorded as one replay. */
export interface Scenario {
  name: string;
  /** File under `samples/pages/`. */
  page: string;
  retentionInDays: 30 | 90;
  viewport: { width: number; height: number };
  /** Extra `rrweb.record` options (JSON-serialisable). */
  recordOptions: Record<string, unknown>;
  /** Drives the page with real input (mouse, keyboard, wheel). */
  drive(page: Page, ctx: DriveContext): Promise<void>;
}

const pause = (page: Page, ms: number): Promise<void> => page.waitForTimeout(ms);

async function clickAndType(page: Page, selector: string, text: string): Promise<void> {
  await page.click(selector);
  await page.keyboard.type(text, { delay: 45 });
  await pause(page, 150);
}

async function stroke(page: Page, x0: number, y0: number, points: ReadonlyArray<[number, number]>): Promise<void> {
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  for (const [x, y] of points) await page.mouse.move(x, y, { steps: 6 });
  await page.mouse.up();
  await pause(page, 400);
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'form-typing',
    page: 'form-typing.html',
    retentionInDays: 90,
    viewport: { width: 1024, height: 768 },
    recordOptions: {},
    async drive(page) {
      await page.mouse.move(200, 120, { steps: 8 });
      await clickAndType(page, '#name', 'Ada Lovelace');
      await clickAndType(page, '#email', 'ada@example.com');
      await clickAndType(page, '#password', 'correct horse');
      await page.selectOption('#plan', 'team');
      await pause(page, 150);
      await page.click('#bio');
      await page.keyboard.type('Mathematician.', { delay: 40 });
      await page.keyboard.press('Enter');
      await page.keyboard.type('Likes engines.', { delay: 40 });
      await page.keyboard.press('Backspace');
      await page.keyboard.type('!', { delay: 40 });
      await page.check('#terms');
      await page.check('#freq-weekly');
      await pause(page, 200);
      await page.click('#submit');
      await page.evaluate(`rrweb.record.addCustomEvent('signup-submitted', { plan: 'team', terms: true })`);
      await pause(page, 400);
    },
  },
  {
    name: 'todo-mutations',
    page: 'todo-mutations.html',
    retentionInDays: 30,
    viewport: { width: 1024, height: 768 },
    recordOptions: {},
    async drive(page) {
      await clickAndType(page, '#new-item', 'Water the plants');
      await page.click('#add');
      await pause(page, 400);
      await clickAndType(page, '#new-item', 'Book flights 🛫');
      await page.keyboard.press('Enter');
      await page.click('#add');
      await pause(page, 400);
      await page.click('#list li:nth-child(1) span');
      await pause(page, 200);
      await page.click('#list li:nth-child(2) .remove');
      await pause(page, 200);
      await page.click('#toggle-theme');
      await pause(page, 300);
      await page.mouse.move(600, 500, { steps: 10 });
      await page.click('#toggle-theme');
      await pause(page, 200);
      await page.click('#list li:last-child span');
      await pause(page, 400);
    },
  },
  {
    name: 'long-scroll',
    page: 'long-scroll.html',
    retentionInDays: 90,
    viewport: { width: 1024, height: 700 },
    recordOptions: { sampling: { scroll: 150 } },
    async drive(page) {
      await page.mouse.move(400, 300, { steps: 5 });
      for (let i = 0; i < 8; i++) {
        await page.mouse.wheel(0, 500);
        await pause(page, 250);
      }
      await page.mouse.wheel(0, -1200);
      await pause(page, 300);
      await page.mouse.move(930, 80, { steps: 6 });
      for (let i = 0; i < 3; i++) {
        await page.mouse.wheel(0, 120);
        await pause(page, 250);
      }
      await page.locator('#article p').nth(14).click({ clickCount: 3 });
      await pause(page, 400);
      await page.keyboard.press('End');
      await pause(page, 500);
    },
  },
  {
    name: 'canvas-drawing',
    page: 'canvas-drawing.html',
    retentionInDays: 30,
    viewport: { width: 800, height: 600 },
    recordOptions: {
      recordCanvas: true,
      sampling: { canvas: 4, mousemove: 50 },
      dataURLOptions: { type: 'image/webp', quality: 0.6 },
    },
    async drive(page) {
      const box = await page.locator('#pad').boundingBox();
      if (box === null) throw new Error('canvas-drawing: the canvas has no layout box');
      const at = (x: number, y: number): [number, number] => [box.x + x, box.y + y];
      await stroke(page, ...at(20, 20), [at(80, 60), at(150, 30), at(180, 100)]);
      await stroke(page, ...at(30, 100), [at(60, 80), at(100, 100)]);
      await page.click('#color');
      await pause(page, 200);
      await stroke(page, ...at(100, 20), [at(120, 110), at(40, 60)]);
      await pause(page, 800);
    },
  },
  {
    name: 'intl-image',
    page: 'intl-image.html',
    retentionInDays: 90,
    viewport: { width: 900, height: 600 },
    recordOptions: { inlineImages: true },
    async drive(page, ctx) {
      await page.mouse.move(300, 90, { steps: 6 });
      await page.click('#comment');
      await page.keyboard.type('Nice ', { delay: 40 });
      await page.keyboard.insertText('你好 🌏 مرحبا ');
      await page.keyboard.type('ok', { delay: 40 });
      await pause(page, 200);
      await page.click('#post');
      await pause(page, 300);
      await page.click('#comment');
      await page.keyboard.insertText('こんにちは👩🏽‍💻 שלום');
      await page.click('#post');
      await pause(page, 300);
      if (ctx.screenshot !== undefined) await page.screenshot({ path: ctx.screenshot });
      await page.mouse.move(120, 60, { steps: 5 });
      await pause(page, 300);
    },
  },
  {
    name: 'styles-resize',
    page: 'styles-resize.html',
    retentionInDays: 30,
    viewport: { width: 1024, height: 700 },
    recordOptions: {},
    async drive(page) {
      const tiles = page.locator('.tile');
      for (let i = 0; i < 4; i++) {
        await tiles.nth(i).hover();
        await pause(page, 120);
      }
      await page.click('#compact');
      await pause(page, 300);
      await page.click('#accent');
      await pause(page, 300);
      await page.setViewportSize({ width: 700, height: 600 });
      await pause(page, 400);
      await page.setViewportSize({ width: 1100, height: 720 });
      await pause(page, 400);
      await page.click('#compact');
      await pause(page, 300);
    },
  },
];
