import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { launchChromium } from './chromium.js';
import type { DriveContext, Scenario } from './scenarios.js';
import type { Timed } from './split.js';

/** The rrweb UMD bundle from node_modules (no network), wrapped so that it defines `window.rrweb`. */
export async function rrwebBundle(): Promise<string> {
  const require = createRequire(import.meta.url);
  const file = join(dirname(require.resolve('rrweb')), 'rrweb.umd.min.cjs');
  const code = await readFile(file, 'utf8');
  return `(function () {\n${code}\n}).call(window);`;
}

/** Starts rrweb in the top frame, collecting events in `window.__events`. */
export function recordingStarter(options: Record<string, unknown>): string {
  return `if (window.top === window) {
  window.__events = [];
  window.__stopRecording = rrweb.record(Object.assign({
    emit: function (event) { window.__events.push(event); }
  }, ${JSON.stringify(options)}));
}`;
}

export interface BrowserRecorder {
  /** Records one scenario in a fresh browser context; the events come back after a JSON round trip. */
  record(scenario: Scenario, origin: string, ctx: DriveContext): Promise<Timed[]>;
  close(): Promise<void>;
}

/** Launches headless Chromium (its own temporary profile; see ./chromium.ts). */
export async function openRecorder(): Promise<BrowserRecorder> {
  const bundle = await rrwebBundle();
  const browser = await launchChromium();

  async function record(scenario: Scenario, origin: string, ctx: DriveContext): Promise<Timed[]> {
    const context = await browser.newContext({
      viewport: scenario.viewport,
      deviceScaleFactor: 1,
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    try {
      await context.addInitScript({ content: bundle + '\n' + recordingStarter(scenario.recordOptions) });
      const page = await context.newPage();
      await page.goto(`${origin}/${scenario.page}`, { waitUntil: 'load' });
      await page.waitForFunction('window.__events.some(function (e) { return e.type === 2; })');
      await page.waitForTimeout(300);
      await scenario.drive(page, ctx);
      await page.evaluate('window.__stopRecording()');
      const text = (await page.evaluate('JSON.stringify(window.__events)')) as string;
      return JSON.parse(text) as Timed[];
    } finally {
      await context.close();
    }
  }

  return { record, close: () => browser.close() };
}
