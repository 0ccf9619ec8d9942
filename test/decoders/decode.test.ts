import { gzipSync, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  DecodeError,
  decodeEventBytes,
  decodeEvents,
  isGzip,
  type DecodeOptions,
  type FileVersion,
} from '../../decoders/index.js';
import { chunked, gz, makeEvents, once, pack, roundTrip, SHAPES, v2Text, v3Text, type Shape } from './fixtures.js';

async function bytesOf(source: AsyncIterable<Uint8Array>, opts?: DecodeOptions): Promise<Buffer[]> {
  const all: Buffer[] = [];
  for await (const batch of decodeEventBytes(source, opts)) all.push(...batch);
  return all;
}

async function objectsOf(source: AsyncIterable<Uint8Array>, opts?: DecodeOptions): Promise<unknown[]> {
  const all: unknown[] = [];
  for await (const e of decodeEvents(source, opts)) all.push(e);
  return all;
}

/** Decodes with both APIs, checks the fast path's contract, and returns the events. */
async function decodeBoth(file: Buffer, chunk = 1 << 16, opts?: DecodeOptions): Promise<unknown[]> {
  const buffers = await bytesOf(chunked(file, chunk), opts);
  for (const b of buffers) {
    expect(b.includes(0x0a)).toBe(false);
    expect(b.includes(0x0d)).toBe(false);
  }
  const fromBytes = buffers.map((b) => JSON.parse(b.toString('utf8')) as unknown);
  const objects = await objectsOf(chunked(file, chunk), opts);
  expect(objects).toEqual(fromBytes);
  return objects;
}

async function decodeError(file: Buffer, opts?: DecodeOptions, chunk = 1 << 16): Promise<DecodeError> {
  try {
    await bytesOf(chunked(file, chunk), opts);
  } catch (err) {
    expect(err).toBeInstanceOf(DecodeError);
    return err as DecodeError;
  }
  throw new Error('expected a DecodeError');
}

const events = makeEvents(40);
const expected = roundTrip(events);

describe('isGzip', () => {
  it('recognises the magic bytes only', () => {
    expect(isGzip(gzipSync('x'))).toBe(true);
    expect(isGzip(Buffer.from([0x1f]))).toBe(false);
    expect(isGzip(Buffer.from('[{}]'))).toBe(false);
  });
});

