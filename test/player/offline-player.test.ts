/**
 * The `html` output format, looked at as a person would: a real Chromium opens the written page from disk with
 * every network request refused, plays the replay, and shows the recorded page's content.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { createLocalSink } from '../../sinks/index.js';

interface SampleEntry {
  name: string;
  replay_id: string;
  expected: string;
}
const samplesDir = join(import.meta.dirname, '..', '..', 'samples');

async function sample(name: string): Promise<{ entry: SampleEntry; events: unknown[] }> {
  const index = JSON.parse(await readFile(join(samplesDir, 'index.json'), 'utf8')) as { replays: SampleEntry[] };
  const entry = index.replays.find((r) => r.name === name);
  if (!entry) throw new Error(`sample ${name} not in samples/index.json`);
  return { entry, events: JSON.parse(await readFile(join(samplesDir, entry.expected), 'utf8')) as unknown[] };
}

let dir: string;
let browser: Browser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-player-'));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function writePage(replayId: string, events: unknown[]): Promise<string> {
  const sink = createLocalSink(dir);
  const writer = await sink.open(replayId, { format: 'html', gzip: false });
  await writer.write(events.map((e) => Buffer.from(JSON.stringify(e))));
  const result = await writer.commit();
  await sink.close();
  expect(result.key.endsWith('.html')).toBe(true);
  return join(dir, result.key);
}

/** Opens the page offline, jumps to the replay's end, and returns what the replayed document shows. */
async function openOffline(file: string, screenshot?: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const refused: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    refused.push(url);
    return route.abort();
  });
  // What the page parses out of its event blocks, before the player sanitizes it: every array JSON.parse returns.
  await context.addInitScript(() => {
    const parse = JSON.parse;
    const parsed: unknown[] = [];
    (window as unknown as { parsedBlocks: unknown[] }).parsedBlocks = parsed;
    JSON.parse = function (text: string, reviver?: (key: string, value: unknown) => unknown) {
      const value: unknown = parse.call(JSON, text, reviver);
      // A copy of its own: the player sanitizes and rrweb annotates the events it was given.
      if (Array.isArray(value)) parsed.push(...(parse.call(JSON, text) as unknown[]));
      return value;
    } as typeof JSON.parse;
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(pathToFileURL(file).href + '?paused');
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForSelector('body[data-loaded="true"]');
  const embedded = await page.evaluate(() => (window as unknown as { parsedBlocks: unknown[] }).parsedBlocks);
  await page.evaluate(() => {
    const r = (window as unknown as { replayer: { pause(t: number): void; getMetaData(): { totalTime: number } } })
      .replayer;
    r.pause(r.getMetaData().totalTime);
  });
  await page.waitForTimeout(300);
  const text = await page.evaluate(() => {
    const frame = document.querySelector('#stage iframe') as HTMLIFrameElement | null;
    return frame?.contentDocument?.body?.innerText ?? '';
  });
  if (screenshot) await page.screenshot({ path: screenshot });
  await context.close();
  return { embedded, text, refused, errors };
}

describe('html output plays offline in Chromium', () => {
  it('replays a real recording with CJK and emoji text, loading nothing from the network', async () => {
    const { entry, events } = await sample('intl-image');
    const file = await writePage(entry.replay_id, events);
    const shot = process.env.REPLAY_EXPORT_SCREENSHOT_DIR
      ? join(process.env.REPLAY_EXPORT_SCREENSHOT_DIR, 'offline-player.png')
      : undefined;
    const seen = await openOffline(file, shot);
    expect(seen.errors).toEqual([]);
    expect(seen.embedded).toEqual(events);
    // The end state of the recording: the heading was rewritten, a comment in three scripts was posted.
    expect(seen.text).toContain('Thanks 🙏 — 谢谢');
    expect(seen.text).toContain('شكرا');
    expect(seen.text).toMatch(/Nice .* ok/);
    // The page itself needs no network; the recording's own image URL is the only thing it may ask for.
    for (const url of seen.refused) expect(url).not.toMatch(/rrweb|unpkg|jsdelivr|cdn/);
  });

  it('keeps event text that looks like markup inert and exact', async () => {
    const { entry, events } = await sample('todo-mutations');
    const hostile = {
      type: 5,
      data: { tag: 'note', payload: { text: '</script><script>window.pwned=1</script><!-- & "quotes" \u2028' } },
      timestamp: (events[events.length - 1] as { timestamp: number }).timestamp,
    };
    const all = [...events, hostile];
    const file = await writePage(entry.replay_id, all);
    const seen = await openOffline(file);
    expect(seen.errors).toEqual([]);
    expect(seen.embedded).toEqual(all);
    const html = await readFile(file, 'utf8');
    expect(html).not.toContain('<script>window.pwned');
  });
});
