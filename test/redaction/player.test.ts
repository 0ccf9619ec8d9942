/**
 * A redacted replay still plays: the library's `exportReplay` with a `redact` policy writes `--format html` pages
 * from the sandbox (a recording made here, and the real form-typing sample), and a real Chromium plays them offline
 * to the end — the masked text shows as `*`, the block keeps its size, and the replayed document holds no personal
 * string. Screenshots go to test-output/redaction/.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { exportReplay } from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { tempDir } from '../pipeline/helpers.js';
import { offlineContext, ready } from '../player/helpers.js';
import { leaks, makeRecording, POLICY, recordingSamplesDir } from './recording.js';
import type { LooseEntry } from '../sinks/helpers/entries.js';

const shots = join(import.meta.dirname, '..', '..', 'test-output', 'redaction');
let browser: Browser;
let work: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  browser = await launchChromium();
  work = await tempDir('replay-export-redact-player-');
  await mkdir(shots, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await work?.cleanup();
});

/** Exports one replay of `sandbox` as an html page under a policy; returns the page's path and the manifest entry. */
async function exportPage(sandbox: Sandbox, replayId: string, redact: object, out: string) {
  const entry: LooseEntry = await exportReplay(replayId, {
    endpoint: sandbox.url,
    apiKey: sandbox.credentials.apiKey,
    secretKey: sandbox.credentials.secretKey,
    out,
    format: 'html',
    redact,
  });
  expect(entry.status, JSON.stringify(entry.error)).toBe('ok');
  return { file: join(out, entry.key!), entry };
}

/** Plays the page to its end; returns what the replayed document shows and holds, and the page's errors. */
async function playToEnd(file: string, shot: string) {
  const { context } = await offlineContext(browser, { width: 1100, height: 800 });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await ready(page, file, '?paused');
  await page.waitForSelector('body[data-loaded="true"]');
  await page.evaluate(() => {
    const r = (window as unknown as { replayer: { pause(t: number): void; getMetaData(): { totalTime: number } } })
      .replayer;
    r.pause(r.getMetaData().totalTime);
  });
  await page.waitForTimeout(300);
  const seen = await page.evaluate(() => {
    const doc = (document.querySelector('#stage iframe') as HTMLIFrameElement | null)?.contentDocument;
    const block = doc?.querySelector('.rr-block') as HTMLElement | null | undefined;
    const values = Array.from(doc?.querySelectorAll('input, textarea') ?? []).map((e) => (e as HTMLInputElement).value);
    return {
      text: doc?.body?.innerText ?? '',
      html: doc?.documentElement?.outerHTML ?? '',
      values,
      block: block
        ? {
            width: block.getBoundingClientRect().width,
            height: block.getBoundingClientRect().height,
            children: block.childNodes.length,
          }
        : null,
    };
  });
  await page.screenshot({ path: shot });
  await context.close();
  return { ...seen, errors };
}

describe('redacted html pages play in Chromium', () => {
  test('the recording made here: masked text, a same-size block, no personal string in the replayed document', async () => {
    const { events } = makeRecording();
    const samples = recordingSamplesDir('personal', events);
    const sandbox = await startSandbox({ samplesDir: samples.dir });
    try {
      const { file } = await exportPage(sandbox, samples.replayId, POLICY, join(work.dir, 'made'));
      expect(leaks(await readFile(file, 'utf8'))).toEqual([]);
      const seen = await playToEnd(file, join(shots, 'recording.png'));
      expect(seen.errors).toEqual([]);
      expect(seen.text).toContain('Account');
      // The name's text node, changed by a mutation to "Jonathan S.", masked; the nickname added under .profile too.
      expect(seen.text).toContain('******** **');
      expect(seen.text).toContain('******** ********');
      expect(seen.text).toContain(`Write to ${'*'.repeat('jane.doe@example.com'.length)} any time`);
      expect(seen.values).toEqual(['**** **** **** ****']);
      expect(seen.block).toEqual({ width: 300, height: 80, children: 0 });
      expect(leaks(seen.html)).toEqual([]);
    } finally {
      await sandbox.close();
      samples.cleanup();
    }
  });

  test('the real form-typing sample: what was typed shows masked, the page is otherwise the same', async () => {
    const sandbox = await startSandbox({});
    try {
      const index = JSON.parse(
        await readFile(join(import.meta.dirname, '..', '..', 'samples', 'index.json'), 'utf8'),
      ) as { replays: { name: string; replay_id: string }[] };
      const id = index.replays.find((r) => r.name === 'form-typing')!.replay_id;
      const policy = { mask: ['input', 'textarea', '#status'], dropAttributes: ['placeholder'], patterns: ['email'] };
      const { file } = await exportPage(sandbox, id, policy, join(work.dir, 'form'));
      const seen = await playToEnd(file, join(shots, 'form-typing.png'));
      expect(seen.errors).toEqual([]);
      expect(seen.text).toContain('Create an account');
      expect(seen.text).toContain('Full name');
      // "Thanks, Ada Lovelace! Check your inbox." as stars, word for word.
      expect(seen.text).toContain('******* *** ********* ***** **** ******');
      expect(seen.values.slice(0, 2)).toEqual(['*** ********', '***************']);
      for (const w of ['Ada', 'Lovelace', 'ada@example.com', 'Mathematician']) expect(seen.html).not.toContain(w);
    } finally {
      await sandbox.close();
    }
  });
});
