import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../decoders/index.js';
import { ArrayElementScanner, KIND_OBJECT, KIND_STRING, type ScannedElement } from '../../decoders/json-scanner.js';

/** Runs the scanner over `text` cut at the given points; returns the elements or the DecodeError. */
function scan(text: Buffer, cuts: number[]): ScannedElement[] | DecodeError {
  const scanner = new ArrayElementScanner('fuzz');
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
  if (!value.every((v) => typeof v === 'string' || (v !== null && typeof v === 'object' && !Array.isArray(v)))) return undefined;
  return value;
}

const SEEDS = [
  '[{"type":3,"data":{"a":[1,-2.5e3,0.5E+7,true,false,null,{}],"s":"x\\u00e9\\n\\"\\\\\\/"},"timestamp":1}, "pa\\"cked" ,{}]',
  ' [ { "a" : [ ] , "b" : { "c" : "d" } } ,\r\n "s" ] ',
  '[]',
  '[{"n":-0,"m":0e0,"k":10.25e-3,"u":"\\uD83D\\uDE00"}]',
];
const ALPHABET = '[]{}",:\\ \n\t0123456789-+.eEtrufalsn/bx\u0001';

describe('ArrayElementScanner against JSON.parse', () => {
  it('accepts exactly what JSON.parse accepts, with the same elements, for random mutations and cuts', () => {
    let s = 12345;
    const rnd = (k: number): number => {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      return s % k;
    };
    let accepted = 0;
    let rejected = 0;
    for (let round = 0; round < 6000; round++) {
      let text = SEEDS[rnd(SEEDS.length)]!;
      const edits = 1 + rnd(3);
      for (let e = 0; e < edits; e++) {
        const at = rnd(text.length + 1);
        const ch = ALPHABET[rnd(ALPHABET.length)]!;
        const op = rnd(3);
        text = op === 0 ? text.slice(0, at) + ch + text.slice(at) : op === 1 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + ch + text.slice(at + 1);
      }
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
        expect(els.map((el) => JSON.parse(el.bytes.toString('latin1')) as unknown), text).toEqual(want);
        expect(els.map((el) => el.kind), text).toEqual(want.map((v) => (typeof v === 'string' ? KIND_STRING : KIND_OBJECT)));
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
              expect((got as ScannedElement[]).map((el) => JSON.parse(el.bytes.toString('utf8')) as unknown)).toEqual(JSON.parse(text.toString('utf8')));
            }
          }
        }
      }
    }
  });
});
