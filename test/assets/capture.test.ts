/**
 * `--capture-assets` end to end: a page of a local static site is recorded with rrweb in Chromium, served by the
 * sandbox, archived through the CLI with capture, then the site changes and stops; the offline page plays it in
 * Chromium as it looked when it was recorded (screenshots compared pixel by pixel; kept in test-output/assets), with
 * no request leaving the page. Without capture the same replay looks different (the comparison can fail).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli, sandboxEnv } from '../cli/cli-helpers.js';
import { lastById, readManifest, tempDir } from '../pipeline/helpers.js';
import { offlineContext, ready } from '../player/helpers.js';
import { recordingSamplesDir } from '../redaction/recording.js';
import { differingPixels, recordSite, startSite, type Site } from './site.js';

const shots = join(import.meta.dirname, '..', '..', 'test-output', 'assets');

let browser: Browser;
let site: Site;
let sandbox: Sandbox;
let samples: ReturnType<typeof recordingSamplesDir>;
let work: { dir: string; cleanup: () => Promise<void> };
let original: Buffer;
let origins: { page: string; cdn: string; other: string };

beforeAll(async () => {
  await mkdir(shots, { recursive: true });
  work = await tempDir('replay-export-assets-');
  browser = await launchChromium();
  site = await startSite(join(work.dir, 'site'));
  origins = { page: site.page.origin, cdn: site.cdn.origin, other: site.other.origin };
  const recorded = await recordSite(browser, site);
  original = recorded.screenshot;
  await writeFile(join(shots, 'recorded.png'), original);
  samples = recordingSamplesDir('assets', recorded.events);
  sandbox = await startSandbox({ samplesDir: samples.dir });
}, 120_000);

afterAll(async () => {
  await site?.close().catch(() => undefined);
  await sandbox?.close();
  samples?.cleanup();
  await browser?.close();
  await work?.cleanup();
});

/** Plays the page offline, paused at its end; a screenshot of the replayed document, and the requests it tried. */
async function played(file: string, name: string): Promise<{ png: Buffer; requests: string[] }> {
  const { context, requests } = await offlineContext(browser, { width: 1280, height: 900 });
  try {
    const page = await context.newPage();
    await ready(page, file, '?paused');
    await page.evaluate(async () => {
      const r = (window as unknown as { replayer: { pause(t: number): void; getMetaData(): { totalTime: number } } }).replayer;
      r.pause(r.getMetaData().totalTime);
      const doc = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument!;
      await doc.fonts.ready;
      const settled = (img: HTMLImageElement) =>
        new Promise((done) => {
          img.addEventListener('load', done);
          img.addEventListener('error', done);
        });
      await Promise.all(Array.from(doc.images).filter((img) => !img.complete).map(settled));
    });
    // The replayed document alone: the player's mouse cursor hidden, the iframe's border left out.
    await page.addStyleTag({ content: '.replayer-mouse { display: none !important; }' });
    await page.waitForTimeout(500);
    const box = await page.evaluate(() => {
      const frame = document.querySelector('#stage iframe') as HTMLIFrameElement;
      const r = frame.getBoundingClientRect();
      return { x: r.x + frame.clientLeft, y: r.y + frame.clientTop, width: frame.clientWidth, height: frame.clientHeight };
    });
    const png = await page.screenshot({ clip: box });
    await writeFile(join(shots, name), png);
    return { png, requests };
  } finally {
    await context.close();
  }
}

describe('archive --capture-assets', () => {
  test('stores each asset once, records the map, and the offline page renders as recorded after the site changed and stopped', async () => {
    const out = join(work.dir, 'out');
    const plain = join(work.dir, 'out-plain');
    const capture = `${origins.page},${origins.cdn}/`;
    const args = (dir: string, extra: string[]) => ['--log-format', 'json', 'archive', '--out', dir, '--settle', '0', '--format', 'html', ...extra];
    let res = await runCli(args(out, ['--capture-assets', capture]), sandboxEnv(sandbox));
    expect(res.code, res.stderr).toBe(0);
    res = await runCli(args(plain, []), sandboxEnv(sandbox));
    expect(res.code, res.stderr).toBe(0);

    const entry = lastById(await readManifest(out)).get(samples.replayId)!;
    expect(entry.status).toBe('ok');
    const assets = entry.assets as Record<string, string>;
    const types = entry.asset_types as Record<string, string>;
    expect(Object.keys(assets).sort()).toEqual(
      [
        // site.css is same-origin: rrweb inlined it (`_cssText`, no href left); its font and image are captured.
        `${origins.page}/icons.ttf`,
        `${origins.page}/photo.svg`,
        `${origins.cdn}/theme.css`,
        `${origins.cdn}/more.css`,
        `${origins.cdn}/stripe.svg`,
        `${origins.cdn}/wide.svg`,
        `${origins.cdn}/dots.svg`,
        `${origins.cdn}/icon.svg`,
      ].sort(),
    );
    expect(entry.assets_missing).toEqual({ [`${origins.other}/hidden.svg`]: 'origin not allowed' });
    expect(types[assets[`${origins.cdn}/theme.css`]!]).toBe('text/css');
    expect(types[assets[`${origins.page}/icons.ttf`]!]).toBe('font/ttf');
    expect(types[assets[`${origins.page}/photo.svg`]!]).toBe('image/svg+xml');
    for (const [url, digest] of Object.entries(assets)) {
      const body = await readFile(join(out, '_assets', digest));
      expect(createHash('sha256').update(body).digest('hex'), url).toBe(digest);
    }
    // Without the flag the default output carries none of it.
    const plainEntry = lastById(await readManifest(plain)).get(samples.replayId)!;
    expect(plainEntry.assets).toBeUndefined();

    site.change();
    await site.close();

    const captured = await played(join(out, entry.key as string), 'played-captured.png');
    expect(captured.requests).toEqual([]);
    const diff = await differingPixels(browser, original, captured.png);
    expect(diff).toMatchObject({ width: 640, height: 400 });
    expect(diff.differing).toBe(0);

    // The same replay without capture looks different: the comparison sees the assets.
    const bare = await played(join(plain, plainEntry.key as string), 'played-without-capture.png');
    expect(bare.requests).toEqual([]);
    expect((await differingPixels(browser, original, bare.png)).differing).toBeGreaterThan(1000);
  }, 120_000);
});
