/**
 * Hostile CSS in the player, in Chromium (issue #40, item 1): a recording whose `<style>` texts, style attribute and
 * style-sheet rules hold 4 MB each of `url(`, an unclosed comment, unterminated strings and `image-set(` plays (the
 * cleaning is one pass: the quadratic one took about 3 s for 80k characters of `url(`, hours for 4 MB), and `<style>`
 * texts that leave a string, a comment, an escape or half a name open for the next text to finish load nothing with
 * the sanitizer alone (the CSP removed): Chromium joins the texts, and its own tokenizer is the judge.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { layerPages, offlineContext, sample, writePage } from './helpers.js';

type Ev = { type: number; data: Record<string, unknown>; timestamp: number };

const SIZE = 4 * 1024 * 1024;
const BODY_ID = 15;
const leak = (name: string): string => `http://leak.test/${name}`;
const fill = (unit: string): string => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);

/** Each a `<style>`'s texts, cleaned one by one, joined by the browser. */
const JOINED: string[][] = [
  ['#j1{content:"abc', `"} #j1{background:url(${leak('joined-string')})} #j1{content:"`],
  ['#j2{background:ur', `l(${leak('joined-name')})}`],
  ['@imp', `ort "${leak('joined-import')}";`],
  ['#j3{color:red} /', `* "*/ #j3{background:url(${leak('joined-comment')})} "`],
  ['#j4{content:x\\', `"} #j4{background:url(${leak('joined-escape')})} #j4{content:"`],
  ['#j5{background:url(data:image/gif;base64,R0lG', `"x) #j5{background:url(${leak('joined-url')})}`],
];

const HOSTILE = ['url(', '/* ', '"x', 'image-set(', `u\\72l(${leak('escaped')}`];

let id = 30_000;
const el = (tagName: string, attributes: Record<string, unknown>, texts: string[] = []) => ({
  type: 2,
  id: id++,
  tagName,
  attributes,
  childNodes: texts.map((textContent) => ({ type: 3, id: id++, textContent })),
});

/** A mutation adding `nodes` under the body, each text under its element in an add of its own (as rrweb records). */
const mutation = (t: number, nodes: ReturnType<typeof el>[]): Ev => ({
  type: 3,
  data: {
    source: 0,
    adds: nodes.flatMap((node) => [
      { parentId: BODY_ID, nextId: null, node: { ...node, childNodes: [] } },
      ...node.childNodes.map((child) => ({ parentId: node.id, nextId: null, node: child })),
    ]),
    removes: [],
    texts: [],
    attributes: [],
  },
  timestamp: t,
});

/** The joined texts first (and their boxes), then the 4 MB ones, each in an event of its own. */
function vectors(t0: number): Ev[] {
  const joined = [
    ...JOINED.map((texts) => el('style', {}, texts)),
    ...[1, 2, 3, 4, 5].map((k) => el('div', { id: `j${k}`, style: 'width:20px;height:20px' }, [`j${k}`])),
  ];
  const big = [
    ...HOSTILE.map((unit) => el('style', { 'data-big': '' }, [fill(unit)])),
    el('div', { id: 'big-attribute', style: `width:10px;background:${fill('url(')}` }),
  ];
  return [
    mutation(t0 + 500, joined),
    ...big.map((node, k) => mutation(t0 + 550 + k, [node])),
    {
      type: 3,
      data: { source: 8, id: big[0]!.id, adds: [{ rule: `#x{background:${fill('url(')}}`, index: 0 }] },
      timestamp: t0 + 600,
    },
  ];
}

let dir: string;
let browser: Browser;
let pages: { sanitizerAlone: string; cspAlone: string; neither: string };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-hostile-css-'));
  browser = await launchChromium();
  const { id: replayId, events } = await sample('form-typing');
  const base = events as Ev[];
  const all = [...base, ...vectors(base[0]!.timestamp)].sort((a, b) => a.timestamp - b.timestamp);
  pages = await layerPages(dir, await writePage(dir, replayId, all));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Plays `file` to its end: what reached the network, the leak URLs the rebuilt document's style sheets hold as URLs
 * (`url("…")`, `image-set("…")`: in an ordinary string one is text), and how
 * many of its `<style>` elements hold a joined text, and how many are the 4 MB ones.
 */
async function play(
  file: string,
  expected: readonly string[] = [],
): Promise<{ sent: string[]; kept: string[]; joined: number; big: number }> {
  const { context, sent } = await offlineContext(browser);
  const page = await context.newPage();
  await page.goto(`${pathToFileURL(file).href}?paused`);
  await page.waitForSelector('body[data-loaded="true"]', { timeout: 100_000 });
  await page.evaluate(() => {
    const r = (window as unknown as { replayer: { pause(t: number): void; getMetaData(): { totalTime: number } } })
      .replayer;
    r.pause(r.getMetaData().totalTime);
  });
  // Every style sheet of the rebuilt document, read at once: a load it starts is a request by then.
  const seen = await page.evaluate(() => {
    const doc = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument!;
    const kept: string[] = [];
    for (const sheet of Array.from(doc.styleSheets))
      for (const rule of Array.from(sheet.cssRules))
        kept.push(...(rule.cssText.match(/(url|image-set)\("http:\/\/leak\.test\/[a-z-]+/g) ?? []));
    const styles = Array.from(doc.querySelectorAll('style'));
    return {
      kept,
      joined: styles.filter((s) => /#j\d|@imp/.test(s.textContent ?? '')).length,
      big: doc.querySelectorAll('style[data-big]').length,
    };
  });
  // What is expected to load, however slow the machine; then a while longer for anything else.
  const started = Date.now();
  while (expected.some((u) => !sent.includes(u)) && Date.now() - started < 30_000) await page.waitForTimeout(100);
  await page.waitForTimeout(1000);
  await context.close();
  return { sent, kept: [...new Set(seen.kept)], joined: seen.joined, big: seen.big };
}

describe('hostile CSS in the player (sanitizer alone: no CSP)', () => {
  it('plays 4 MB of url(, an unclosed comment, unterminated strings and image-set(, and joined texts load nothing', async () => {
    const r = await play(pages.sanitizerAlone);
    expect(r.joined).toBe(JOINED.length);
    expect(r.big).toBe(HOSTILE.length);
    expect(r.kept).toEqual([]);
    expect(r.sent).toEqual([]);
  }, 120_000);

  it('the joined texts are live: with neither layer, Chromium loads them', async () => {
    const live = ['joined-string', 'joined-name', 'joined-import', 'joined-comment', 'joined-escape'].map(leak);
    const r = await play(pages.neither, live);
    expect(r.sent).toEqual(expect.arrayContaining(live));
  }, 120_000);
});
