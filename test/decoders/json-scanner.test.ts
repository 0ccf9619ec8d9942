import { beforeEach, describe, expect, it } from 'vitest';
import { DecodeError } from '../../decoders/index.js';
import {
  ArrayElementScanner,
  ElementSpans,
  KIND_OBJECT,
  KIND_STRING,
  type ScannedElement,
} from '../../decoders/json-scanner.js';
import { SCAN_OK, wasmChunkScanner } from '../../decoders/wasm-instance.js';
import { trailingTimestamp } from '../../decoders/trailing-timestamp.js';
import { mutateText, seededRandom } from './fixtures.js';

/** The scanner's two loops: TypeScript alone, and WebAssembly for every chunk (its fallback included). */
const PATHS = [
  { name: 'typescript loop', wasmMinBytes: Infinity },
  { name: 'webassembly fast path', wasmMinBytes: 0 },
] as const;
let wasmMinBytes: number = Infinity;

/** Runs the scanner over `text` cut at the given points; returns the elements or the DecodeError. */
function scan(text: Buffer, cuts: number[]): ScannedElement[] | DecodeError {
  const scanner = new ArrayElementScanner('fuzz', { wasmMinBytes });
  const out: ScannedElement[] = [];
  let prev = 0;
  try {
    for (const cut of [...cuts, text.length]) {
      scanner.push(text.subarray(prev, cut), out);
      prev = cut;
    }
    scanner.end();
    return out;
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
}

/** The reference: what JSON.parse accepts, restricted to arrays of objects and strings. */
function reference(text: Buffer): unknown[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text.toString('latin1'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value)) return undefined;
  if (!value.every((v) => typeof v === 'string' || (v !== null && typeof v === 'object' && !Array.isArray(v))))
    return undefined;
  return value;
}

const SEEDS = [
  '[{"type":3,"data":{"a":[1,-2.5e3,0.5E+7,true,false,null,{}],"s":"x\\u00e9\\n\\"\\\\\\/"},"timestamp":1}, "pa\\"cked" ,{}]',
  ' [ { "a" : [ ] , "b" : { "c" : "d" } } ,\r\n "s" ] ',
  '[]',
  '[{"n":-0,"m":0e0,"k":10.25e-3,"u":"\\uD83D\\uDE00"}]',
];
const ALPHABET = '[]{}",:\\ \n\t0123456789-+.eEtrufalsn/bx\u0001';

it('has the WebAssembly fast path on this machine', () => {
  expect(wasmChunkScanner()).not.toBeNull();
});

