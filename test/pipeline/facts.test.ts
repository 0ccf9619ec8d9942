import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventRun } from '../../decoders/index.js';
import { ReplayChecks } from '../../src/pipeline/checks.js';
import { FACT_LIMITS } from '../../src/pipeline/facts.js';
import { MAX_MANIFEST_RECORD_BYTES } from '../../sinks/manifest-lines.js';
import type { ManifestFacts, OkEntry } from '../../sinks/sink.js';
import { fitEntry } from '../../src/pipeline/manifest-entries.js';

const SAMPLES = join(import.meta.dirname, '../../samples');
const NAMES = ['form-typing', 'todo-mutations', 'long-scroll', 'canvas-drawing', 'intl-image', 'styles-resize'];

function sampleTexts(name: string): string[] {
  const events = JSON.parse(readFileSync(join(SAMPLES, 'expected', `${name}.json`), 'utf8')) as unknown[];
  return events.map((e) => JSON.stringify(e));
}

/** The facts through one Buffer per event (a version 2 replay's batches). */
function factsOfEvents(texts: readonly string[]): ManifestFacts {
  const checks = new ReplayChecks();
  checks.observe(texts.map((t) => Buffer.from(t)));
  return checks.factsResult();
}

/** The facts through runs of three events, with the decoder's timestamp readings on every other run. */
function factsOfRuns(texts: readonly string[]): ManifestFacts {
  const checks = new ReplayChecks();
  for (let i = 0; i < texts.length; i += 3) {
    const part = texts.slice(i, i + 3);
    const ends = new Int32Array(part.length);
    let at = -1;
    part.forEach((t, k) => {
      at += 1 + Buffer.byteLength(t);
      ends[k] = at;
    });
    const run: EventRun = { bytes: Buffer.from(part.join(',')), ends };
    const stamped =
      (i / 3) % 2 === 0
        ? { ...run, timestamps: Float64Array.from(part, (t) => (JSON.parse(t) as { timestamp: number }).timestamp) }
        : run;
    checks.observeBatch({ runs: [stamped] });
  }
  return checks.factsResult();
}

/** The facts of `texts` both ways, which must agree. */
function factsOf(texts: readonly string[]): ManifestFacts {
  const facts = factsOfEvents(texts);
  expect(factsOfRuns(texts)).toEqual(facts);
  return facts;
}

type Ev = { type: number; data: Record<string, unknown>; timestamp: number };
const parse = (t: string): Ev => JSON.parse(t) as Ev;

/** Events added after a sample's last (at `end` + ...): clicks, a mutation, a console error, requests, a page. */
function addedEvents(end: number): string[] {
  const click = (t: number, x: number, y: number): string =>
    JSON.stringify({ type: 3, data: { source: 2, type: 2, id: 22, x, y }, timestamp: end + t });
  const mutation = (t: number): string =>
    JSON.stringify({
      type: 3,
      data: { source: 0, texts: [], attributes: [], removes: [], adds: [] },
      timestamp: end + t,
    });
  return [
    // A rage click: four clicks within a second, within 30 px of the first; the page answers.
    click(1000, 100, 100),
    click(1200, 105, 98),
    click(1400, 110, 104),
    click(1500, 100, 100),
    mutation(1600),
    // Far apart in space: no rage click; then nothing changes for 7 s: both are dead.
    click(3000, 100, 100),
    click(3100, 400, 400),
    JSON.stringify({
      type: 6,
      data: {
        plugin: 'rrweb/console@1',
        payload: { level: 'error', trace: [], payload: ['"TypeError: cart is undefined"', '"at checkout"'] },
      },
      timestamp: end + 4000,
    }),
    JSON.stringify({
      type: 6,
      data: {
        plugin: 'rrweb/network@1',
        payload: {
          requests: [
            { name: '/api/cart', method: 'POST', responseStatus: 500 },
            { name: '/api/user', method: 'GET', responseStatus: 200 },
            { name: '/api/pay', method: 'GET', responseStatus: 0 },
          ],
        },
      },
      timestamp: end + 4500,
    }),
    JSON.stringify({
      type: 4,
      data: { href: 'https://shop.example/checkout', width: 390, height: 844 },
      timestamp: end + 11_000,
    }),
    JSON.stringify({
      type: 6,
      data: { plugin: 'rrweb/console@1', payload: { level: 'error', trace: [], payload: ['"second"'] } },
      timestamp: end + 12_000,
    }),
  ];
}

/** An rrweb console plugin event of level error, its one argument `message`. */
function consoleError(message: string, timestamp: number): string {
  const payload = { level: 'error', trace: [], payload: [JSON.stringify(message)] };
  return JSON.stringify({ type: 6, data: { plugin: 'rrweb/console@1', payload }, timestamp });
}

/** The facts of a sample with a hostile tail: 20,000 distinct URLs, a 200 kB href, a 1 MB console error. */
function hostileFacts(texts: readonly string[]): ManifestFacts {
  const t0 = parse(texts.at(-1)!).timestamp;
  const hostile: string[] = [];
  for (let i = 0; i < 20_000; i++)
    hostile.push(
      JSON.stringify({ type: 4, data: { href: `https://x.example/${i}`, width: 1, height: 1 }, timestamp: t0 + i }),
    );
  hostile.push(
    JSON.stringify({ type: 4, data: { href: `https://x.example/${'é'.repeat(100_000)}` }, timestamp: t0 + 200_000 }),
  );
  return factsOf([...texts, ...hostile, consoleError('€'.repeat(350_000), t0 + 300_000)]);
}