describe('version 3', () => {
  it('decodes a gzip file exactly, bytes equal the source elements', async () => {
    const file = gz(v3Text(events));
    expect(await decodeBoth(file)).toEqual(expected);
    const buffers = await bytesOf(once(file));
    expect(buffers.map((b) => b.toString('utf8'))).toEqual(events.map((e) => JSON.stringify(e)));
  });

  it.each(['pretty', 'crlf'] as const)(
    'accepts whitespace and newlines between and inside elements (%s)',
    async (style) => {
      const file = gz(v3Text(events, style));
      expect(await decodeBoth(file)).toEqual(expected);
      const raw = Buffer.from(v3Text(events, style));
      expect(await decodeBoth(raw)).toEqual(expected);
    },
  );

  it('decodes already-inflated input', async () => {
    expect(await decodeBoth(Buffer.from(v3Text(events)))).toEqual(expected);
  });

  it.each([1, 2, 3, 7, 64, 4093])('handles chunk boundaries anywhere (chunks of %i bytes)', async (size) => {
    const text = v3Text(events.slice(0, 12), 'crlf');
    expect(await decodeBoth(Buffer.from(text), size)).toEqual(expected.slice(0, 12));
    expect(await decodeBoth(gz(text), size)).toEqual(expected.slice(0, 12));
  });

  it('keeps numbers, escapes and lone surrogates of the JSON text exactly', async () => {
    const text =
      '[ {"type":5,"data":{"n":123456789012345678901234567890,"f":-1.5e-300,"g":0.0,"h":-0,"i":1E+2,"j":2e-2,' +
      '"s":"\\ud83d \\uDC00 \\u00e9 \\/ \\b\\f\\n\\r\\t \\" \\\\","e":[],"o":{},"t":true,"u":false,"v":null},"timestamp":1} ,\n' +
      '{"type":3,"data":{},"timestamp":-2.5}]';
    const buffers = await bytesOf(once(Buffer.from(text)));
    expect(buffers).toHaveLength(2);
    expect(buffers[0]!.toString('utf8')).toBe(text.slice(2, text.indexOf('} ,') + 1));
    expect(buffers.map((b) => JSON.parse(b.toString('utf8')) as unknown)).toEqual(JSON.parse(text));
    expect((JSON.parse(buffers[0]!.toString()) as { data: { s: string } }).data.s.charCodeAt(0)).toBe(0xd83d);
  });

  it('decodes an empty array to zero events without deciding a version', async () => {
    for (const text of ['[]', ' [ \r\n ] \n']) {
      const seen: FileVersion[] = [];
      expect(await bytesOf(once(gz(text)), { onVersion: (v) => seen.push(v) })).toEqual([]);
      expect(await objectsOf(once(Buffer.from(text)))).toEqual([]);
      expect(seen).toEqual([]);
    }
  });

  it('reports the detected version', async () => {
    const seen: FileVersion[] = [];
    await bytesOf(once(gz(v3Text(events))), { onVersion: (v) => seen.push(v) });
    expect(seen).toEqual([3]);
  });

  it('streams: the first batch arrives before the source has ended', async () => {
    const big = makeEvents(3000, 7);
    const file = gz(v3Text(big));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* source(): AsyncGenerator<Uint8Array> {
      const half = file.length >> 1;
      yield file.subarray(0, half);
      await gate;
      yield file.subarray(half);
    }
    const out: unknown[] = [];
    let batches = 0;
    for await (const batch of decodeEventBytes(source())) {
      batches++;
      if (batches === 1) release();
      for (const b of batch) out.push(JSON.parse(b.toString()));
    }
    expect(batches).toBeGreaterThan(1);
    expect(out).toEqual(roundTrip(big));
  });
});

describe('version 2', () => {
  const shapeMix = (i: number): Shape => SHAPES[i % 4]!;

  it.each(SHAPES)('decodes shape %s with both packers to the events of the version 3 twin', async (shape) => {
    for (const packer of ['rrweb', 'amplitude'] as const) {
      const file = gz(
        v2Text(
          events,
          () => shape,
          () => packer,
        ),
      );
      expect(await decodeBoth(file)).toEqual(expected);
    }
  });

  it('decodes mixed shapes and packers, byte-identical to version 3 for packed shapes', async () => {
    const file = gz(v2Text(events, shapeMix, (i) => (i % 3 === 0 ? 'amplitude' : 'rrweb')));
    expect(await decodeBoth(file)).toEqual(expected);
    const v2 = await bytesOf(once(file));
    const v3 = await bytesOf(once(gz(v3Text(events))));
    expect(v2.map((b) => b.toString())).toEqual(v3.map((b) => b.toString()));
  });

  it('detects version 2 from a string first element and reports it', async () => {
    const seen: FileVersion[] = [];
    await bytesOf(once(gz(v2Text(events, shapeMix))), { onVersion: (v) => seen.push(v) });
    expect(seen).toEqual([2]);
  });

  it.each([1, 5, 333])('handles chunk boundaries (chunks of %i bytes), gzip and raw', async (size) => {
    const few = events.slice(0, 8);
    const text = v2Text(few, shapeMix);
    expect(await decodeBoth(Buffer.from(text), size)).toEqual(expected.slice(0, 8));
    expect(await decodeBoth(gz(text), size)).toEqual(expected.slice(0, 8));
  });

  it('accepts whitespace and newlines between elements and inside object elements', async () => {
    const text =
      '[\r\n' +
      events
        .slice(0, 6)
        .map((e, i) => (i % 2 === 0 ? JSON.stringify(pack(e, 'rrweb')) : JSON.stringify(e, null, 2)))
        .join(' ,\r\n') +
      '\n]';
    expect(await decodeBoth(gz(text))).toEqual(expected.slice(0, 6));
  });

  it('removes the marker from an empty event and from an event with its own v (overwritten by the packer)', async () => {
    const text = JSON.stringify([
      pack({}, 'rrweb'),
      JSON.stringify(pack({ v: 'mine', type: 5, timestamp: 3 }, 'amplitude')),
    ]);
    expect(await decodeBoth(gz(text))).toEqual([{}, { type: 5, timestamp: 3 }]);
  });

  it('keeps an event whose own data holds a "v":"v1" member', async () => {
    const e = { type: 5, data: { v: 'v1' }, timestamp: 9 };
    const out = await bytesOf(once(gz(JSON.stringify([pack(e, 'rrweb')]))));
    expect(out.map((b) => b.toString())).toEqual([JSON.stringify(e)]);
  });

  it('decodes plain event text with whitespace and raw lone surrogates', async () => {
    const text = JSON.stringify([
      JSON.stringify({ type: 1, data: {}, timestamp: 5 }, null, 2),
      '{"type":2,"s":"\ud83d","timestamp":6}',
    ]);
    const out = await bytesOf(once(Buffer.from(text)));
    expect(out.every((b) => !b.includes(0x0a))).toBe(true);
    expect(out.map((b) => JSON.parse(b.toString()) as unknown)).toEqual([
      { type: 1, data: {}, timestamp: 5 },
      { type: 2, s: '\ud83d', timestamp: 6 },
    ]);
  });

  it('cuts large batches of inflated events', async () => {
    const big = makeEvents(600, 3).map((e, i) => ({ ...e, pad: 'x'.repeat(20_000 + i) }));
    let batches = 0;
    let count = 0;
    for await (const batch of decodeEventBytes(once(gz(v2Text(big, () => 'packed'))))) {
      batches++;
      count += batch.length;
    }
    expect(count).toBe(600);
    expect(batches).toBeGreaterThan(1);
  });
});

