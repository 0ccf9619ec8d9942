/**
 * The player's two layers against a hostile recording (issue #29, item 5), each alone: the sanitizer with the CSP
 * removed, the CSP with the sanitizer removed. Both runs also give the replay iframe `allow-scripts` (as rrweb's
 * canvas replay would), so that the frame's sandbox stops nothing. Every vector is a crafted event, in a real
 * Chromium with every request other than the page file refused and logged: a script that runs posts a message to the
 * player; a URL that loads is a request that reaches the network (DevTools, and so Playwright's `request` event, also
 * list the loads the CSP blocks before they are sent: those are counted apart, as blocked).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { layerPages, offlineContext, ready, sample, shots, writePage } from './helpers.js';

type Ev = { type: number; data: Record<string, unknown>; timestamp: number };
type Node = {
  type: number;
  id: number;
  tagName?: string;
  attributes?: Record<string, unknown>;
  childNodes?: Node[];
  textContent?: string;
};

let dir: string;
let browser: Browser;
/** The page as written, and with each layer removed. */
let pages: { shipped: string; sanitizerAlone: string; cspAlone: string };

const BODY_ID = 15;
const DOC_ID = 1;
const GIF = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
const run = (name: string): string => `top.postMessage('pwned:${name}','*')`;
const leak = (name: string): string => `http://leak.test/${name}`;

const el = (id: number, tagName: string, attributes: Record<string, unknown> = {}, childNodes: Node[] = []): Node => ({
  type: 2,
  id,
  tagName,
  attributes,
  childNodes,
});
const text = (id: number, textContent: string): Node => ({ type: 3, id, textContent });
const box = (id: number, domId: string, style = ''): Node =>
  el(id, 'div', { id: domId, style: `width:20px;height:20px;${style}` }, [text(id + 1, domId)]);
const add = (parentId: number, node: Node): { parentId: number; nextId: null; node: Node } => ({
  parentId,
  nextId: null,
  node,
});
const mutation = (data: Record<string, unknown>): Record<string, unknown> => ({
  source: 0,
  adds: [],
  removes: [],
  texts: [],
  attributes: [],
  ...data,
});

/** The vectors of issue #29 item 5, as events after the form-typing sample's full snapshot. */
function vectors(t0: number): Ev[] {
  const svg = `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg"><script>${run('svg')}</script></svg>`)}`;
  const xhtml = `data:application/xhtml+xml,${encodeURIComponent(`<html xmlns="http://www.w3.org/1999/xhtml"><body><script>${run('xhtml')}</script></body></html>`)}`;
  const xml = `data:text/xml,${encodeURIComponent(`<x xmlns:h="http://www.w3.org/1999/xhtml"><h:script>${run('xml')}</h:script></x>`)}`;
  const svgLater = `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg"><script>${run('svg-attribute')}</script></svg>`)}`;
  const adds = [
    el(20_010, 'iframe', { src: svg }),
    el(20_020, 'iframe', { src: xhtml }),
    el(20_030, 'iframe', { src: xml }),
    el(20_040, 'iframe', { id: 'later' }),
    el(20_050, 'img', { srcset: `${GIF} 0.5x, ${leak('srcset-img')} 1x`, width: '20', height: '20' }),
    el(20_060, 'picture', {}, [
      el(20_061, 'source', { srcset: `${GIF} 0.5x, ${leak('srcset-source')} 1x` }),
      el(20_062, 'img', { src: GIF, width: '20', height: '20' }),
    ]),
    el(20_070, 'link', { rel: 'preload', as: 'image', imagesrcset: `${GIF} 0.5x, ${leak('link-imagesrcset')} 1x` }),
    el(20_080, 'style', {}, [text(20_081, `@\\69mport "${leak('escaped-import')}";`)]),
    el(20_082, 'style', {}, [text(20_083, `#v-escape{background-image:u\\72l(${leak('escaped-url')})}`)]),
    box(20_084, 'v-escape'),
    el(20_090, 'style', {}, [
      text(
        20_091,
        `#v-set{background-image:image-set("${leak('image-set-text')}" 1x)}#v-wset{background-image:-webkit-image-set("${leak('webkit-image-set-text')}" 1x)}`,
      ),
    ]),
    box(20_092, 'v-set'),
    box(20_094, 'v-wset'),
    box(20_100, 'v-set-attribute', `background-image:image-set('${leak('image-set-attribute')}' 1x)`),
    box(20_110, 'v-set-mutation'),
    box(20_120, 'v-set-diff'),
    box(20_130, 'v-before-parent'),
    box(20_140, 'v-adopted'),
    box(20_150, 'v-font', 'font-family:leakfont'),
    el(20_160, 'canvas', { width: '20', height: '20' }),
  ];
  return [
    { type: 3, data: mutation({ adds: adds.map((n) => add(BODY_ID, n)) }), timestamp: t0 + 1000 },
    {
      type: 3,
      data: mutation({
        attributes: [
          { id: 20_040, attributes: { src: svgLater } },
          {
            id: 20_110,
            attributes: {
              style: `width:20px;height:20px;background-image:image-set('${leak('image-set-mutation')}' 1x)`,
            },
          },
          { id: 20_120, attributes: { style: { 'background-image': `image-set('${leak('image-set-diff')}' 1x)` } } },
        ],
      }),
      timestamp: t0 + 1200,
    },
    {
      // The style text comes before its <style> parent in one mutation.
      type: 3,
      data: mutation({
        adds: [
          add(20_170, text(20_171, `#v-before-parent{background-image:url(${leak('before-parent')})}`)),
          add(BODY_ID, el(20_170, 'style')),
        ],
      }),
      timestamp: t0 + 1400,
    },
    {
      type: 3,
      data: {
        source: 15,
        id: DOC_ID,
        styleIds: [7],
        styles: [{ styleId: 7, rules: [{ rule: `#v-adopted{background-image:url(${leak('adopted')})}`, index: 0 }] }],
      },
      timestamp: t0 + 1600,
    },
    {
      type: 3,
      data: { source: 10, family: 'leakfont', fontSource: `url(${leak('font')})`, buffer: false, descriptors: {} },
      timestamp: t0 + 1800,
    },
    {
      type: 3,
      data: {
        source: 9,
        id: 20_160,
        type: 0,
        commands: [{ property: 'drawImage', args: [{ rr_type: 'HTMLImageElement', src: leak('draw-image') }, 0, 0] }],
      },
      timestamp: t0 + 2000,
    },
  ];
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-sanitizer-layers-'));
  await mkdir(shots, { recursive: true });
  browser = await launchChromium();
  const { id, events } = await sample('form-typing');
  const base = events as Ev[];
  const all = [...base, ...vectors(base[0]!.timestamp)].sort((a, b) => a.timestamp - b.timestamp);
  const shipped = await writePage(dir, id, all);
  const { sanitizerAlone, cspAlone } = await layerPages(dir, shipped);
  pages = { shipped, sanitizerAlone, cspAlone };
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Plays a page to its end: what ran, what reached the network, what the CSP blocked, what the rebuilt document holds
 * of the vectors, the replay frame's sandbox.
 */
