/**
 * Each of the player's defences complete alone (issue #40, item 5), generated from the list of every attribute that
 * fetches or runs (test/player/fetching-attributes.ts, taken from the specifications): each vector is recorded three
 * ways — in the full snapshot, added by a mutation, and given its attributes by an attribute mutation of an element
 * added bare — and played in Chromium with every request going to a loopback server that counts it:
 * - with neither the sanitizer nor the CSP (the replay frame scripted, as for a canvas), every `live` vector reaches
 *   the server: the vectors are real;
 * - the sanitizer alone (the CSP removed): nothing reaches it, and the rebuilt document holds none of the URLs;
 * - the CSP alone (the sanitizer removed): nothing reaches it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { VECTORS, type VectorNode } from './fetching-attributes.js';
import { layerPages, writePage } from './helpers.js';

type Ev = { type: number; data: Record<string, unknown>; timestamp: number };
type Serialized = Record<string, unknown> & { id: number };
const WAYS = ['snapshot', 'mutation', 'attribute'] as const;
type Way = (typeof WAYS)[number];

let dir: string;
let browser: Browser;
let server: Server;
let origin: string;
/** Paths requested from the loopback server, in order. */
const requested: string[] = [];
let pages: { sanitizerAlone: string; cspAlone: string; neither: string };

let nextId = 100;
/** A vector's node as rrweb serializes it; `strip`: its attributes holding the server's URL are left out and listed. */
function serialize(node: VectorNode, strip?: { id: number; attributes: Record<string, string> }[]): Serialized {
  if ('text' in node) return { type: 3, id: nextId++, textContent: node.text };
  const id = nextId++;
  const attributes: Record<string, string> = {};
  const later: Record<string, string> = {};
  for (const [name, value] of Object.entries(node.attributes))
    (strip !== undefined && value.includes(origin) ? later : attributes)[name] = value;
  if (strip !== undefined && Object.keys(later).length > 0) strip.push({ id, attributes: later });
  return {
    type: 2,
    id,
    tagName: node.tagName,
    attributes,
    childNodes: (node.childNodes ?? []).map((c) => serialize(c, strip)),
    ...(node.isSVG ? { isSVG: true } : {}),
  };
}

const url = (way: Way) => (name: string) => `${origin}/${way}/${name}`;

/** A mutation adding `nodes` (and each one's subtree, an add a node, parents first) under `parentId`. */
function adds(parentId: number, nodes: Serialized[]): unknown[] {
  return nodes.flatMap((node) => [
    { parentId, nextId: null, node: { ...node, childNodes: [] } },
    ...adds(node.id, (node.childNodes as Serialized[] | undefined) ?? []),
  ]);
}

const mutation = (data: Record<string, unknown>, timestamp: number): Ev => ({
  type: 3,
  data: { source: 0, adds: [], removes: [], texts: [], attributes: [], ...data },
  timestamp,
});