describe('forcing the version', () => {
  it('refuses a version 2 file forced to version 3', async () => {
    const err = await decodeError(gz(v2Text(events, () => 'packed')), { version: 3, file: 'a/b.json.gz' });
    expect(err.code).toBe('VERSION_MISMATCH');
    expect(err.index).toBe(0);
    expect(err.file).toBe('a/b.json.gz');
  });

  it('refuses a string element later in a file forced to version 3', async () => {
    const text = JSON.stringify([events[0], events[1], pack(events[2], 'rrweb')]);
    const err = await decodeError(gz(text), { version: 3 });
    expect(err.code).toBe('VERSION_MISMATCH');
    expect(err.index).toBe(2);
  });

  it('auto: a version 2 file that starts with event objects is version 2 once a packed string appears', async () => {
    const text = JSON.stringify([events[0], events[1], pack(events[2], 'rrweb'), events[3]]);
    for (const chunk of [1, 1 << 16]) {
      const seen: FileVersion[] = [];
      expect(await decodeBoth(gz(text), chunk, { onVersion: (v) => seen.push(v) })).toEqual(expected.slice(0, 4));
      expect(seen).toEqual([2, 2]); // decodeBoth decodes twice
    }
  });

  it('decodes a version 3 file forced to version 2 as event objects (shape 4)', async () => {
    const seen: FileVersion[] = [];
    expect(await decodeBoth(gz(v3Text(events)), 1 << 16, { version: 2, onVersion: (v) => seen.push(v) })).toEqual(
      expected,
    );
    expect(seen[0]).toBe(2);
  });

  it('rejects an invalid version option', async () => {
    await expect(bytesOf(once(gz('[]')), { version: 4 as never })).rejects.toMatchObject({
      name: 'ConfigError',
      category: 'usage',
      message: expect.stringContaining('version'),
    });
  });
});

