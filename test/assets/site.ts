/**
 * The site the asset-capture tests record: a page on one local origin (`page`) whose look depends on assets of three
 * origins — its own stylesheet (inlined by rrweb as `_cssText`) with a web font and an image, a stylesheet of a second
 * origin (`cdn`, cross-origin: rrweb keeps only its `<link href>`) that `@import`s another and draws a background
 * image, images (`src`, `srcset`, an inline style's `url()`), an icon; and one image of a third origin (`other`, never
 * allowed; hidden, so that the page looks the same without it).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { recordingStarter, rrwebBundle } from '../../samples/lib/browser-recorder.js';
import { serveFolder, type StaticServer } from '../../samples/lib/static-server.js';

const svg = (fill: string, shape = 'rect x="4" y="4" width="112" height="72"'): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"><rect width="120" height="80" fill="#eee"/><${shape} fill="${fill}"/></svg>`;

/** An icon font (playwright-core's codicon, a real TrueType file): its glyphs sit in the private use area. */
function iconFont(): Buffer {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('playwright-core'));
  return readFileSync(join(root, 'lib', 'vite', 'recorder', 'assets', 'codicon-DCmgc-ay.ttf'));
}

export interface Site {
  page: StaticServer;
  cdn: StaticServer;
  other: StaticServer;
  dirs: { page: string; cdn: string; other: string };
  /** Changes every asset of the three origins (colours, shapes, the font's file). */
  change(): void;
  close(): Promise<void>;
}

export async function startSite(root: string): Promise<Site> {
  const dirs = { page: join(root, 'page'), cdn: join(root, 'cdn'), other: join(root, 'other') };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const other = await serveFolder(dirs.other, 0);
  const cdn = await serveFolder(dirs.cdn, 0);
  const page = await serveFolder(dirs.page, 0);
  writeFileSync(join(dirs.other, 'hidden.svg'), svg('#000'));
  writeFileSync(
    join(dirs.cdn, 'theme.css'),
    '@import "more.css";\n.banner { width: 240px; height: 40px; background: url(stripe.svg) repeat-x; }\n',
  );
  writeFileSync(join(dirs.cdn, 'more.css'), 'h1 { border-bottom: 6px solid #c33; padding-bottom: 4px; }\n');
  writeFileSync(join(dirs.cdn, 'stripe.svg'), svg('#36c', 'circle cx="20" cy="20" r="16"'));
  writeFileSync(join(dirs.cdn, 'wide.svg'), svg('#e80', 'circle cx="60" cy="40" r="30"'));
  writeFileSync(join(dirs.cdn, 'dots.svg'), svg('#a3c', 'circle cx="10" cy="10" r="8"'));
  writeFileSync(join(dirs.cdn, 'icon.svg'), svg('#090'));
  writeFileSync(join(dirs.page, 'photo.svg'), svg('#2a2'));
  writeFileSync(join(dirs.page, 'icons.ttf'), iconFont());
  writeFileSync(
    join(dirs.page, 'site.css'),
    '@font-face { font-family: Icons; src: url(icons.ttf) format("truetype"); }\n' +
      'html, body { margin: 0; overflow: hidden; background: #fafafa; }\nbody { padding: 12px; font: 16px sans-serif; }\n' +
      'h1 { color: #135; margin: 0 0 8px; font-size: 24px; }\n.icons { font: 40px/1 Icons; color: #070; margin: 4px 0; }\n',
  );
  writeFileSync(
    join(dirs.page, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"><title>captured</title>' +
      `<link rel="stylesheet" href="site.css"><link rel="stylesheet" href="${cdn.origin}/theme.css">` +
      `<link rel="icon" href="${cdn.origin}/icon.svg"></head><body>` +
      '<h1>Asset capture</h1><p class="icons">&#xea60;&#xea61;&#xea62;&#xea63;&#xea64;</p>' +
      `<img src="photo.svg" width="120" height="80"> <img srcset="${cdn.origin}/wide.svg 1x" width="120" height="80">` +
      `<div class="banner"></div><div style="width:80px;height:40px;background:url(${cdn.origin}/dots.svg)"></div>` +
      `<img src="${other.origin}/hidden.svg" style="display:none"></body></html>`,
  );
  return {
    page,
    cdn,
    other,
    dirs,
    change(): void {
      writeFileSync(join(dirs.page, 'site.css'), 'body { background: #000; color: #fff; }\n');
      writeFileSync(join(dirs.page, 'photo.svg'), svg('#f00'));
      writeFileSync(join(dirs.page, 'icons.ttf'), Buffer.from('not a font'));
      writeFileSync(join(dirs.cdn, 'theme.css'), '.banner { background: #f0f; }\n');
      writeFileSync(join(dirs.cdn, 'more.css'), 'h1 { border: 0; }\n');
      for (const name of ['stripe.svg', 'wide.svg', 'dots.svg']) writeFileSync(join(dirs.cdn, name), svg('#ff0'));
    },
    close: async () => {
      await Promise.all([page.close(), cdn.close(), other.close()]);
    },
  };
}

export const VIEWPORT = { width: 640, height: 400 };

/** Records the page with rrweb in Chromium; returns its events and a screenshot of the page at the recording's end. */
export async function recordSite(
  browser: Browser,
  site: Site,
): Promise<{ events: Record<string, unknown>[]; screenshot: Buffer }> {
  const context = await browser.newContext({
    viewport: VIEWPORT,
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  try {
    await context.addInitScript({ content: (await rrwebBundle()) + '\n' + recordingStarter({}) });
    const page = await context.newPage();
    await page.goto(`${site.page.origin}/index.html`, { waitUntil: 'load' });
    await page.evaluate('document.fonts.ready');
    await page.waitForFunction('window.__events.some(function (e) { return e.type === 2; })');
    await page.waitForTimeout(300);
    const screenshot = await page.screenshot();
    await page.evaluate('window.__stopRecording()');
    const events = JSON.parse((await page.evaluate('JSON.stringify(window.__events)')) as string) as Record<
      string,
      unknown
    >[];
    return { events, screenshot };
  } finally {
    await context.close();
  }
}

/** Pixels that differ between two PNG screenshots of the same size (decoded and compared by Chromium's canvas). */
export async function differingPixels(
  browser: Browser,
  a: Buffer,
  b: Buffer,
): Promise<{ width: number; height: number; differing: number }> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(
      async ([x, y]) => {
        const load = async (b64: string) =>
          createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
        const [ia, ib] = await Promise.all([load(x), load(y)]);
        if (ia.width !== ib.width || ia.height !== ib.height)
          return { width: ia.width, height: ia.height, differing: -1 };
        const pixels = (img: ImageBitmap) => {
          const canvas = new OffscreenCanvas(img.width, img.height);
          const ctx = canvas.getContext('2d')!;
          ctx.drawImage(img, 0, 0);
          return ctx.getImageData(0, 0, img.width, img.height).data;
        };
        const pa = pixels(ia);
        const pb = pixels(ib);
        let differing = 0;
        for (let i = 0; i < pa.length; i += 4) {
          if (pa[i] !== pb[i] || pa[i + 1] !== pb[i + 1] || pa[i + 2] !== pb[i + 2] || pa[i + 3] !== pb[i + 3])
            differing++;
        }
        return { width: ia.width, height: ia.height, differing };
      },
      [a.toString('base64'), b.toString('base64')] as const,
    );
  } finally {
    await page.close();
  }
}