async function play(
  file: string,
  shot: string,
): Promise<{ ran: string[]; requests: string[]; kept: string[]; sandbox: string | null; blocked: string[] }> {
  const { context, sent: requests } = await offlineContext(browser, { width: 1280, height: 900 });
  const page = await context.newPage();
  const messages: string[] = [];
  const blocked = new Set<string>();
  page.on('console', (m) => {
    const url = /^Loading the \w+ '([^']+)' violates the following Content Security Policy/.exec(m.text());
    if (url) blocked.add(url[1]!);
  });
  await page.exposeFunction('__seenMessage', (m: string) => messages.push(m));
  await page.addInitScript(() => {
    window.addEventListener('message', (e) =>
      (window as unknown as { __seenMessage(m: string): void }).__seenMessage(String(e.data)),
    );
  });
  await ready(page, file, '?paused');
  await page.waitForSelector('body[data-loaded="true"]');
  await page.evaluate(() => {
    const r = (window as unknown as { replayer: { pause(t: number): void; getMetaData(): { totalTime: number } } })
      .replayer;
    r.pause(r.getMetaData().totalTime);
  });
  await page.waitForTimeout(1500);
  const seen = await page.evaluate(() => {
    const frame = document.querySelector('#stage iframe') as HTMLIFrameElement;
    const doc = frame.contentDocument!;
    const kept: string[] = [];
    const html = doc.documentElement.outerHTML;
    for (const m of html.match(/leak\.test\/[a-z-]+|pwned(?::|%3A)[a-z-]+/g) ?? []) kept.push(m);
    for (const sheet of Array.from(doc.adoptedStyleSheets ?? []))
      for (const rule of Array.from(sheet.cssRules))
        if (/leak\.test/.test(rule.cssText)) kept.push(`adopted ${rule.cssText}`);
    for (const sheet of Array.from(doc.styleSheets)) {
      try {
        for (const rule of Array.from(sheet.cssRules))
          if (/leak\.test/.test(rule.cssText)) kept.push(`sheet ${rule.cssText}`);
      } catch {
        kept.push('unreadable sheet');
      }
    }
    return { kept, sandbox: frame.getAttribute('sandbox') };
  });
  await page.screenshot({ path: join(shots, shot) });
  await context.close();
  return {
    ran: messages.filter((m) => m.startsWith('pwned')),
    requests,
    kept: [...new Set(seen.kept)],
    sandbox: seen.sandbox,
    blocked: [...blocked],
  };
}

describe('what the recording may not do: each layer alone', () => {
  it('as shipped: nothing runs, nothing leaves (a canvas replay: the frame has allow-scripts, as a canvas needs)', async () => {
    const r = await play(pages.shipped, 'layers-shipped.png');
    expect(r.ran).toEqual([]);
    expect(r.requests).toEqual([]);
    expect(r.kept).toEqual([]);
    // The vectors include a canvas event (drawImage by URL): a canvas shows only in a frame whose scripting is on.
    expect(r.sandbox).toBe('allow-same-origin allow-scripts');
  });

  it('the sanitizer alone (no CSP, allow-scripts): no vector runs, loads, or is even rebuilt', async () => {
    const r = await play(pages.sanitizerAlone, 'layers-sanitizer-alone.png');
    expect(r.sandbox).toBe('allow-same-origin allow-scripts');
    expect(r.ran).toEqual([]);
    expect(r.requests).toEqual([]);
    expect(r.kept).toEqual([]);
  });

  it('the CSP alone (no sanitizer, allow-scripts): the vectors are rebuilt, yet none runs or loads', async () => {
    const r = await play(pages.cspAlone, 'layers-csp-alone.png');
    expect(r.sandbox).toBe('allow-same-origin allow-scripts');
    // The layer switch worked: the document holds the vectors as recorded.
    expect(r.kept).toEqual(expect.arrayContaining(['leak.test/srcset-img', 'leak.test/before-parent']));
    expect(r.ran).toEqual([]);
    expect(r.requests).toEqual([]);
    // What would have loaded was tried, and refused by the policy.
    expect(r.blocked).toEqual(
      expect.arrayContaining([
        leak('srcset-img'),
        leak('image-set-diff'),
        leak('before-parent'),
        leak('adopted'),
        leak('font'),
        leak('draw-image'),
      ]),
    );
  });
});