describe('corrupt input', () => {
  const good = v3Text(events.slice(0, 5));

  it('bad gzip data', async () => {
    const file = gz(good);
    file[Math.floor(file.length / 2)] ^= 0xff;
    file[Math.floor(file.length / 2) + 1] ^= 0x55;
    const err = await decodeError(file, { file: 'f.json.gz' });
    expect(['BAD_GZIP', 'BAD_JSON', 'BAD_UTF8', 'TRUNCATED']).toContain(err.code);
    expect(err.file).toBe('f.json.gz');
  });

  it('truncated gzip', async () => {
    const file = gz(good);
    expect((await decodeError(file.subarray(0, file.length - 10))).code).toBe('BAD_GZIP');
    expect((await decodeError(file.subarray(0, 12))).code).toBe('BAD_GZIP');
  });

  it('garbage after the gzip stream', async () => {
    expect((await decodeError(Buffer.concat([gz(good), Buffer.from('garbage')]))).code).toBe('BAD_GZIP');
  });

  it('every truncation of the inflated JSON is TRUNCATED (or EMPTY at zero bytes)', async () => {
    const text = Buffer.from('[{"a":[1,-2.5e3,true,false,null,{"b":"x\\u00e9\\n\\"q"}],"c":{}} ,\r\n{"d":[]}\t]');
    for (let k = 0; k < text.length - 1; k++) {
      const err = await decodeError(text.subarray(0, k), { version: 3 }, 3);
      expect(err.code, `cut at ${k}`).toBe(k === 0 ? 'EMPTY' : 'TRUNCATED');
    }
  });

  it.each([
    ['unbalanced closer', '[{"a":1}},{"b":2}]', 'BAD_JSON', 1],
    ['array closed by brace', '[{"a":[1}]', 'BAD_JSON', 0],
    ['garbage between elements', '[{"a":1} x {"b":2}]', 'BAD_JSON', 1],
    ['missing comma', '[{"a":1} {"b":2}]', 'BAD_JSON', 1],
    ['double comma', '[{"a":1},,{"b":2}]', 'BAD_JSON', 1],
    ['trailing comma in array', '[{"a":1},]', 'BAD_JSON', 1],
    ['trailing comma in object', '[{},{"a":1,}]', 'BAD_JSON', 1],
    ['missing colon', '[{"a" 1}]', 'BAD_JSON', 0],
    ['unquoted key', '[{a:1}]', 'BAD_JSON', 0],
    ['bad escape', '[{},{},{"a":"\\x"}]', 'BAD_JSON', 2],
    ['bad unicode escape', '[{"a":"\\u12G4"}]', 'BAD_JSON', 0],
    ['raw control character', '[{"a":"x\ty"}]', 'BAD_JSON', 0],
    ['leading zero', '[{"a":01}]', 'BAD_JSON', 0],
    ['dot without digits', '[{"a":1.}]', 'BAD_JSON', 0],
    ['lone minus', '[{"a":-}]', 'BAD_JSON', 0],
    ['empty exponent', '[{"a":1e}]', 'BAD_JSON', 0],
    ['plus sign', '[{"a":+1}]', 'BAD_JSON', 0],
    ['bad literal', '[{"a":tru}]', 'BAD_JSON', 0],
    ['literal with tail', '[{"a":nullx}]', 'BAD_JSON', 0],
    ['number element', '[{"a":1},2]', 'NOT_AN_EVENT', 1],
    ['null element', '[null]', 'NOT_AN_EVENT', 0],
    ['array element', '[{},[]]', 'NOT_AN_EVENT', 1],
    ['not an array', '{"a":1}', 'NOT_AN_ARRAY', undefined],
    ['data after the array', '[{}] {}', 'TRAILING_DATA', undefined],
    ['cut mid-escape', '[{"a":"\\', 'TRUNCATED', 0],
    ['cut mid-unicode-escape', '[{"a":"\\u00', 'TRUNCATED', 0],
    ['cut between elements', '[{"a":1},', 'TRUNCATED', 1],
    ['only whitespace', ' \n ', 'EMPTY', undefined],
  ] as const)('%s → %s', async (_name, text, code, index) => {
    for (const chunk of [1, 4, 1 << 16]) {
      for (const file of [Buffer.from(text), gz(text)]) {
        const err = await decodeError(file, { file: 'k' }, chunk);
        expect(err.code).toBe(code);
        expect(err.index).toBe(index);
        expect(err.file).toBe('k');
        if (code !== 'EMPTY') expect(typeof err.offset).toBe('number');
      }
    }
  });

  it('reports the first bad element in file order when a syntax error follows in the same chunk', async () => {
    const badZlib = Buffer.from(pack(events[1], 'rrweb'), 'latin1');
    badZlib[badZlib.length - 2] ^= 0xff;
    const v2 = `[${JSON.stringify(pack(events[0], 'rrweb'))},${JSON.stringify(badZlib.toString('latin1'))},"x" "y"]`;
    const v3 = Buffer.concat([
      Buffer.from('[{"a":1},{"b":"'),
      Buffer.from([0xff]),
      Buffer.from('"},{"c":2},{"d":3 x}]'),
    ]);
    const forced = '[{"a":1},"packed",{"c":2},{"d":3 x}]';
    for (const chunk of [1 << 16, 3]) {
      expect(await decodeError(Buffer.from(v2), {}, chunk)).toMatchObject({ code: 'BAD_ZLIB', index: 1 });
      expect(await decodeError(v3, {}, chunk)).toMatchObject({ code: 'BAD_UTF8', index: 1 });
      expect(await decodeError(Buffer.from(forced), { version: 3 }, chunk)).toMatchObject({
        code: 'VERSION_MISMATCH',
        index: 1,
      });
    }
  });

  it('reports the byte offset of a syntax error', async () => {
    const err = await decodeError(Buffer.from('[{"a":1}, {"b":2 x}]'));
    expect(err.offset).toBe(17);
    expect(err.message).toContain('byte 17');
  });

  it.each([
    ['bad continuation', [0xc3, 0x28]],
    ['encoded surrogate', [0xed, 0xa0, 0x80]],
    ['overlong', [0xc0, 0xaf]],
    ['orphan continuation', [0x80]],
    ['cut sequence', [0xe6, 0xbc]],
    ['bad lead', [0xff]],
  ])('invalid UTF-8 (%s) → BAD_UTF8 naming the element', async (_name, bad) => {
    const file = Buffer.concat([Buffer.from('[{"a":"é"},{"a":"漢'), Buffer.from(bad), Buffer.from('😀"},"x"]')]);
    for (const chunk of [1, 2, 3, 5, 1 << 16]) {
      for (const input of [file, gz(file)]) {
        const err = await decodeError(input, { version: 3 }, chunk);
        expect(err.code).toBe('BAD_UTF8');
        expect(err.index).toBe(1);
      }
    }
  });

  describe('version 2 elements', () => {
    const ok = JSON.stringify(pack(events[0], 'rrweb'));
    const v2 = (bad: unknown): Buffer => gz(JSON.stringify([ok, ok, bad]));
    const latin1 = (b: Buffer): string => b.toString('latin1');

    it.each([
      [
        'corrupt zlib',
        'BAD_ZLIB',
        (): string => {
          const p = Buffer.from(pack(events[3], 'rrweb'), 'latin1');
          p[p.length >> 1] ^= 0xff;
          p[(p.length >> 1) + 1] ^= 0xff;
          return latin1(p);
        },
      ],
      [
        'truncated zlib',
        'BAD_ZLIB',
        (): string => latin1(Buffer.from(pack(events[3], 'rrweb'), 'latin1').subarray(0, 20)),
      ],
      ['stray bytes after zlib', 'BAD_ZLIB', (): string => pack(events[3], 'rrweb') + 'zz'],
      ['not zlib at all', 'BAD_ZLIB', (): string => 'hello'],
      ['inner JSON broken', 'BAD_INNER_JSON', (): string => latin1(deflateSync('{"type":3,"v":"v1"'))],
      ['inner JSON not an object', 'BAD_INNER_JSON', (): string => latin1(deflateSync('[1,"v1"]'))],
      [
        'inner JSON not UTF-8',
        'BAD_INNER_JSON',
        (): string => latin1(deflateSync(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))),
      ],
      ['unknown marker', 'UNKNOWN_PACKER', (): string => latin1(deflateSync('{"type":3,"timestamp":1,"v":"v2"}'))],
      ['missing marker', 'UNKNOWN_PACKER', (): string => latin1(deflateSync('{"type":3,"timestamp":1}'))],
      [
        'unknown marker, double-encoded',
        'UNKNOWN_PACKER',
        (): string => JSON.stringify(latin1(deflateSync('{"type":3,"v":2}'))),
      ],
      ['wrapper that is not a string literal', 'BAD_PACKED', (): string => '"abc'],
      ['characters above latin1', 'BAD_PACKED', (): string => 'x\u0100yz'],
      ['plain event text that is broken', 'BAD_INNER_JSON', (): string => '{"type":3,'],
    ] as const)('%s → %s with the element index', async (_name, code, make) => {
      for (const chunk of [1, 1 << 16]) {
        const err = await decodeError(v2(make()), { file: 'v2.json.gz' }, chunk);
        expect(err.code).toBe(code);
        expect(err.index).toBe(2);
        expect(err.file).toBe('v2.json.gz');
        expect(err.message).toContain('element 2');
      }
    });
  });
});