describe.each(PATHS)('ArrayElementScanner against JSON.parse ($name)', (path) => {
  beforeEach(() => {
    wasmMinBytes = path.wasmMinBytes;
  });

  it('accepts exactly what JSON.parse accepts, with the same elements, for random mutations and cuts', () => {
    const rnd = seededRandom(12345);
    let accepted = 0;
    let rejected = 0;
    for (let round = 0; round < 6000; round++) {
      const seed = SEEDS[rnd(SEEDS.length)]!;
      const text = mutateText(seed, 1 + rnd(3), ALPHABET, rnd);
      const bytes = Buffer.from(text, 'latin1');
      const cuts = [rnd(bytes.length + 1), rnd(bytes.length + 1), rnd(bytes.length + 1)].sort((a, b) => a - b);
      const got = scan(bytes, cuts);
      const want = reference(bytes);
      if (want === undefined) {
        expect(got, text).toBeInstanceOf(DecodeError);
        rejected++;
      } else {
        expect(got, text).not.toBeInstanceOf(DecodeError);
        const els = got as ScannedElement[];
        expect(
          els.map((el) => JSON.parse(el.bytes.toString('latin1')) as unknown),
          text,
        ).toEqual(want);
        expect(
          els.map((el) => el.kind),
          text,
        ).toEqual(want.map((v) => (typeof v === 'string' ? KIND_STRING : KIND_OBJECT)));
        expect(els.map((el) => el.index)).toEqual(want.map((_, k) => k));
        accepted++;
      }
    }
    expect(accepted).toBeGreaterThan(300);
    expect(rejected).toBeGreaterThan(300);
  });

  it('reports element offsets and the CR/LF flag', () => {
    const text = Buffer.from('[ {"a":1},\n{"b":\r\n2}, "s\\n" ]');
    const els = scan(text, []) as ScannedElement[];
    expect(els.map((e) => [e.offset, e.hasNewline])).toEqual([
      [2, false],
      [11, true],
      [22, false],
    ]);
  });

  it('handles deep nesting', () => {
    const deep = '[' + '{"a":['.repeat(500) + '{}' + ']}'.repeat(500) + ']';
    const els = scan(Buffer.from(deep), [7, 999]) as ScannedElement[];
    expect(els).toHaveLength(1);
    expect(els[0]!.bytes.toString()).toBe(deep.slice(1, -1));
  });

  it('finds every quote, backslash and control byte inside long strings, at any position and chunk cut', () => {
    const specials: Array<[string, boolean]> = [
      ['"', true], // ends the string early: the rest is then not valid JSON unless it happens to be
      ['\\n', true],
      ['\\u00e9', true],
      ['\u0001', false],
      ['\u001f', false],
      ['\t', false],
      ['é😀', true],
      ['\u007f', true],
      [' ', true],
    ];
    for (let len = 0; len < 14; len++) {
      for (let at = 0; at <= len; at++) {
        for (const [special] of specials) {
          const body = 'a'.repeat(at) + special + 'b'.repeat(len - at);
          const text = Buffer.from(`[{"k":"${body}","n":1},"${body}"]`, 'utf8');
          const want = reference(text);
          for (const cut of [0, 3, 7, 8, 9, 10, 11, 13, 17]) {
            const got = scan(text, [Math.min(cut, text.length)]);
            if (want === undefined) expect(got, body).toBeInstanceOf(DecodeError);
            else {
              expect(got, body).not.toBeInstanceOf(DecodeError);
              expect((got as ScannedElement[]).map((el) => JSON.parse(el.bytes.toString('utf8')) as unknown)).toEqual(
                JSON.parse(text.toString('utf8')),
              );
            }
          }
        }
      }
    }
  });
});

/** Scans with explicit chunk sizes and a given fast-path threshold; the outcome in comparable form. */
function outcome(text: Buffer, sizes: readonly number[], minBytes: number): unknown {
  const scanner = new ArrayElementScanner('diff', { wasmMinBytes: minBytes });
  const out: ScannedElement[] = [];
  let at = 0;
  let k = 0;
  try {
    while (at < text.length) {
      const size = sizes[k++ % sizes.length]!;
      scanner.push(text.subarray(at, at + size), out);
      at += size;
    }
    scanner.end();
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    return {
      elements: out.map(describeElement),
      error: { code: err.code, message: err.message, index: err.index, offset: err.offset },
    };
  }
  return { elements: out.map(describeElement) };
}

function describeElement(el: ScannedElement): unknown {
  return [el.index, el.offset, el.kind, el.hasNewline, el.bytes.toString('latin1')];
}

describe('the WebAssembly fast path against the TypeScript loop', () => {
  const event = (k: number): string =>
    k % 7 === 3
      ? JSON.stringify(`packed\u0001${'x'.repeat(k % 50)}"\\`)
      : JSON.stringify({
          type: k % 6,
          data: {
            source: k % 4,
            text: `t${'é'.repeat(k % 9)}\n${'a'.repeat((k * 37) % 300)}`,
            list: [k, -k / 4, 1e21, true, null, false, [], {}],
          },
          timestamp: 1793491200000 + k,
        });
  const base =
    '[' +
    Array.from({ length: 120 }, (_, k) => (k === 0 ? '' : k % 5 === 0 ? ',\r\n ' : ',') + event(k)).join('') +
    ']';

  it('gives the same elements and the same errors, with chunks switching between the two', () => {
    const rnd = seededRandom(424242);
    let errors = 0;
    for (let round = 0; round < 400; round++) {
      const text = mutateText(base, round === 0 ? 0 : 1 + rnd(2), ALPHABET, rnd);
      const bytes = Buffer.from(text, 'latin1');
      const sizes = [1 + rnd(9000), 1 + rnd(300), 1 + rnd(40), 1 + rnd(5000)];
      const want = outcome(bytes, sizes, Infinity);
      // Threshold 64: long chunks go through WebAssembly, short ones through TypeScript, state handed both ways.
      expect(outcome(bytes, sizes, 64), text.slice(0, 80)).toEqual(want);
      expect(outcome(bytes, [bytes.length], 0)).toEqual(outcome(bytes, [bytes.length], Infinity));
      if ((want as { error?: unknown }).error !== undefined) errors++;
    }
    expect(errors).toBeGreaterThan(100);
  });

  it('hands a nesting deeper than its stack to the TypeScript loop', () => {
    const depth = 70_000;
    const text = Buffer.from('[{"a":' + '['.repeat(depth) + ']'.repeat(depth) + '},{"b":1}]');
    const got = outcome(text, [4096], 0) as { elements: unknown[]; error?: unknown };
    expect(got.error).toBeUndefined();
    expect(got).toEqual(outcome(text, [4096], Infinity));
    expect(got.elements).toHaveLength(2);
  });
});

