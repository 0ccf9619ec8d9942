/**
 * The capture of a run against real HTTP servers (node:http on 127.0.0.1): what is fetched and what is not (origin
 * allow-list, redirects, status, size cap, time limit), what requests carry (no cookie, no credential), that each
 * URL is fetched and each asset stored once per run, and how stylesheets are followed (`@import`, `url()`, depth).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLocalSink } from '../../sinks/index.js';
import { AssetCapture, type AssetCaptureSettings } from '../../src/assets/capture.js';
import { AssetUrlCollector } from '../../src/assets/collect.js';
import { resolveSettings } from '../../src/pipeline/settings.js';
import { tempDir } from '../pipeline/helpers.js';
import { archiveReplays, exportReplay } from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { recordingSamplesDir } from '../redaction/recording.js';
import { archiveOfSink } from '../../sinks/archive.js';
import type { LooseEntry } from '../sinks/helpers/entries.js';
import { ManualClock } from '../helpers/manual-clock.js';

interface Site {
  origin: string;
  hits: Map<string, number>;
  headers: IncomingHttpHeaders[];
  server: Server;
}

const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

type Route = {
  status?: number;
  type?: string;
  body?: Buffer | string;
  location?: string;
  chunked?: boolean;
  hang?: boolean;
  reset?: boolean;
};

async function serve(routes: (path: string, origin: string, hit: number) => Route | undefined): Promise<Site> {
  const hits = new Map<string, number>();
  const headers: IncomingHttpHeaders[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    headers.push(req.headers);
    const route = routes(path, origin, hits.get(path)!);
    if (route === undefined) return void res.writeHead(404).end();
    if (route.hang) return; // never answers
    if (route.reset) return void req.socket.destroy(); // the connection drops before an answer
    const head: Record<string, string> = {};
    if (route.type) head['content-type'] = route.type;
    if (route.location) head.location = route.location;
    if (route.body !== undefined) head['content-length'] = String(Buffer.byteLength(route.body));
    res.writeHead(route.status ?? 200, head);
    if (route.chunked) {
      // No content-length: the cap is enforced while reading.
      for (let i = 0; i < 10; i++) res.write(Buffer.alloc(500, 0x61));
      return void res.end();
    }
    res.end(route.body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, hits, headers, server };
}

let other: Site;
let site: Site;
/** Whether /later.png answers (503 until a test turns it on). */
let laterUp = false;
/** Called when /slow.png's request arrives (it is never answered). */
let onSlow = (): void => undefined;
let work: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  work = await tempDir('replay-export-capture-limits-');
  other = await serve((path) => (path === '/x.png' ? { type: 'image/png', body: png } : undefined));
  site = await serve((path, _origin, hit) => {
    switch (path) {
      case '/flaky.png':
        return hit <= 2 ? { status: 503, body: 'busy' } : { type: 'image/png', body: png };
      case '/reset.png':
        return hit === 1 ? { reset: true } : { type: 'image/png', body: png };
      case '/down.png':
        return { status: 503, body: 'down' };
      case '/later.png':
        return laterUp ? { type: 'image/png', body: png } : { status: 502, body: 'not yet' };
      case '/ok.css':
        return { type: 'text/css', body: '@import "nested.css";\n.a { background: url(img.png) }' };
      case '/nested.css':
        return {
          type: 'text/css; charset=utf-8',
          body: '@import url("deeper.css"); .b { background: url(/deep.png) }',
        };
      case '/deeper.css':
        return { type: 'text/css', body: '.c { background: url(deepest.png) }' };
      case '/img.png':
      case '/deep.png':
      case '/deepest.png':
        return { type: 'image/png', body: png };
      case '/font.woff2':
        return { type: 'application/octet-stream', body: 'wOF2 pretend' };
      case '/big.bin':
        return { type: 'image/png', body: Buffer.alloc(2000) };
      case '/chunked.png':
        return { type: 'image/png', chunked: true };
      case '/slow.png':
        onSlow();
        return { hang: true };
      case '/redirect-in':
        return { status: 302, location: '/img.png' };
      case '/redirect-out':
        return { status: 302, location: `${other.origin}/x.png` };
      case '/loop':
        return { status: 301, location: '/loop' };
      default:
        return undefined;
    }
  });
});