describe('sources and cancellation', () => {
  it('rethrows the source error unchanged (gzip and raw)', async () => {
    for (const file of [gz(v3Text(events)), Buffer.from(v3Text(events))]) {
      const boom = new Error('network down');
      async function* source(): AsyncGenerator<Uint8Array> {
        yield file.subarray(0, 100);
        throw boom;
      }
      await expect(bytesOf(source())).rejects.toBe(boom);
    }
  });

  it('stops with the abort reason and closes the source', async () => {
    const controller = new AbortController();
    let closed = false;
    async function* source(): AsyncGenerator<Uint8Array> {
      try {
        const file = gz(v3Text(makeEvents(2000, 5)));
        for (let i = 0; i < file.length; i += 1000) yield file.subarray(i, i + 1000);
      } finally {
        closed = true;
      }
    }
    const reason = new Error('stop');
    let seen = 0;
    const run = async (): Promise<void> => {
      for await (const batch of decodeEventBytes(source(), { signal: controller.signal })) {
        seen += batch.length;
        controller.abort(reason);
      }
    };
    await expect(run()).rejects.toBe(reason);
    expect(seen).toBeGreaterThan(0);
    expect(closed).toBe(true);
  });

  it.each(['raw', 'gzip'])('does not depend on the caller keeping its chunks unchanged (%s input)', async (kind) => {
    const text = Buffer.from(v3Text(events.slice(0, 10)));
    const file = kind === 'gzip' ? gz(text) : text;
    const scratch = Buffer.alloc(7);
    async function* reusing(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < file.length; i += 7) {
        const n = file.copy(scratch, 0, i, i + 7);
        yield scratch.subarray(0, n);
      }
    }
    const out = await bytesOf(reusing());
    expect(out.map((b) => JSON.parse(b.toString()) as unknown)).toEqual(expected.slice(0, 10));
  });
});

describe('pathological nesting', () => {
  it('a packed event nested too deeply to re-serialise is a DecodeError, not a crash', async () => {
    const depth = 200_000;
    // The marker comes first (no suffix to cut) → parse fallback → JSON.stringify overflows the stack.
    const payload = deflateSync(`{"v":"v1","type":5,"d":${'['.repeat(depth)}${']'.repeat(depth)}}`).toString('latin1');
    const err = await decodeError(gz(JSON.stringify([payload])));
    expect(err.code).toBe('BAD_INNER_JSON');
    expect(err.index).toBe(0);
  });

  it('a deeply nested version 3 event passes through unchanged', async () => {
    const depth = 100_000;
    const text = `[{"type":5,"d":${'['.repeat(depth)}${']'.repeat(depth)},"timestamp":1}]`;
    const out = await bytesOf(chunked(Buffer.from(text), 4096));
    expect(out).toHaveLength(1);
    expect(out[0]!.toString()).toBe(text.slice(1, -1));
  });
});
