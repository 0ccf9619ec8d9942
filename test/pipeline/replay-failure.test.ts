/**
 * A replay's failure is its own (issue 37, item 3): nothing one replay brings — its id, its events, its assets, the
 * size of its manifest line — ends the run or stops the replays after it. Each case is one the issue measured ending
 * every night's run; each is followed here by a replay that must still be exported.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { verifyArchive } from '../../src/archive.js';
import { join } from 'node:path';
import { archiveReplays, type ArchiveEvent, type ArchiveOptions } from '../../src/index.js';
import { AssetUrlCollector, MAX_URL_BYTES, type ScanMeter } from '../../src/assets/collect.js';
import { fitEntry, MAX_REPLAY_ID_BYTES } from '../../src/pipeline/manifest-entries.js';
import { MAX_MANIFEST_RECORD_BYTES } from '../../sinks/manifest-lines.js';
import type { OkEntry } from '../../sinks/sink.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { FAST, lastById, readManifest, tempDir } from './helpers.js';
import { pageWithImages, recordedSamples, type RecordedSamples } from './recorded-replays.js';

const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
/** An origin nothing is fetched from: every URL is recorded `origin not allowed`, no request made. */
const ALLOWED = 'http://127.0.0.1:9';
const HOUR = 3_600_000;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

let sandbox: Sandbox | undefined;
let samples: RecordedSamples | undefined;
let work: { dir: string; cleanup: () => Promise<void> } | undefined;
afterEach(async () => {
  await sandbox?.close();
  samples?.cleanup();
  await work?.cleanup();
  sandbox = samples = work = undefined;
});

const goodEvents = (startMs: number) => pageWithImages('https://example.com/ok.html', ['a.png'], startMs);

/** Runs an archive of the sandbox into a fresh folder, one replay at a time, in start order. */
async function archive(extra: Partial<ArchiveOptions>): Promise<{ results: Map<string, ArchiveEvent>; out: string }> {
  work ??= await tempDir('replay-failure-');
  const out = join(work.dir, `out-${Math.random().toString(36).slice(2)}`);
  const results = new Map<string, ArchiveEvent>();
  for await (const ev of archiveReplays({
    endpoint: sandbox!.url,
    ...sandbox!.credentials,
    ...FAST,
    out,
    settleMs: 0,
    concurrency: 1,
    ...extra,
  }))
    if (ev.type === 'result') results.set(ev.replayId, ev);
  return { results, out };
}

const outcome = (results: Map<string, ArchiveEvent>, id: string): string | undefined => {
  const ev = results.get(id);
  return ev?.type === 'result' ? ev.outcome : undefined;
};

