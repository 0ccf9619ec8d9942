/**
 * The shared player (`playerAssets` + `playerShell`) served from a loopback server, as `replay-export view` will:
 * Chromium loads the assets same-origin, streams the events as NDJSON and plays them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playerPageEvents } from '../../bench/player-pages.js';
import { launchChromium } from '../../samples/lib/chromium.js';
import { playerAssets, playerShell } from '../../sinks/player-page.js';
import { shots } from './helpers.js';

let browser: Browser;
let server: Server;
let origin: string;
/** Ends the held response of /replays/held/events.ndjson (the page shows its loading state until then). */
let releaseHeld: (() => void) | undefined;
/** The canvas replay's length, ms. */
let canvasMs = 0;
/** Events of /replays/long. */
let longCount = 0;

beforeAll(async () => {
  const events = JSON.parse(
    await readFile(join(import.meta.dirname, '..', '..', 'samples', 'expected', 'intl-image.json'), 'utf8'),
  ) as unknown[];
  const ndjson = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
  // A canvas replay whose last ~45 s are canvas frames only (held back from the Replayer by the canvas window).
  const canvas = await playerPageEvents(3e6);
  canvasMs = canvas.at(-1)!.timestamp - canvas[0]!.timestamp;
  const canvasNdjson = canvas.map((e) => JSON.stringify(e)).join('\n') + '\n';
  // One large custom event (4 MB, multi-byte characters) among the sample's, the last line without its newline.
  const big = {
    type: 5,
    timestamp: (events[2] as { timestamp: number }).timestamp + 1,
    data: { tag: 'big', payload: { text: 'é🙏'.repeat(700_000) } },
  };
  const longNdjson = [...events.slice(0, 3), big, ...events.slice(3)].map((e) => JSON.stringify(e)).join('\n');
  longCount = events.length + 1;
  const { files } = playerAssets();
  server = createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0]!;
    if (url === '/replays/r1') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(playerShell({ title: 'r1 <x>', eventsUrl: '/replays/r1/events.ndjson', assetBase: '/player/' }));
    } else if (url === '/replays/r1/events.ndjson') {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      // Two writes, so the browser sees the stream in more than one piece.
      const half = Math.floor(ndjson.length / 2);
      res.write(ndjson.slice(0, half));
      setTimeout(() => res.end(ndjson.slice(half)), 100);
    } else if (url === '/replays/canvas') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(playerShell({ title: 'canvas', eventsUrl: '/replays/canvas/events.ndjson', assetBase: '/player/' }));
    } else if (url === '/replays/canvas/events.ndjson') {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      // In pieces, as a large stored replay streams: the Replayer starts on the first.
      const step = 256 * 1024;
      let at = 0;
      const next = (): void => {
        if (at >= canvasNdjson.length) return void res.end();
        res.write(canvasNdjson.slice(at, (at += step)));
        setTimeout(next, 20);
      };
      next();
    } else if (url === '/replays/long') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(playerShell({ title: 'long', eventsUrl: '/replays/long/events.ndjson', assetBase: '/player/' }));
    } else if (url === '/replays/long/events.ndjson') {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      // Pieces of 7 KB: most cut the long line, many cut a character's bytes.
      const bytes = Buffer.from(longNdjson);
      const step = 7 * 1024;
      let at = 0;
      const next = (): void => {
        if (at >= bytes.length) return void res.end();
        res.write(bytes.subarray(at, (at += step)), () => setImmediate(next));
      };
      next();
    } else if (url === '/replays/held') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(playerShell({ title: 'held', eventsUrl: '/replays/held/events.ndjson', assetBase: '/player/' }));
    } else if (url === '/replays/held/events.ndjson') {
      // Headers and the first event now, the rest only when the test says: the meta event alone cannot start a replay.
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const lines = ndjson.split('\n');
      res.write(lines[0] + '\n');
      releaseHeld = () => res.end(lines.slice(1).join('\n'));
    } else if (url.startsWith('/player/') && files[url.slice(8)]) {
      const file = files[url.slice(8)]!;
      res.writeHead(200, { 'content-type': file.type });
      res.end(file.body);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe('shared player', () => {
  it('streams NDJSON events from the same origin and plays them to the end state', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const outside: string[] = [];
    await context.route('**', (route) => {
      const url = route.request().url();
      if (url.startsWith(origin)) return route.continue();
      outside.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}/replays/r1?paused`);
    await page.waitForSelector('body[data-loaded="true"]');
    expect(await page.title()).toBe('r1 <x>');
    await page.evaluate(() => {
      const r = (window as unknown as { replayer: { pause(t: number): void; getMetaData(): { totalTime: number } } })
        .replayer;
      r.pause(r.getMetaData().totalTime);
    });
    await page.waitForTimeout(300);
    const text = await page.evaluate(
      () => (document.querySelector('#stage iframe') as HTMLIFrameElement).contentDocument?.body?.innerText ?? '',
    );
    await context.close();
    expect(errors).toEqual([]);
    expect(text).toContain('Thanks 🙏 — 谢谢');
    expect(outside).toEqual([]);
  });

  it('a 4 MB event streamed in 7 KB pieces, and a last line without its newline, arrive whole', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}/replays/long?paused`);
    await page.waitForSelector('body[data-loaded="true"]');
    const got = await page.evaluate(() => {
      const r = (
        window as unknown as {
          replayer: {
            service: {
              state: { context: { events: { type: number; data: { tag?: string; payload?: { text: string } } }[] } };
            };
          };
        }
      ).replayer;
      const all = r.service.state.context.events;
      const big = all.find((e) => e.type === 5 && e.data.tag === 'big');
      return {
        count: all.length,
        length: big?.data.payload?.text.length,
        intact: big?.data.payload?.text.startsWith('é🙏é🙏') && big.data.payload.text.endsWith('é🙏'),
      };
    });
    await context.close();
    expect(errors).toEqual([]);
    expect(got).toEqual({ count: longCount, length: 'é🙏'.length * 700_000, intact: true });
  });

  it("takes the player's URL options and window.player like the one-page format", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${origin}/replays/r1?width=400&height=300&speed=2&autoplay=0`);
    await page.waitForSelector('body[data-loaded="true"]');
    await page.waitForFunction(() => document.getElementById('stage')!.hasAttribute('data-scale'));
    const shown = await page.evaluate(() => {
      const r = document.getElementById('stage')!.getBoundingClientRect();
      const player = (window as unknown as { player: { goto(t: number): void; getCurrentTime(): number } }).player;
      player.goto(1000);
      return {
        width: r.width,
        height: r.height,
        speed: (document.getElementById('speed') as HTMLSelectElement).value,
        at: player.getCurrentTime(),
      };
    });
    await context.close();
    expect(shown.width).toBe(400);
    expect(shown.height).toBe(300);
    expect(shown.speed).toBe('2');
    expect(Math.abs(shown.at - 1000)).toBeLessThan(5);
  });

  it('a long canvas replay, streamed, shows its whole length once loaded; End goes to its end', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${origin}/replays/canvas?paused`);
    await page.waitForSelector('body[data-loaded="true"]');
    const whole = `${String(Math.floor(canvasMs / 60_000)).padStart(2, '0')}:${String(Math.floor(canvasMs / 1000) % 60).padStart(2, '0')}`;
    await expect.poll(() => page.textContent('#status')).toMatch(new RegExp(`^0:00:00 / 0:${whole} · `));
    expect(Number(await page.getAttribute('#seek', 'max'))).toBe(canvasMs);
    await page.keyboard.press('End');
    await expect.poll(() => page.textContent('#status')).toMatch(new RegExp(`^0:${whole} / 0:${whole} · `));
    await page.screenshot({ path: join(shots, 'shared-player-canvas-length.png') });
    await context.close();
  });

  it('shows that it is loading, with no clock and Play disabled, until the first frame can be shown', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${origin}/replays/held`);
    await page.waitForFunction(() => typeof (window as unknown as { rrweb?: unknown }).rrweb === 'object');
    await page.waitForTimeout(300);
    const loading = await page.evaluate(() => ({
      shown: !document.getElementById('loading')!.hidden,
      text: document.getElementById('loading')!.textContent,
      clock: document.getElementById('status')!.textContent,
      play: (document.getElementById('play') as HTMLButtonElement).disabled,
      ready: document.body.getAttribute('data-ready'),
    }));
    await page.screenshot({ path: join(shots, 'shared-player-loading.png') });
    expect(loading).toEqual({ shown: true, text: 'Loading the replay…', clock: '', play: true, ready: null });
    releaseHeld!();
    await page.waitForSelector('body[data-ready="true"]');
    const started = await page.evaluate(() => ({
      shown: !document.getElementById('loading')!.hidden,
      clock: document.getElementById('status')!.textContent,
      play: (document.getElementById('play') as HTMLButtonElement).disabled,
    }));
    await page.screenshot({ path: join(shots, 'shared-player-started.png') });
    await context.close();
    expect(started.shown).toBe(false);
    expect(started.play).toBe(false);
    // The clock starts with the first frame: at most a moment into the replay.
    expect(started.clock).toMatch(/^0:00:0\d \/ /);
  });
});