afterAll(async () => {
  for (const s of [site, other]) s?.server.closeAllConnections();
  await Promise.all([site, other].map((s) => s && new Promise((ok) => s.server.close(ok))));
  await work?.cleanup();
});

/** A Meta event and a full snapshot whose nodes reference `urls` (img src, a stylesheet link, a style attribute). */
function events(origin: string, srcs: string[]): Buffer[] {
  let id = 1;
  const img = (src: string) => ({ type: 2, tagName: 'img', attributes: { src }, childNodes: [], id: id++ });
  const html = {
    type: 2,
    tagName: 'html',
    attributes: {},
    id: id++,
    childNodes: [
      {
        type: 2,
        tagName: 'head',
        attributes: {},
        id: id++,
        childNodes: [
          { type: 2, tagName: 'link', attributes: { rel: 'stylesheet', href: '/ok.css' }, childNodes: [], id: id++ },
        ],
      },
      {
        type: 2,
        tagName: 'body',
        attributes: { style: 'background: url("/font.woff2#x")' },
        id: id++,
        childNodes: [
          ...srcs.map(img),
          { type: 2, tagName: 'a', attributes: { href: '/not-an-asset.html' }, childNodes: [], id: id++ },
        ],
      },
    ],
  };
  const list = [
    { type: 4, data: { href: `${origin}/page/index.html`, width: 800, height: 600 }, timestamp: 1 },
    {
      type: 2,
      data: { node: { type: 0, childNodes: [html], id: id++ }, initialOffset: { top: 0, left: 0 } },
      timestamp: 2,
    },
    // A mutation adding an image later, and an attribute change of a tracked image.
    {
      type: 3,
      data: {
        source: 0,
        adds: [{ parentId: 5, nextId: null, node: img('../page/late.png') }],
        removes: [],
        texts: [],
        attributes: [{ id: 6, attributes: { src: '/img.png' } }],
      },
      timestamp: 3,
    },
  ];
  return list.map((e) => Buffer.from(JSON.stringify(e)));
}

/**
 * Runs `body` against a sandbox serving one replay recorded from `events(site.origin, srcs)` (starting at `startMs`),
 * then closes both.
 */
async function withRecording(
  name: string,
  srcs: string[],
  startMs: number,
  body: (sb: Sandbox, replayId: string) => Promise<void>,
): Promise<void> {
  const recorded = events(site.origin, srcs).map((b, i) => ({
    ...(JSON.parse(b.toString('utf8')) as Record<string, unknown>),
    timestamp: startMs + i * 1000,
  }));
  const samples = recordingSamplesDir(name, recorded);
  const sb = await startSandbox({ samplesDir: samples.dir });
  try {
    await body(sb, samples.replayId);
  } finally {
    await sb.close();
    samples.cleanup();
  }
}

const LIMITS: Omit<AssetCaptureSettings, 'origins'> = {
  concurrency: 2,
  maxBytes: 1000,
  timeoutMs: 400,
  maxRedirects: 2,
  maxUrls: 100,
  cssDepth: 2,
  retries: 2,
  retryBaseMs: 10,
  failureMemoryMs: 60_000,
};