describe("a replay's failure is its own", () => {
  test('a page with a 40,000-character URL and 1,000 relative images, captured: recorded, and the run goes on', async () => {
    const longPage = `https://example.com/${'p'.repeat(40_000)}/index.html`;
    const images = Array.from({ length: 1_000 }, (_, i) => `img-${i}.png`);
    // 1,000 absolute URLs of 4,000 CJK characters: 36 kB each once percent-encoded.
    const cjk = Array.from({ length: 1_000 }, (_, i) => `https://example.com/${'字'.repeat(4_000)}${i}.png`);
    samples = recordedSamples([
      { name: 'long-url', startMs: T0, events: pageWithImages(longPage, images, T0) },
      { name: 'cjk', startMs: T0 + HOUR, events: pageWithImages('https://example.com/', cjk, T0 + HOUR) },
      { name: 'after', startMs: T0 + 2 * HOUR, events: goodEvents(T0 + 2 * HOUR) },
    ]);
    sandbox = await startSandbox({ samplesDir: samples.dir, sortOrder: 'asc' });
    const { results, out } = await archive({ captureAssets: { origins: [ALLOWED] } });
    const last = lastById(await readManifest(out));
    for (const name of ['long-url', 'cjk', 'after']) {
      const id = samples.ids.get(name)!;
      expect(outcome(results, id), name).toBe('ok');
      expect(last.get(id)?.status, name).toBe('ok');
    }
    for (const name of ['long-url', 'cjk']) {
      const line = last.get(samples.ids.get(name)!) as unknown as OkEntry;
      // None of the URLs over the limit is listed; they are counted. (The line's `checks.first_url` is the page's
      // address, from a Meta event of at most 64 KiB.)
      expect(line.assets_missing).toEqual({ '*': `1000 URL(s) over ${MAX_URL_BYTES} bytes` });
      expect(Buffer.byteLength(JSON.stringify(line))).toBeLessThan(64 * 1024);
    }
  });

  test('a 17 MB replay id from the API: recorded failed under a stand-in, no request for it, the run goes on', async () => {
    samples = recordedSamples([{ name: 'after', startMs: T0, events: goodEvents(T0) }]);
    const huge = `${'d'.repeat(17 * 1024 * 1024)}/${T0 - HOUR}`;
    sandbox = await startSandbox({
      samplesDir: samples.dir,
      sortOrder: 'asc',
      extraReplays: [{ replay_id: huge, sample: 'after', start_time: new Date(T0 - HOUR).toISOString() }],
    });
    // Its listing page holds the id twice (replay_id, device_id): over the default 32 MiB an answer may take.
    const transportOptions = { ...FAST.transportOptions, maxResponseBytes: 64 * 1024 * 1024 };
    const { results, out } = await archive({ transportOptions });
    const lines = await readManifest(out);
    expect(lines).toHaveLength(2);
    const failed = lines.find((l) => l.status === 'failed')!;
    expect(failed.error).toMatchObject({ code: 'REPLAY_ID_TOO_LONG' });
    const standIn = failed.replay_id as string;
    expect(Buffer.byteLength(standIn)).toBeLessThan(300);
    expect(standIn).toContain(`${17 * 1024 * 1024 + 1 + String(T0 - HOUR).length} bytes`);
    expect(Buffer.byteLength(JSON.stringify(failed))).toBeLessThan(2_000);
    expect(outcome(results, standIn)).toBe('failed');
    expect(outcome(results, samples.ids.get('after')!)).toBe('ok');
    // The stand-in is the same every run: the replay's failures add up (quarantine) like any other's.
    const again = await archive({ transportOptions });
    expect(outcome(again.results, standIn)).toBe('failed');
    expect(MAX_REPLAY_ID_BYTES).toBe(16 * 1024);
  });

  test('an entry that would pass the record limit is recorded without the part that overflows; the run goes on', async () => {
    // 5,000 URLs of ~4,000 bytes, each within the URL limit: ~20 MB of `assets_missing`.
    const urls = Array.from({ length: 5_000 }, (_, i) => `https://example.com/${'u'.repeat(3_980)}/${i}.png`);
    samples = recordedSamples([
      { name: 'wide', startMs: T0, events: pageWithImages('https://example.com/', urls, T0) },
      { name: 'after', startMs: T0 + HOUR, events: goodEvents(T0 + HOUR) },
    ]);
    sandbox = await startSandbox({ samplesDir: samples.dir, sortOrder: 'asc' });
    const { results, out } = await archive({ captureAssets: { origins: [ALLOWED], maxUrls: 10_000 } });
    const last = lastById(await readManifest(out));
    const wide = last.get(samples.ids.get('wide')!) as unknown as OkEntry;
    expect(wide.status).toBe('ok');
    expect(wide.event_count).toBe(2);
    expect(wide.assets_missing).toEqual({
      '*': "5000 URL(s) not captured, not listed: the list would pass the manifest's record limit",
    });
    expect(wide.assets).toEqual({});
    expect(outcome(results, samples.ids.get('after')!)).toBe('ok');
    expect(last.get(samples.ids.get('after')!)?.status).toBe('ok');
  });
});