/** The recording: a page whose body holds every vector, then every vector added again, then set by attributes. */
function recording(t0: number): Ev[] {
  // Besides the vectors, a local reference that must stay: a gradient by fragment (`url(#g)` loads nothing).
  const kept = serialize({
    tagName: 'svg',
    isSVG: true,
    attributes: { width: '40', height: '40' },
    childNodes: [
      { tagName: 'linearGradient', isSVG: true, attributes: { id: 'g' } },
      { tagName: 'rect', isSVG: true, attributes: { id: 'keep-fill', width: '40', height: '40', fill: 'url(#g)' } },
    ],
  });
  const body = {
    type: 2,
    id: 5,
    tagName: 'body',
    attributes: {},
    childNodes: [kept, ...VECTORS.map((v) => serialize(v.element(url('snapshot'))))],
  };
  const html = {
    type: 2,
    id: 3,
    tagName: 'html',
    attributes: {},
    childNodes: [{ type: 2, id: 4, tagName: 'head', attributes: {}, childNodes: [] }, body],
  };
  const doc = { type: 0, id: 1, childNodes: [{ type: 1, id: 2, name: 'html', publicId: '', systemId: '' }, html] };
  const added = VECTORS.map((v) => serialize(v.element(url('mutation'))));
  const later: { id: number; attributes: Record<string, string> }[] = [];
  const bare = VECTORS.map((v) => serialize(v.element(url('attribute')), later));
  return [
    { type: 4, data: { href: 'http://recorded.test/', width: 1024, height: 768 }, timestamp: t0 },
    { type: 2, data: { node: doc, initialOffset: { left: 0, top: 0 } }, timestamp: t0 + 10 },
    mutation({ adds: adds(5, added) }, t0 + 500),
    mutation({ adds: adds(5, bare) }, t0 + 800),
    mutation({ attributes: later }, t0 + 1000),
    { type: 3, data: { source: 1, positions: [{ x: 1, y: 1, id: 5, timeOffset: 0 }] }, timestamp: t0 + 1500 },
  ];
}

beforeAll(async () => {
  server = createServer((req, res) => {
    requested.push(req.url ?? '');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'replay-export-defences-'));
  browser = await launchChromium();
  pages = await layerPages(dir, await writePage(dir, 'defences', recording(Date.UTC(2026, 0, 1))));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Plays `file` to its end; the paths it requested, and those of the URLs the rebuilt document still holds. */
async function play(
  file: string,
  expected: readonly string[] = [],
): Promise<{ requests: string[]; kept: string[]; localFill: string | null }> {
  requested.length = 0;
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  const page = await context.newPage();
  await page.goto(`${pathToFileURL(file).href}?paused`);
  await page.waitForSelector('body[data-loaded="true"]');
  await page.evaluate(() => {
    const r = (window as unknown as { replayer: { pause(t: number): void; getMetaData(): { totalTime: number } } })
      .replayer;
    r.pause(r.getMetaData().totalTime);
  });
  // The animations (1 s) end and what they load is asked for (what is expected, however slow the machine; then as
  // long again for anything else); then the document is read.
  const started = Date.now();
  while (expected.some((p) => !requested.includes(p)) && Date.now() - started < 30_000) await page.waitForTimeout(100);
  await page.waitForTimeout(2500);
  const { html, localFill } = await page.evaluate(() => {
    const doc = (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument;
    return {
      html: doc?.documentElement.outerHTML ?? '',
      localFill: doc?.getElementById('keep-fill')?.getAttribute('fill') ?? null,
    };
  });
  await context.close();
  const kept = [...html.matchAll(/127\.0\.0\.1:\d+(\/[a-z]+\/[a-z-]+)/g)].map((m) => m[1]!);
  return { requests: [...new Set(requested)], kept: [...new Set(kept)], localFill };
}

describe('each player defence complete alone, over every attribute that fetches or runs', () => {
  it('with neither layer, every live vector reaches the loopback server (the vectors are real)', async () => {
    const live = VECTORS.filter((v) => v.live).map((v) => `/snapshot/${v.name}`);
    const { requests } = await play(pages.neither, live);
    const missing = live.filter((p) => !requests.includes(p));
    expect(missing).toEqual([]);
  }, 60_000);

  it('the sanitizer alone (no CSP): nothing reaches the server and the document holds none of the URLs', async () => {
    const r = await play(pages.sanitizerAlone);
    expect(r.requests).toEqual([]);
    expect(r.kept).toEqual([]);
    // A reference to an element of the replay's own document stays (its gradient is drawn).
    expect(r.localFill).toMatch(/^url\("?#g"?\)$/);
  }, 60_000);

  it('the CSP alone (no sanitizer): nothing reaches the server', async () => {
    const r = await play(pages.cspAlone);
    expect(r.kept.length).toBeGreaterThan(0);
    expect(r.requests).toEqual([]);
  }, 60_000);
});