describe('every byte value in every state, in both loops', () => {
  // A prefix that leaves the scanner in each state (in objects and in arrays, at the outer level and inside an
  // element), then each of the 256 byte values, then a tail that closes what the prefix opened. The module's fused
  // member lane is entered from the same prefixes when the whole text is one chunk, and the state switch when it is
  // cut right before the byte.
  const PREFIXES: [string, string][] = [
    ['', '[]'],
    ['[', ']'],
    ['[{"a":[', ']}]'],
    ['[{},', '{}]'],
    ['[{"a":[1,', ']}]'],
    ['[{"a":', '1}]'],
    ['[{', '}]'],
    ['[{"a":{', '}}]'],
    ['[{"a":1,', '"b":2}]'],
    ['[{"a"', ':1}]'],
    ['[{}', ']'],
    ['[{"a":"x"', '}]'],
    ['[{"a":[true', ']}]'],
    ['[{"a":{}', '}]'],
    ['["', '"]'],
    ['[{"a', '":1}]'],
    ['[{"a":"', '"}]'],
    ['[{"a":"\\', 'n"}]'],
    ['[{"a":"\\u0', '00a"}]'],
    ['[{"a":-', '1}]'],
    ['[{"a":0', '}]'],
    ['[{"a":[0', ']}]'],
    ['[{"a":12', '}]'],
    ['[{"a":[12', ']}]'],
    ['[{"a":1.', '5}]'],
    ['[{"a":1.5', '}]'],
    ['[{"a":[1.5', ']}]'],
    ['[{"a":1e', '5}]'],
    ['[{"a":1e-', '5}]'],
    ['[{"a":1e5', '}]'],
    ['[{"a":[1e5', ']}]'],
    ['[{"a":t', 'rue}]'],
    ['[{"a":fa', 'lse}]'],
    ['[{"a":nul', 'l}]'],
    ['[{"a":tru', '}]'],
    ['[{"a":fals', '}]'],
    ['[{}]', ''],
  ];

  it('gives the same elements or the same error as the TypeScript loop, which agrees with JSON.parse', () => {
    let accepted = 0;
    for (const [prefix, tail] of PREFIXES) {
      for (let b = 0; b < 256; b++) {
        const bytes = Buffer.concat([Buffer.from(prefix, 'latin1'), Buffer.from([b]), Buffer.from(tail, 'latin1')]);
        const label = `${JSON.stringify(prefix)} + byte 0x${b.toString(16)}`;
        const want = outcome(bytes, [bytes.length], Infinity) as { elements: unknown[]; error?: { code: string } };
        expect(outcome(bytes, [bytes.length], 0), label).toEqual(want);
        expect(outcome(bytes, [prefix.length, bytes.length], 0), label).toEqual(want);
        const ok = reference(bytes) !== undefined;
        if (want.error === undefined) accepted++;
        // JSON.parse reads latin1 here, the scanner bytes: they agree on what is JSON (UTF-8 is checked later).
        expect(want.error === undefined || want.error.code === 'NOT_AN_EVENT', label).toBe(
          ok || want.error?.code === 'NOT_AN_EVENT',
        );
      }
    }
    expect(accepted).toBeGreaterThan(PREFIXES.length * 4);
  });

  it('the module alone takes exactly what the TypeScript loop accepts, in its member lane and in its state switch', () => {
    // Its byte tests are generated from the grammar (decoders/wasm/json-steps.ts); one too narrow would still give
    // the right result above (the TypeScript loop scans what the module refuses), so this checks the module itself.
    const fast = wasmChunkScanner()!;
    const scanAlone = (chunks: Buffer[]): boolean => {
      fast.prepare(chunks.reduce((n, c) => n + c.length, 0));
      fast.state.fill(0);
      return chunks.every((chunk) => fast.scan(chunk) === SCAN_OK);
    };
    // What the TypeScript loop takes without an error, chunk by chunk (the end of the input is its own check).
    const takes = (chunks: Buffer[]): boolean => {
      const scanner = new ArrayElementScanner('takes', { wasmMinBytes: Infinity });
      try {
        for (const chunk of chunks) scanner.push(chunk, []);
        return true;
      } catch (err) {
        if (err instanceof DecodeError) return false;
        throw err;
      }
    };
    let taken = 0;
    for (const [prefix, tail] of PREFIXES) {
      for (let b = 0; b < 256; b++) {
        const head = Buffer.from(prefix, 'latin1');
        const rest = Buffer.concat([Buffer.from([b]), Buffer.from(tail, 'latin1')]);
        const bytes = Buffer.concat([head, rest]);
        const label = `${JSON.stringify(prefix)} + byte 0x${b.toString(16)}`;
        const ok = takes([bytes]);
        expect(takes([head, rest])).toBe(ok);
        expect(scanAlone([bytes]), `${label}, one chunk`).toBe(ok);
        expect(scanAlone([head, rest]), `${label}, cut before the byte`).toBe(ok);
        if (ok) taken++;
      }
    }
    expect(taken).toBeGreaterThan(PREFIXES.length * 4);
  });
});