describe('asset capture of a run', () => {
  test('fetches allowed origins only, within the limits; follows stylesheets; stores each asset once', async () => {
    const dir = join(work.dir, 'archive');
    const sink = createLocalSink(dir);
    // One fetch at a time, on a clock of the test's: when /slow.png's request arrives nothing else is under way, and
    // its time limit runs out then (moving the clock 400 ms), not when a busy machine has been slow.
    const clock = new ManualClock();
    onSlow = () => void clock.advance(LIMITS.timeoutMs);
    const capture = new AssetCapture(
      { origins: [site.origin], ...LIMITS, concurrency: 1 },
      archiveOfSink(sink).assets,
      {
        clock,
      },
    );
    const srcs = [
      '/big.bin',
      '/chunked.png',
      '/slow.png',
      '/redirect-in',
      '/redirect-out',
      '/loop',
      '/missing.png',
      `${other.origin}/x.png`,
      'data:image/png;base64,AAAA',
    ];
    const run = async () => {
      const replay = capture.replay('d/1');
      replay.observeBatch({ events: events(site.origin, srcs) } as never);
      return replay.finish();
    };
    const first = await run();
    const o = site.origin;
    expect(first.assets_missing).toEqual({
      [`${o}/big.bin`]: 'too large (2000 bytes)',
      [`${o}/chunked.png`]: 'too large (more than 1000 bytes)',
      [`${o}/slow.png`]: 'timed out after 400 ms',
      [`${o}/redirect-out`]: `redirected to an origin not allowed (${other.origin})`,
      [`${o}/loop`]: 'too many redirects',
      [`${o}/missing.png`]: 'HTTP 404',
      [`${o}/page/late.png`]: 'HTTP 404',
      [`${other.origin}/x.png`]: 'origin not allowed',
      // deeper.css is at depth 2: its own url() is beyond cssDepth.
    });
    expect(Object.keys(first.assets).sort()).toEqual(
      [
        `${o}/ok.css`,
        `${o}/nested.css`,
        `${o}/deeper.css`,
        `${o}/img.png`,
        `${o}/deep.png`,
        `${o}/font.woff2`,
        `${o}/redirect-in`,
      ].sort(),
    );
    expect(first.assets[`${o}/redirect-in`]).toBe(first.assets[`${o}/img.png`]);
    expect(first.asset_types[first.assets[`${o}/nested.css`]!]).toBe('text/css');
    // Served as octet-stream: typed by its extension.
    expect(first.asset_types[first.assets[`${o}/font.woff2`]!]).toBe('font/woff2');
    expect(site.hits.get('/deepest.png')).toBeUndefined();
    expect(site.hits.get('/not-an-asset.html')).toBeUndefined();
    // The other origin is never asked, not even through a redirect.
    expect(other.hits.size).toBe(0);
    for (const h of site.headers) {
      expect(h.cookie).toBeUndefined();
      expect(h.authorization).toBeUndefined();
      expect(h.referer).toBeUndefined();
    }

    // A second replay of the run referencing the same URLs: nothing fetched again, the same map.
    const hits = [...site.hits.values()].reduce((a, b) => a + b, 0);
    const second = await run();
    expect([...site.hits.values()].reduce((a, b) => a + b, 0)).toBe(hits);
    expect(second.assets).toEqual(first.assets);

    // Stored once each, named by their SHA-256, no temporary file left; each claimed first by the replay that stored it.
    const names = (await readdir(join(dir, '_assets'))).filter((n) => n !== '_claims');
    expect(names.sort()).toEqual([...new Set(Object.values(first.assets))].sort());
    const claims: string[] = [];
    for await (const digest of archiveOfSink(sink).assets.claims('d/1')) claims.push(digest);
    expect(claims.sort()).toEqual(names);
    for (const name of names)
      expect(
        createHash('sha256')
          .update(await readFile(join(dir, '_assets', name)))
          .digest('hex'),
      ).toBe(name);
    await capture.close();
    await sink.close();
    onSlow = () => undefined;
  });

  test('a transient failure is tried again within the time limit; one that lasts is recorded with its attempts', async () => {
    const dir = join(work.dir, 'transient');
    const sink = createLocalSink(dir);
    const capture = new AssetCapture(
      { origins: [site.origin], ...LIMITS, timeoutMs: 10_000 },
      archiveOfSink(sink).assets,
    );
    const replay = capture.replay('d/1');
    replay.observeBatch({ events: events(site.origin, ['/flaky.png', '/reset.png', '/down.png']) } as never);
    const got = await replay.finish();
    const o = site.origin;
    expect(got.assets[`${o}/flaky.png`]).toBe(createHash('sha256').update(png).digest('hex'));
    expect(got.assets[`${o}/reset.png`]).toBe(got.assets[`${o}/flaky.png`]);
    expect(site.hits.get('/flaky.png')).toBe(3);
    expect(site.hits.get('/reset.png')).toBe(2);
    // retries: 2 → three attempts, then recorded with their number.
    expect(got.assets_missing?.[`${o}/down.png`]).toBe('HTTP 503 (3 attempts)');
    expect(site.hits.get('/down.png')).toBe(3);
    await capture.close();
    await sink.close();
  });

  test('a transient failure is remembered for failureMemoryMs only: a later replay of the run tries the URL again', async () => {
    const o = site.origin;
    const sink = createLocalSink(join(work.dir, 'memory'));
    const replayOf = async (capture: AssetCapture) => {
      const replay = capture.replay('d/1');
      replay.observeBatch({ events: events(o, ['/later.png']) } as never);
      return replay.finish();
    };
    // On a clock of the test's, which stands still: the fetches' 400 ms limit never runs out on a busy machine, and
    // "within the minute" is exact.
    const clock = new ManualClock();
    laterUp = false;
    const remembering = new AssetCapture({ origins: [o], ...LIMITS, retries: 0 }, archiveOfSink(sink).assets, {
      clock,
    });
    expect((await replayOf(remembering)).assets_missing?.[`${o}/later.png`]).toBe('HTTP 502');
    const hits = site.hits.get('/later.png');
    laterUp = true;
    // Within the minute: the failure is remembered, not asked again.
    expect((await replayOf(remembering)).assets_missing?.[`${o}/later.png`]).toBe('HTTP 502');
    expect(site.hits.get('/later.png')).toBe(hits);
    await remembering.close();

    laterUp = false;
    const forgetting = new AssetCapture(
      { origins: [o], ...LIMITS, retries: 0, failureMemoryMs: 0 },
      archiveOfSink(sink).assets,
      { clock },
    );
    expect((await replayOf(forgetting)).assets_missing?.[`${o}/later.png`]).toBe('HTTP 502');
    laterUp = true;
    const later = await replayOf(forgetting);
    expect(later.assets[`${o}/later.png`]).toBe(createHash('sha256').update(png).digest('hex'));
    expect(later.assets_missing?.[`${o}/later.png`]).toBeUndefined();
    // A 404 is not transient: remembered for the run whatever failureMemoryMs says.
    const missing = site.hits.get('/missing.png') ?? 0;
    const replay = forgetting.replay('d/1');
    replay.observeBatch({ events: events(o, ['/missing.png']) } as never);
    await replay.finish();
    const again = forgetting.replay('d/2');
    again.observeBatch({ events: events(o, ['/missing.png']) } as never);
    expect((await again.finish()).assets_missing?.[`${o}/missing.png`]).toBe('HTTP 404');
    expect(site.hits.get('/missing.png')).toBe(missing + 1);
    await forgetting.close();
    await sink.close();
  });

  test('the collector keeps at most maxUrls URLs and counts the rest', () => {
    const found: string[] = [];
    const collector = new AssetUrlCollector(3, (u) => found.push(u));
    for (const e of events('http://127.0.0.1:9', ['/1.png', '/2.png', '/3.png', '/4.png', '/5.png']))
      collector.observe(e);
    expect(found).toHaveLength(3);
    expect(collector.dropped).toBeGreaterThan(0);
  });

  test('settings: origins are checked and normalised; limits come from DEFAULTS', () => {
    const s = resolveSettings({ captureAssets: ['https://cdn.example.com/', 'http://127.0.0.1:8080/path'] });
    expect(s.captureAssets?.origins).toEqual(['https://cdn.example.com', 'http://127.0.0.1:8080']);
    expect(s.captureAssets?.maxBytes).toBe(10 * 1024 * 1024);
    expect(resolveSettings({}).captureAssets).toBeUndefined();
    expect(() => resolveSettings({ captureAssets: ['ftp://x'] })).toThrow(/http\(s\) origins/);
    expect(() => resolveSettings({ captureAssets: [] })).toThrow(/at least one origin/);
    expect(() => resolveSettings({ captureAssets: ['https://u:p@x.example'] })).toThrow(/http\(s\) origins/);
  });

  test('archive: a replay whose asset failed for a passing reason is exported again by later runs that capture, until captured', async () => {
    await withRecording('recapture', ['/later.png'], Date.UTC(2026, 10, 21, 9, 0, 0), async (sb) => {
      const out = join(work.dir, 'recapture');
      const later = `${site.origin}/later.png`;
      const captureAssets = { origins: [site.origin], ...LIMITS, retries: 0, timeoutMs: 5_000 };
      const run = async (capture: boolean) => {
        const results = [];
        for await (const ev of archiveReplays({
          endpoint: sb.url,
          apiKey: sb.credentials.apiKey,
          secretKey: sb.credentials.secretKey,
          out,
          settleMs: 0,
          ...(capture ? { captureAssets } : {}),
        })) {
          if (ev.type === 'result') results.push(ev);
        }
        expect(results).toHaveLength(1);
        return results[0]!;
      };
      laterUp = false;
      const first = await run(true);
      expect(first.outcome).toBe('ok');
      expect((first.entry as LooseEntry | undefined)?.assets_missing?.[later]).toBe('HTTP 502');
      expect((first.entry as LooseEntry | undefined)?.assets_retry).toBe(true);
      // A run without capture leaves it alone; one with capture, the host still failing, exports it again.
      expect((await run(false)).outcome).toBe('done-before');
      const second = await run(true);
      expect(second.outcome).toBe('ok');
      expect((second.entry as LooseEntry | undefined)?.assets_retry).toBe(true);
      laterUp = true;
      const third = await run(true);
      expect(third.outcome).toBe('ok');
      expect((third.entry as LooseEntry | undefined)?.assets?.[later]).toBe(
        createHash('sha256').update(png).digest('hex'),
      );
      // What is still missing failed for good (a 404): nothing left to try again.
      expect((third.entry as LooseEntry | undefined)?.assets_missing?.[later]).toBeUndefined();
      expect((third.entry as LooseEntry | undefined)?.assets_missing?.[`${site.origin}/page/late.png`]).toBe(
        'HTTP 404',
      );
      expect((third.entry as LooseEntry | undefined)?.assets_retry).toBeUndefined();
      // Captured: done from now on.
      expect((await run(true)).outcome).toBe('done-before');
    });
  });

  test('the library: exportReplay with captureAssets (its own capture) records the map; the page embeds the assets', async () => {
    await withRecording(
      'library',
      ['/img.png', '/big.bin', `${other.origin}/x.png`],
      Date.UTC(2026, 10, 20, 9, 0, 0),
      async (sb, replayId) => {
        const out = join(work.dir, 'library');
        const entry: LooseEntry = await exportReplay(replayId, {
          endpoint: sb.url,
          apiKey: sb.credentials.apiKey,
          secretKey: sb.credentials.secretKey,
          out,
          format: 'html',
          captureAssets: { origins: [site.origin], maxBytes: 1000 },
        });
        expect(entry.status).toBe('ok');
        const digest = entry.assets![`${site.origin}/img.png`]!;
        expect(entry.asset_types![digest]).toBe('image/png');
        expect(entry.assets_missing![`${other.origin}/x.png`]).toBe('origin not allowed');
        expect(entry.assets_missing![`${site.origin}/big.bin`]).toBe('too large (2000 bytes)');
        const page = await readFile(join(out, entry.key!), 'utf8');
        expect(page).toContain(
          `<script type="text/plain" class="replay-asset" data-digest="${digest}">${png.toString('base64')}</script>`,
        );
      },
    );
  });
});