describe('facts recorded at export', () => {
  it('counts the samples’ pages and clicks as JSON.parse of every event sees them', () => {
    for (const name of NAMES) {
      const texts = sampleTexts(name);
      const events = texts.map(parse);
      const metas = events.filter((e) => e.type === 4);
      const clicks = events.filter((e) => e.type === 3 && e.data['source'] === 2 && e.data['type'] === 2).length;
      const facts = factsOf(texts);
      expect(facts.pages, name).toBe(metas.length);
      expect(facts.urls, name).toEqual([...new Set(metas.map((m) => m.data['href']))]);
      expect(facts.clicks, name).toBe(clicks);
      expect(clicks, name).toBeGreaterThan(0);
      // long-scroll triple-clicks a paragraph (three clicks in 1 ms on one spot): a rage click by PostHog's rule.
      expect(facts.rage_clicks, name).toBe(name === 'long-scroll' ? 1 : 0);
      expect(facts.errors, name).toBe(0);
      expect(facts.duration_ms, name).toBe(events.at(-1)!.timestamp - events[0]!.timestamp);
      expect(facts.viewport, name).toEqual({ width: metas[0]!.data['width'], height: metas[0]!.data['height'] });
      expect(facts.active_ms, name).toBeGreaterThan(0);
      expect(facts.active_ms, name).toBeLessThanOrEqual(facts.duration_ms);
      expect(facts.network_requests, name).toBeUndefined();
    }
  });

  it('finds rage and dead clicks, a second page, the first error and failed requests added to a sample', () => {
    const texts = sampleTexts('todo-mutations');
    const end = parse(texts.at(-1)!).timestamp;
    const added = addedEvents(end);
    const base = factsOf(texts);
    const facts = factsOf([...texts, ...added]);
    expect(facts.clicks).toBe(base.clicks + 6);
    expect(facts.rage_clicks).toBe(1);
    expect(facts.dead_clicks).toBe(base.dead_clicks + 2);
    expect(facts.pages).toBe(2);
    expect(facts.urls).toEqual([...base.urls, 'https://shop.example/checkout']);
    expect(facts.viewport).toEqual(base.viewport);
    expect(facts.errors).toBe(2);
    expect(facts.first_error).toBe('TypeError: cart is undefined at checkout');
    expect(facts.first_error_ms).toBe(end + 4000 - parse(texts[0]!).timestamp);
    expect({ requests: facts.network_requests, failed: facts.network_failed }).toEqual({ requests: 3, failed: 2 });
    // The same clicks with a scroll right after the last two: they were answered.
    const scrolled = [...added];
    scrolled.splice(7, 0, JSON.stringify({ type: 3, data: { source: 3, id: 1, x: 0, y: 300 }, timestamp: end + 3200 }));
    expect(factsOf([...texts, ...scrolled]).dead_clicks).toBe(base.dead_clicks);
  });

  it('stays within its bounds on a hostile recording: 20,000 distinct URLs, a 200 kB href, a 1 MB error', () => {
    const texts = sampleTexts('form-typing');
    const t0 = parse(texts.at(-1)!).timestamp;
    const facts = hostileFacts(texts);
    expect(facts.pages).toBe(1 + 20_001);
    expect(facts.urls).toHaveLength(FACT_LIMITS.urls);
    expect(facts.urls_more).toBe(20_001 - (FACT_LIMITS.urls - 1));
    for (const url of facts.urls) expect(Buffer.byteLength(url)).toBeLessThanOrEqual(FACT_LIMITS.urlBytes);
    expect(facts.errors).toBe(1);
    expect(facts.first_error).toBeUndefined();
    expect(Buffer.byteLength(JSON.stringify(facts))).toBeLessThan(8 * 1024);
    // A long message is cut on a character boundary.
    const cut = factsOf([...texts, consoleError('€'.repeat(1000), t0 + 1)]).first_error!;
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(FACT_LIMITS.messageBytes);
    expect(cut).toBe('€'.repeat(Math.floor(FACT_LIMITS.messageBytes / 3)));
  });

  it('keeps a line within the record limit: an ok line fitted for its assets keeps its facts whole', () => {
    const checks = new ReplayChecks();
    checks.observe(sampleTexts('form-typing').map((t) => Buffer.from(t)));
    const facts = hostileFacts(sampleTexts('form-typing'));
    const assets: Record<string, string> = {};
    // ~20 MB of captured assets: the line passes the record limit and is fitted.
    for (let i = 0; i < 200_000; i++) assets[`https://cdn.example/${i}/${'a'.repeat(40)}.png`] = `assets/${i}.png`;
    const entry: OkEntry = {
      replay_id: 'device/session',
      status: 'ok',
      key: 'device/session.json',
      event_count: 1,
      bytes: 1,
      format: 'json',
      gzip: false,
      sha256: '0'.repeat(64),
      recorded_at: new Date(0).toISOString(),
      checks: checks.result(),
      facts,
      assets,
    };
    const fitted = fitEntry(entry) as OkEntry;
    expect(Buffer.byteLength(JSON.stringify(fitted))).toBeLessThanOrEqual(MAX_MANIFEST_RECORD_BYTES);
    expect(fitted.assets).toBeUndefined();
    expect(fitted.assets_count).toBe(200_000);
    expect(fitted.facts).toEqual(facts);
  });
});
