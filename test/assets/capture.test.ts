/**
 * `--capture-assets` end to end: a page of a local static site is recorded with rrweb in Chromium, served by the
 * sandbox, archived through the CLI with capture, then the site changes and stops; the offline page plays it in
 * Chromium as it looked when it was recorded (screenshots compared pixel by pixel; kept in test-output/assets), with
 * no request leaving the page. Without capture the same replay looks different (the comparison can fail).
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { startViewServer } from '../../src/view/index.js';
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

/**
 * Plays a replay, paused at its end: the html page offline (`file`), or the view server's page (`view`: its origin is
 * then the one allowed); a screenshot of the replayed document, and the requests it tried elsewhere.
 */
async function played(
  at: { file: string } | { view: string },
  name: string,
): Promise<{ png: Buffer; requests: string[] }> {
  const { context, requests } = await offlineContext(browser, { width: 1280, height: 900 });
  try {
    if ('view' in at) {
      const origin = new URL(at.view).origin;
      await context.unrouteAll();
      await context.route('**', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${origin}/`)) return route.continue();
        requests.push(url);
        return route.abort();
      });
    }
    const page = await context.newPage();
    // `scale=1`: the replay at its recorded size (the player otherwise fits it to the window, up or down).
    if ('file' in at) await ready(page, at.file, '?paused&scale=1');
    else {
      await page.goto(`${at.view}?paused&scale=1`);
      await page.waitForSelector('body[data-ready="true"]');
    }
    await page.evaluate(async () => {
      const r = (window as unknown as { replayer: { pause(t: number): void; getMetaData(): { totalTime: number } } })
        .replayer;
      r.pause(r.getMetaData().totalTime);
      const doc = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument!;
      await doc.fonts.ready;
      const settled = (img: HTMLImageElement) =>
        new Promise((done) => {
          img.addEventListener('load', done);
          img.addEventListener('error', done);
        });
      await Promise.all(
        Array.from(doc.images)
          .filter((img) => !img.complete)
          .map(settled),
      );
    });
    // The replayed document alone: the player's mouse cursor hidden, the iframe's border left out.
    await page.addStyleTag({ content: '.replayer-mouse { display: none !important; }' });
    await page.waitForTimeout(500);
    const box = await page.evaluate(() => {
      const frame = document.querySelector('#stage iframe') as HTMLIFrameElement;
      const r = frame.getBoundingClientRect();
      return {
        x: r.x + frame.clientLeft,
        y: r.y + frame.clientTop,
        width: frame.clientWidth,
        height: frame.clientHeight,
      };
    });
    const png = await page.screenshot({ clip: box });
    await writeFile(join(shots, name), png);
    // The view server's own origin is where the shared player loads from: anything else is a request that left.
    const home = 'view' in at ? `${new URL(at.view).origin}/` : undefined;
    return { png, requests: requests.filter((url) => home === undefined || !url.startsWith(home)) };
  } finally {
    await context.close();
  }
}

describe('archive --capture-assets', () => {
  test('stores each asset once, records the map, and the offline page renders as recorded after the site changed and stopped', async () => {
    const out = join(work.dir, 'out');
    const plain = join(work.dir, 'out-plain');
    const capture = `${origins.page},${origins.cdn}/`;
    const stored = join(work.dir, 'out-ndjson');
    const args = (dir: string, extra: string[]) => [
      '--log-format',
      'json',
      'archive',
      '--out',
      dir,
      '--settle',
      '0',
      ...extra,
    ];
    for (const [dir, extra] of [
      [out, ['--format', 'html', '--capture-assets', capture]],
      [plain, ['--format', 'html']],
      // What `view` serves (it plays json and ndjson archives).
      [stored, ['--format', 'ndjson', '--gzip', '--capture-assets', capture]],
    ] as const) {
      const res = await runCli(args(dir, [...extra]), sandboxEnv(sandbox));
      expect(res.code, res.stderr).toBe(0);
    }

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

    // A resumed run leaves the replay and its assets alone; verify finds no orphan among the assets.
    const names = await readdir(join(out, '_assets'));
    const resumed = await runCli(args(out, ['--format', 'html', '--capture-assets', capture]), sandboxEnv(sandbox));
    expect(resumed.stderr).toMatch(/"outcome":"done-before"/);
    expect(await readdir(join(out, '_assets'))).toEqual(names);
    const verified = await runCli(['verify', out], sandboxEnv(sandbox));
    expect(verified.code, verified.stderr + verified.stdout).toBe(0);

    site.change();
    await site.close();

    const captured = await played({ file: join(out, entry.key as string) }, 'played-captured.png');
    expect(captured.requests).toEqual([]);
    const diff = await differingPixels(browser, original, captured.png);
    expect(diff).toMatchObject({ width: 640, height: 400 });
    expect(diff.differing).toBe(0);

    // The same replay without capture looks different: the comparison sees the assets.
    const bare = await played({ file: join(plain, plainEntry.key as string) }, 'played-without-capture.png');
    expect(bare.requests).toEqual([]);
    expect((await differingPixels(browser, original, bare.png)).differing).toBeGreaterThan(1000);

    // `view` serves the archive's assets to the shared player: the same pixels, nothing from elsewhere.
    const view = await startViewServer({ out: stored });
    try {
      const shared = await played(
        { view: `${view.url}replays/${encodeURIComponent(samples.replayId)}` },
        'view-captured.png',
      );
      expect(shared.requests).toEqual([]);
      expect((await differingPixels(browser, original, shared.png)).differing).toBe(0);
      const asset = await fetch(`${view.url}assets/${assets[`${origins.cdn}/wide.svg`]!}`);
      expect(asset.status).toBe(200);
      expect((await fetch(`${view.url}assets/..%2Fmanifest.ndjson`)).status).toBe(404);
    } finally {
      await view.close();
    }

    // verify notices a captured asset gone.
    const gone = assets[`${origins.cdn}/theme.css`]!;
    await rm(join(out, '_assets', gone));
    const broken = await runCli(['verify', out, '--log-format', 'json'], sandboxEnv(sandbox));
    expect(broken.code).toBe(1);
    const problems = broken.stderr
      .split('\n')
      .filter((l) => l.includes('"problem"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(problems).toEqual([
      expect.objectContaining({ kind: 'asset_missing', key: `_assets/${gone}`, replay_id: samples.replayId }),
    ]);
  }, 120_000);

  test('a bad origin list, or stdout as the target, is a usage error (exit 2) before any request', async () => {
    const out = join(work.dir, 'out-bad');
    for (const [extra, message] of [
      [['--out', out, '--capture-assets', 'ftp://files.example.com'], /--capture-assets takes http\(s\) origins/],
      [['--out', out, '--capture-assets', ','], /--capture-assets needs at least one origin/],
      [['--out', '-', '--capture-assets', origins.page], /--capture-assets needs --out <folder> or s3:\/\//],
    ] as const) {
      const res = await runCli(['export', samples.replayId, ...extra], sandboxEnv(sandbox));
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toMatch(message);
    }
  });
});