describe('timestamps read by the WebAssembly path', () => {
  it('are the value of the trailing "timestamp" member when it has the usual form, NaN otherwise', () => {
    const events = [
      '{"type":3,"timestamp":1793498402919}',
      '{"timestamp":7}',
      '{"timestamp":0}',
      '{"a":1,"timestamp":007}'.replace('007', '7'),
      '{"type":2,"timestamp":123456789012345}',
      '{"type":2,"timestamp":1234567890123456}',
      '{"timestamp":1.5}',
      '{"timestamp":-5}',
      '{"timestamp": 5}',
      '{"timestamp":5 }',
      '{"x":{"timestamp":5}}',
      '{"mytimestamp":5}',
      '{"a":"\\"timestamp\\":5","timestamp":9}',
      '{"timestamp":1e3}',
      '{}',
      '{"timestamp":"5"}',
      '{"timestamp":1,"timestamp":2}',
    ];
    const text = Buffer.from('[' + events.join(',') + ',"packed"]');
    const scanner = new ArrayElementScanner('ts', { wasmMinBytes: 0 });
    const spans = new ElementSpans();
    scanner.pushSpans(text, spans);
    expect(spans.stamped).toBe(true);
    expect(spans.length).toBe(events.length + 1);
    const got = Array.from(spans.stamps.subarray(0, spans.length));
    const want = [1793498402919, 7, 0, 7, 123456789012345, NaN, NaN, NaN, NaN, NaN, NaN, NaN, 9, NaN, NaN, NaN, 2, NaN];
    expect(got).toEqual(want);
    // Whatever is read equals what JSON.parse gives.
    for (let k = 0; k < events.length; k++) {
      if (!Number.isNaN(got[k])) expect(got[k]).toBe((JSON.parse(events[k]!) as { timestamp: number }).timestamp);
    }
  });

  it('agree with the suffix rule on random events of every digit count, at the start of a chunk and after other elements', () => {
    // The rule: a trailing `,"timestamp":<1-15 digits, no leading zero>}` or `{"timestamp":…}` gives its value.
    const rule = (event: string): number => {
      const m = /[,{]"timestamp":(0|[1-9]\d{0,14})}$/.exec(event);
      return m === null ? NaN : Number(m[1]);
    };
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const digits = (n: number): string => {
      let out = String(1 + random(9));
      while (out.length < n) out += String(random(10));
      return out;
    };
    const shapes = [
      (t: string) => `{"timestamp":${t}}`,
      (t: string) => `{"type":3,"timestamp":${t}}`,
      (t: string) => `{"a":${digits(1 + random(12))},"timestamp":${t}}`,
      (t: string) => `{"x":"${digits(20)}","timestamp":${t}}`,
      (t: string) => `{"mytimestamp":${t}}`,
      (t: string) => `{"data":{"timestamp":${t}}}`,
      (t: string) => `{"n":[${t}]}`,
      (t: string) => `{"timestamp":${t}.5}`,
    ];
    for (let round = 0; round < 40; round++) {
      const events: string[] = [];
      for (let k = 0; k < 60; k++) {
        const n = 1 + random(17);
        events.push(shapes[random(shapes.length)]!(random(8) === 0 ? '0' : digits(n)));
      }
      const text = Buffer.from('[' + events.join(',') + ']');
      const scanner = new ArrayElementScanner('ts', { wasmMinBytes: 0 });
      const spans = new ElementSpans();
      // The first element starts right after the chunk's first byte: its digits may reach the chunk's start.
      scanner.pushSpans(text.subarray(0, 1), spans);
      scanner.pushSpans(text.subarray(1), spans);
      expect(spans.stamped).toBe(true);
      expect(Array.from(spans.stamps.subarray(0, spans.length))).toEqual(events.map(rule));
      // The TypeScript side reads with the same rule (decoders/trailing-timestamp.ts, the module's copy's source).
      expect(events.map((e) => trailingTimestamp(Buffer.from(e), 0, e.length))).toEqual(events.map(rule));
    }
  });
});

