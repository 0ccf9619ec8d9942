/** What the Chromium tests of the player share: samples, writing an html page, an offline context, readiness. */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createLocalSink, type PlayerOptions } from '../../sinks/index.js';
import { PLAYER_SCRIPT } from '../../sinks/player/player-script.js';

const samplesDir = join(import.meta.dirname, '..', '..', 'samples');
/** Screenshots of the player tests (git-ignored). */
export const shots = join(import.meta.dirname, '..', '..', 'test-output', 'player');

export async function sample(name: string): Promise<{ id: string; events: unknown[] }> {
  const index = JSON.parse(await readFile(join(samplesDir, 'index.json'), 'utf8')) as {
    replays: { name: string; replay_id: string; expected: string }[];
  };
  const entry = index.replays.find((r) => r.name === name);
  if (!entry) throw new Error(`sample ${name} not in samples/index.json`);
  return {
    id: entry.replay_id,
    events: JSON.parse(await readFile(join(samplesDir, entry.expected), 'utf8')) as unknown[],
  };
}

/** Writes the `--format html` page of `events` with the real local sink (and the player's options); returns its path. */
export async function writePage(
  dir: string,
  replayId: string,
  events: readonly unknown[],
  player?: PlayerOptions,
): Promise<string> {
  const sink = createLocalSink(dir);
  const writer = await sink.open(replayId, {
    format: 'html',
    gzip: false,
    ...(player !== undefined ? { player } : {}),
  });
  await writer.write(events.map((e) => Buffer.from(JSON.stringify(e))));
  const result = await writer.commit();
  await sink.close();
  if (!result.key.endsWith('.html')) throw new Error(`not an html key: ${result.key}`);
  return join(dir, result.key);
}

/**
 * A fresh context that logs (and refuses) every request that is not the page file, data: or blob:. `requests` also
 * lists what DevTools reports and the CSP blocks before it is sent; `sent` only what reached the network.
 */
export async function offlineContext(
  browser: Browser,
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; requests: string[]; sent: string[] }> {
  const context = await browser.newContext({ viewport });
  const requests: string[] = [];
  const sent: string[] = [];
  await context.route('**', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    requests.push(url);
    sent.push(url);
    return route.abort();
  });
  context.on('request', (request) => {
    const url = request.url();
    if (!/^(file|data|blob):/.test(url) && !requests.includes(url)) requests.push(url);
  });
  return { context, requests, sent };
}

/** Opens a written page and waits until the player started. */
export async function ready(page: Page, file: string, query = ''): Promise<void> {
  await page.goto(pathToFileURL(file).href + query);
  await page.waitForSelector('body[data-ready="true"]');
}

/** Opens a written page and waits until every event is in. */
export async function loaded(page: Page, file: string, query = ''): Promise<void> {
  await ready(page, file, query);
  await page.waitForSelector('body[data-loaded="true"]');
}

const sha = (s: string): string => createHash('sha256').update(s, 'utf8').digest('base64');

/**
 * The written page `shipped` with each of the player's layers removed, both with the replay frame given
 * `allow-scripts` (as rrweb's canvas replay has it): the sanitizer alone (no CSP) and the CSP alone (no sanitizer);
 * and `neither` (no CSP, no sanitizer), where each vector must act: what shows that a test's vectors are live.
 */
export async function layerPages(
  dir: string,
  shipped: string,
): Promise<{ sanitizerAlone: string; cspAlone: string; neither: string }> {
  const html = await readFile(shipped, 'utf8');
  if (!html.includes(PLAYER_SCRIPT)) throw new Error('the page does not inline the player script');
  const withScripts = PLAYER_SCRIPT.replace('UNSAFE_replayCanvas: scripted,', 'UNSAFE_replayCanvas: true,');
  const noSanitizer = withScripts.replace('function sanitize(event) {', 'function sanitize(event) {\n  return event;');
  if (withScripts === PLAYER_SCRIPT || noSanitizer === withScripts)
    throw new Error('the player script changed: update the layer switches');
  const csp = /<meta http-equiv="Content-Security-Policy" content="[^"]*">/;
  if (!csp.test(html)) throw new Error('no CSP meta in the page');
  const pages = {
    sanitizerAlone: join(dir, 'sanitizer-alone.html'),
    cspAlone: join(dir, 'csp-alone.html'),
    neither: join(dir, 'neither.html'),
  };
  await writeFile(
    pages.sanitizerAlone,
    html.replace(csp, '').replace(PLAYER_SCRIPT, () => withScripts),
  );
  await writeFile(
    pages.cspAlone,
    html.replace(sha(PLAYER_SCRIPT), sha(noSanitizer)).replace(PLAYER_SCRIPT, () => noSanitizer),
  );
  await writeFile(
    pages.neither,
    html.replace(csp, '').replace(PLAYER_SCRIPT, () => noSanitizer),
  );
  return pages;
}
