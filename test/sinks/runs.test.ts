import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SinkError } from '../../sinks/errors.js';
import { createLocalSink } from '../../sinks/local.js';
import type { OutputSpec } from '../../sinks/sink.js';
import { runOf } from './helpers/runs.js';

const texts = Array.from({ length: 50 }, (_, i) =>
  JSON.stringify({ type: 3, timestamp: 1763629200000 + i, data: { s: '</script> é😀\u2028', i } }),
);

const OUTPUTS: OutputSpec[] = [
  { format: 'json', gzip: false },
  { format: 'json', gzip: true },
  { format: 'ndjson', gzip: false },
  { format: 'ndjson', gzip: true },
  { format: 'html', gzip: false },
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sink-runs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ReplayWriter.writeRuns (local sink)', () => {
  it.each(OUTPUTS)('stores the same bytes as write() of the same events (%o)', async (output) => {
    const a = createLocalSink(join(dir, `write-${output.format}-${output.gzip}`));
    const b = createLocalSink(join(dir, `runs-${output.format}-${output.gzip}`));
    const wa = await a.open('dev/1', output);
    await wa.write(texts.slice(0, 20).map((t) => Buffer.from(t)));
    await wa.write(texts.slice(20).map((t) => Buffer.from(t)));
    const ra = await wa.commit();
    const wb = await b.open('dev/1', output);
    expect(wb.writeRuns).toBeTypeOf('function');
    await wb.writeRuns!([runOf(texts.slice(0, 1)), runOf(texts.slice(1, 20))]);
    await wb.writeRuns!([]);
    await wb.writeRuns!([runOf(texts.slice(20))]);
    const rb = await wb.commit();
    expect(rb).toEqual(ra);
    const fa = await readFile(join(a.target, ...ra.key.split('/')));
    const fb = await readFile(join(b.target, ...rb.key.split('/')));
    expect(fb.equals(fa)).toBe(true);
    const text = (output.gzip ? gunzipSync(fb) : fb).toString();
    if (output.format === 'json') expect(JSON.parse(text)).toEqual(texts.map((t) => JSON.parse(t) as unknown));
    if (output.format === 'ndjson') expect(text).toBe(texts.join('\n') + '\n');
    await a.close();
    await b.close();
  });

  it.each([
    ['a raw LF inside an event', { bytes: Buffer.from('{"a":1},{"b":\n2}'), ends: Int32Array.of(7, 16) }, 1],
    ['a raw CR', { bytes: Buffer.from('{"a":\r1}'), ends: Int32Array.of(8) }, 0],
    [
      'an end that is not followed by a comma',
      { bytes: Buffer.from('{"a":1},{"b":2}'), ends: Int32Array.of(6, 15) },
      0,
    ],
    ['a last end short of the bytes', { bytes: Buffer.from('{"a":1},{"b":2}'), ends: Int32Array.of(7, 14) }, 1],
  ])('refuses a run with %s (SINK_BAD_EVENT naming the event) and leaves nothing', async (_name, run, index) => {
    const sink = createLocalSink(join(dir, 'bad'));
    const w = await sink.open('dev/2', { format: 'json', gzip: false });
    await w.writeRuns!([runOf(texts.slice(0, 2))]);
    const err = await w.writeRuns!([run]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect((err as SinkError).code).toBe('SINK_BAD_EVENT');
    expect((err as SinkError).index).toBe(2 + index);
    expect(await sink.exists(w.key)).toBe(false);
    await sink.close();
  });
});

describe('the html page: events in blocks the player takes as the page is parsed', () => {
  const BLOCK =
    /<script type="application\/json" class="replay-events">([^<]*)<\/script><script>replayTakeBlocks\(\)<\/script>/g;
  // ~3.4 MB of events with markup in their strings, one of them larger than a block on its own.
  const big = Array.from({ length: 3000 }, (_, i) =>
    JSON.stringify({ type: 3, timestamp: 1763629200000 + i, data: { s: `</script><!-- ${'x'.repeat(i % 2000)}`, i } }),
  );
  big[1500] = JSON.stringify({ type: 3, timestamp: 1763629201500, data: { s: 'y'.repeat(1_200_000) } });

  async function page(
    name: string,
    store: (w: Awaited<ReturnType<ReturnType<typeof createLocalSink>['open']>>) => Promise<void>,
  ): Promise<string> {
    const sink = createLocalSink(join(dir, name));
    const w = await sink.open('dev/1', { format: 'html', gzip: false });
    await store(w);
    const r = await w.commit();
    await sink.close();
    return readFile(join(dir, name, r.key), 'utf8');
  }

  it('cuts the events into blocks of about PAGE_BLOCK_BYTES, the same whether written as events or as runs', async () => {
    const byEvents = await page('blocks-events', async (w) => {
      for (let i = 0; i < big.length; i += 700) await w.write(big.slice(i, i + 700).map((t) => Buffer.from(t)));
    });
    const byRuns = await page('blocks-runs', async (w) => {
      for (let i = 0; i < big.length; i += 1100)
        await w.writeRuns!([runOf(big.slice(i, i + 1)), runOf(big.slice(i + 1, i + 1100))]);
    });
    expect(byRuns).toBe(byEvents);
    const blocks = [...byEvents.matchAll(BLOCK)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const events = blocks.flatMap((b) => JSON.parse(b) as unknown[]);
    expect(events).toEqual(big.map((t) => JSON.parse(t) as unknown));
    for (const b of blocks) {
      const inBlock = JSON.parse(b) as unknown[];
      expect(inBlock.length).toBeGreaterThan(0);
      // Measured before escaping: a block passes the size only when it holds one event alone (the 1.2 MB one).
      const raw = inBlock.reduce<number>((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)) + 1, -1);
      if (inBlock.length > 1) expect(raw).toBeLessThanOrEqual(1 << 20);
    }
    // The player comes before the first block, and the page ends after the last block's hand-over.
    expect(byEvents.indexOf('window.replayTakeBlocks')).toBeLessThan(byEvents.indexOf('class="replay-events"'));
    expect(byEvents.trimEnd().endsWith('<script>replayTakeBlocks()</script>\n</body></html>')).toBe(true);
  });

  it('an empty replay is one empty block', async () => {
    const empty = await page('blocks-empty', async () => {});
    expect([...empty.matchAll(BLOCK)].map((m) => m[1])).toEqual(['[]']);
  });
});