describe('the grammar (decoders/json-grammar.ts) in both loops', () => {
  // One hostile input per refusal of the shared token grammar, each in every position a state can be entered from
  // (straight after its first byte, and across a chunk cut), with the error the TypeScript loop throws.
  const CASES: [string, string][] = [
    ['[{"a":"\\x"}]', "invalid escape '\\'x'' in a string"],
    ['["\\ "]', "invalid escape '\\byte 0x20' in a string"],
    ['[{"a":"\\u12g4"}]', "invalid \\u escape: 'g' is not a hex digit"],
    ['[{"a":-x}]', "expected a digit after '-', found 'x'"],
    ['[{"a":[-.5]}]', "expected a digit after '-', found '.'"],
    ['[{"a":1.}]', "expected a digit after '.', found '}'"],
    ['[{"a":[0.e1]}]', "expected a digit after '.', found 'e'"],
    ['[{"a":1e}]', "expected an exponent, found '}'"],
    ['[{"a":[2E.]}]', "expected an exponent, found '.'"],
    ['[{"a":1e+}]', "expected an exponent digit, found '}'"],
    ['[{"a":[1e-x]}]', "expected an exponent digit, found 'x'"],
    ['[{"a":tru}]', "invalid literal (expected 'true')"],
    ['[{"a":[falsy]}]', "invalid literal (expected 'false')"],
    ['[{"a":nul1}]', "invalid literal (expected 'null')"],
  ];

  it('refuses each in the WebAssembly module, and the TypeScript loop throws the same error, at every chunk cut', () => {
    const fast = wasmChunkScanner();
    expect(fast).not.toBeNull();
    for (const [text, message] of CASES) {
      const bytes = Buffer.from(text);
      // The module on its own, from the state before the outer '[': a refusal status, never OK.
      fast!.prepare(bytes.length);
      fast!.state.fill(0);
      expect(fast!.scan(bytes), text).not.toBe(SCAN_OK);
      for (let cut = 1; cut < bytes.length; cut++) {
        const sizes = [cut, bytes.length - cut];
        const want = outcome(bytes, sizes, Infinity) as { error?: { code: string; message: string } };
        expect(want.error?.message, `${text} cut at ${cut}`).toContain(message);
        expect(want.error?.code).toBe('BAD_JSON');
        expect(outcome(bytes, sizes, 0), `${text} cut at ${cut}`).toEqual(want);
      }
    }
  });

  it('accepts what JSON allows after each of those states, in both loops', () => {
    const text = '[{"a":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00aF","b":[-0,-12.5e+3,0.5E-2,1E9,true,false,null]}]';
    const bytes = Buffer.from(text);
    expect(JSON.parse(text)).toBeTruthy();
    for (let cut = 1; cut < bytes.length; cut++) {
      const got = outcome(bytes, [cut, bytes.length - cut], 0) as { error?: unknown };
      expect(got).toEqual(outcome(bytes, [cut, bytes.length - cut], Infinity));
      expect(got.error).toBeUndefined();
    }
  });
});
