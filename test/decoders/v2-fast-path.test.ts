import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { WASM_KEEP_BYTES, wasmChunkScanner } from '../../decoders/wasm-instance.js';
import { DecodeError, decodeEventBytes } from '../../decoders/index.js';
import { chunked, makeEvents, pack, seededRandom, SHAPES, v2Element, type Shape } from './fixtures.js';

/** Decodes `text` in pieces of `size`; the events (as text) and the error, in comparable form. */
async function outcome(text: Buffer, size: number, fastPath: boolean): Promise<{ events: string[]; error?: unknown }> {
  const events: string[] = [];
  try {
    for await (const batch of decodeEventBytes(chunked(text, size), { file: 'f.json', version: 2, fastPath })) {
      for (const e of batch) events.push(e.toString('latin1'));
    }
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    return { events, error: { code: err.code, message: err.message, index: err.index, offset: err.offset } };
  }
  return { events };
}

const events = makeEvents(160, 5);

/** A version 2 file of mixed shapes and packers. */
function file(): unknown[] {
  return events.map((e, i) =>
    v2Element(e, i % 7 === 3 ? SHAPES[i % SHAPES.length]! : 'json-packed', i % 2 === 0 ? 'rrweb' : 'amplitude'),
  );
}

/** Elements the fast path must leave to the TypeScript path (some decode, some are errors). */
const raw = (text: string): string => JSON.stringify(deflateSync(Buffer.from(text)).toString('latin1'));
const SPECIAL: Record<string, unknown> = {
  'no packer marker': raw('{"type":3,"timestamp":5}'),
  'leading whitespace': raw(' {"type":3,"v":"v1"}'),
  'another marker': raw('{"type":3,"data":{"v":"v1"},"v":"v2"}'),
  'marker not last': raw('{"v":"v1","type":3}'),
  'trailing newline': raw('{"a":1,"v":"v1"}\n'),
  'non-ASCII event text': raw('{"a":"\u00e9\u{1F600}","v":"v1"}'),
  'two objects': raw('{"a":1,"v":"v1"}{"b":2}'),
  'an array': raw('[{"a":1,"v":"v1"}]'),
  'bytes after the zlib stream': JSON.stringify(deflateSync(Buffer.from('{"a":1,"v":"v1"}')).toString('latin1') + 'x'),
  'a character above U+00FF': JSON.stringify(pack(events[0], 'rrweb') + '\u0101'),
  'empty string': '',
  'zlib of nothing': raw(''),
};

describe('version 2: the WebAssembly path against the TypeScript path', () => {
  it('gives the same events for every shape and packer, whatever the chunking', async () => {
    const text = Buffer.from(JSON.stringify(file()));
    const want = await outcome(text, text.length, false);
    expect(want.error).toBeUndefined();
    expect(want.events.length).toBe(events.length);
    for (const size of [text.length, 65536, 4096, 1000, 333]) expect(await outcome(text, size, true)).toEqual(want);
  });

  it.each(Object.keys(SPECIAL))(
    'decodes an element it leaves to the TypeScript path the same way: %s',
    async (name) => {
      const elements = file().slice(0, 40);
      elements.splice(20, 0, SPECIAL[name]);
      const text = Buffer.from(JSON.stringify(elements));
      for (const size of [text.length, 4096, 700]) {
        const want = await outcome(text, size, false);
        expect(await outcome(text, size, true)).toEqual(want);
        expect(want.events.length).toBeGreaterThanOrEqual(20);
      }
    },
  );

  it('gives the same events and the same error for mutated files', async () => {
    const base = Buffer.from(JSON.stringify(file()));
    const rnd = seededRandom(77);
    let failed = 0;
    for (let round = 0; round < 250; round++) {
      const text = Buffer.from(base);
      const edits = 1 + rnd(3);
      for (let e = 0; e < edits; e++) {
        const at = rnd(text.length);
        // Mostly inside the packed strings (bytes of zlib data, escapes), sometimes structure.
        text[at] = rnd(4) === 0 ? '"\\,]}{u0'.charCodeAt(rnd(8)) : rnd(256) & 0x7f;
      }
      const size = [text.length, 4096, 1500][rnd(3)]!;
      const want = await outcome(text, size, false);
      expect(await outcome(text, size, true)).toEqual(want);
      if (want.error !== undefined) failed++;
    }
    expect(failed).toBeGreaterThan(100);
  });
});