describe('captured assets too many to list', () => {
  let site: Server | undefined;
  afterEach(async () => {
    site?.closeAllConnections();
    await new Promise((ok) => (site ? site.close(ok) : ok(undefined)));
    site = undefined;
  });

  test("are recorded by count and digest; verify still knows them as the replay's (its asset claims)", async () => {
    // One tiny image at 4,500 URLs of ~3,990 bytes: one stored asset, an 18 MB map of URLs to it.
    site = createServer((_, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG));
    await new Promise<void>((ok) => site!.listen(0, '127.0.0.1', ok));
    const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const urls = Array.from({ length: 4_500 }, (_, i) => `${origin}/${'u'.repeat(3_960)}/${i}.png`);
    samples = recordedSamples([
      { name: 'wide', startMs: T0, events: pageWithImages(`${origin}/`, urls, T0) },
      { name: 'after', startMs: T0 + HOUR, events: goodEvents(T0 + HOUR) },
    ]);
    sandbox = await startSandbox({ samplesDir: samples.dir, sortOrder: 'asc' });
    const { results, out } = await archive({ captureAssets: { origins: [origin], maxUrls: 10_000, concurrency: 16 } });
    const last = lastById(await readManifest(out));
    const wide = last.get(samples.ids.get('wide')!) as unknown as OkEntry;
    expect(wide).toMatchObject({
      status: 'ok',
      assets_count: 4_500,
      assets_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(wide.assets).toBeUndefined();
    expect(outcome(results, samples.ids.get('after')!)).toBe('ok');
    const verification = verifyArchive({ out });
    const problems: unknown[] = [];
    for await (const p of verification) problems.push(p);
    expect(problems).toEqual([]);
  });
});

describe('the part that overflows', () => {
  const base = {
    replay_id: 'd/1',
    status: 'ok',
    key: 'd/1.json',
    event_count: 1,
    bytes: 1,
    sha256: '0'.repeat(64),
    format: 'json',
    gzip: false,
    checks: {},
    recorded_at: '2026-11-20T00:00:00.000Z',
  } as unknown as OkEntry;

  test('an entry that fits is left as it is; captured assets too many to list are recorded by count and digest', () => {
    expect(fitEntry(base)).toBe(base);
    const assets: Record<string, string> = {};
    for (let i = 0; i < 5_000; i++) assets[`https://example.com/${'a'.repeat(4_000)}/${i}`] = 'f'.repeat(64);
    const fitted = fitEntry({ ...base, assets, asset_types: { ['f'.repeat(64)]: 'image/png' } }) as OkEntry;
    expect(fitted.assets).toBeUndefined();
    expect(fitted.asset_types).toBeUndefined();
    expect(fitted.assets_count).toBe(5_000);
    expect(fitted.assets_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.byteLength(JSON.stringify(fitted))).toBeLessThan(MAX_MANIFEST_RECORD_BYTES);
  });
});

describe('work on input-sized strings is linear', () => {
  /** Events of a page at a `hrefBytes`-long address with `n` relative images; the collector's URLs and its work. */
  function scan(hrefBytes: number, n: number): { found: string[]; meter: ScanMeter; input: number; tooLong: number } {
    const href = `https://example.com/${'h'.repeat(hrefBytes)}/page.html`;
    const events = pageWithImages(
      href,
      Array.from({ length: n }, (_, i) => `i${i}.png`),
      T0,
    ).map((e) => Buffer.from(JSON.stringify(e)));
    const found: string[] = [];
    const meter: ScanMeter = { steps: 0 };
    const collector = new AssetUrlCollector(100_000, (u) => found.push(u), meter);
    for (const e of events) collector.observe(e);
    return { found, meter, input: events.reduce((a, e) => a + e.length, 0), tooLong: collector.tooLong };
  }

  test('a 200 kB href with 1,000 relative images: each URL resolved against a bounded base, none kept over the limit', () => {
    const { found, meter, input, tooLong } = scan(200_000, 1_000);
    // Path-relative images of a 200 kB path: every one would be over the limit; none is resolved against 200 kB.
    expect(found).toEqual([]);
    expect(tooLong).toBe(1_000);
    expect(meter.steps).toBeLessThan(2 * input);
    // The same page at a short address: every image is found, and the work stays within the events' size.
    const short = scan(100, 1_000);
    expect(short.found).toHaveLength(1_000);
    expect(short.found.every((u) => Buffer.byteLength(u) <= MAX_URL_BYTES)).toBe(true);
    expect(short.meter.steps).toBeLessThan(10 * short.input);
  });

  test('a long page address still resolves root-relative and absolute references, and ones below a short folder', () => {
    const found: string[] = [];
    const collector = new AssetUrlCollector(100, (u) => found.push(u));
    const longLast = `https://example.com/dir/${'x'.repeat(50_000)}?${'q'.repeat(10_000)}`;
    for (const e of pageWithImages(longLast, ['/root.png', 'same-dir.png', '?v=2', 'https://cdn.example/a.png'], T0))
      collector.observe(Buffer.from(JSON.stringify(e)));
    expect(found.sort()).toEqual(
      ['https://cdn.example/a.png', 'https://example.com/dir/same-dir.png', 'https://example.com/root.png'].sort(),
    );
    expect(collector.tooLong).toBe(1);
  });
});