describe('version 2: several files decoded at once share the module', () => {
  it('gives each file its own events when their chunks interleave', async () => {
    const files = [0, 1, 2, 3].map((k) => {
      const evs = makeEvents(60, 100 + k);
      // Every tenth element in another shape: the TypeScript path takes it, so the decoder yields mid-chunk.
      const shape = (i: number): Shape => (i % 10 === 5 ? 'event-json' : 'json-packed');
      return {
        evs,
        text: Buffer.from(
          JSON.stringify(evs.map((e, i) => v2Element(e, shape(i), i % 2 === 0 ? 'rrweb' : 'amplitude'))),
        ),
      };
    });
    const want = await Promise.all(files.map((f) => outcome(f.text, f.text.length, false)));
    // All four decoders pulled in turn: each yield lets the others scan their own chunks into the shared module, so a
    // decoder coming back finds another chunk there and loads its own again.
    const wasm = wasmChunkScanner()!;
    const load = vi.spyOn(wasm, 'load');
    const iterators = files.map((f) =>
      decodeEventBytes(chunked(f.text, 20000), { version: 2 })[Symbol.asyncIterator](),
    );
    const got: string[][] = files.map(() => []);
    let open = iterators.length;
    while (open > 0) {
      open = 0;
      for (let k = 0; k < iterators.length; k++) {
        const r = await iterators[k]!.next();
        if (r.done) continue;
        open++;
        for (const e of r.value) got[k]!.push(e.toString('latin1'));
      }
    }
    expect(got).toEqual(want.map((w) => w.events));
    expect(got.map((g) => g.length)).toEqual([60, 60, 60, 60]);
    expect(load.mock.calls.length).toBeGreaterThan(8);
    load.mockRestore();
  });
});

describe('version 2: an event of tens of MB', () => {
  const BIG = 70_000_000;
  /** `{"type":2,"data":{"s":"aaaa…"},"timestamp":7}` with BIG letters; its packed element (marker included). */
  function bigEvent(): { text: string; element: string } {
    const text = `{"type":2,"data":{"s":"${'a'.repeat(BIG)}"},"timestamp":7}`;
    const packed = deflateSync(Buffer.from(text.slice(0, -1) + ',"v":"v1"}')).toString('latin1');
    return { text, element: JSON.stringify(packed) };
  }
  const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
  /** `n` letters and digits that do not compress (a seeded generator, the same every run). */
  function seededText(n: number): string {
    const rnd = seededRandom(5);
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[rnd(alphabet.length)];
    return out;
  }

  it('decodes exactly, and the module gives the memory it grew for it back afterwards', async () => {
    const small = makeEvents(30, 9);
    const big = bigEvent();
    const elements = small.map((e) => JSON.stringify(pack(e, 'rrweb')));
    const text = Buffer.from(`[${elements.slice(0, 15).join(',')},${big.element},${elements.slice(15).join(',')}]`);
    const before = wasmChunkScanner()!;
    const got: Buffer[] = [];
    for await (const batch of decodeEventBytes(chunked(text, 65536), { version: 2 })) got.push(...batch);
    expect(got.length).toBe(31);
    expect(got[15]!.length).toBe(big.text.length);
    expect(sha(got[15]!)).toBe(sha(big.text));
    got[15] = Buffer.alloc(0); // (not printed by a failure below)
    expect(got.filter((_, i) => i !== 15).map((e) => JSON.parse(e.toString()) as unknown)).toEqual(small);
    // The instance that held the event grew past what is kept; the next decoder gets a fresh, small one.
    expect(before.memoryBytes).toBeGreaterThan(WASM_KEEP_BYTES);
    const after = wasmChunkScanner()!;
    expect(after === before).toBe(false); // (compared as a boolean: a failure must not print the module's memory)
    expect(after.memoryBytes).toBeLessThanOrEqual(WASM_KEEP_BYTES);
  });

  it('an element of several MB carried across chunks gets tables for one element, not for a chunk of its size', async () => {
    // ~7 MB packed (incompressible text): tables sized like a 7 MB chunk's (3.5 million elements) were ~150 MB.
    const text = `{"type":2,"data":{"s":"${seededText(4_500_000)}"},"timestamp":7}`;
    const element = JSON.stringify(deflateSync(Buffer.from(text.slice(0, -1) + ',"v":"v1"}')).toString('latin1'));
    const scanner = wasmChunkScanner()!;
    const got: Buffer[] = [];
    for await (const batch of decodeEventBytes(chunked(Buffer.from(`[${element}]`), 65536), { version: 2 }))
      got.push(...batch);
    expect(got.length).toBe(1);
    expect(sha(got[0]!)).toBe(sha(text));
    got.length = 0;
    expect(scanner.memoryBytes).toBeLessThan(48 << 20);
  });

  it('a decoder that started on the old instance goes on correctly after another one replaced it', async () => {
    const evs = makeEvents(200, 31);
    const textA = Buffer.from(JSON.stringify(evs.map((e) => v2Element(e, 'json-packed', 'amplitude'))));
    const want = (await outcome(textA, textA.length, false)).events;
    const a = decodeEventBytes(chunked(textA, 8192), { version: 2 })[Symbol.asyncIterator]();
    const got: string[] = [];
    const first = await a.next();
    for (const e of first.done ? [] : first.value) got.push(e.toString('latin1'));
    const used = wasmChunkScanner()!;
    // Another file with a huge event, decoded whole meanwhile: the shared instance is replaced.
    const big = bigEvent();
    let n = 0;
    for await (const batch of decodeEventBytes(chunked(Buffer.from(`[${big.element}]`), 65536), { version: 2 }))
      n += batch.length;
    expect(n).toBe(1);
    expect(wasmChunkScanner() === used).toBe(false);
    for (let r = await a.next(); !r.done; r = await a.next()) for (const e of r.value) got.push(e.toString('latin1'));
    expect(got).toEqual(want);
  });
});
