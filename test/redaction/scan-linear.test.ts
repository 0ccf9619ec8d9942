/**
 * The pattern scans redaction runs over every recorded string (the string, its percent-decoded view, its base64 runs
 * decoded at each alignment, and the byte offsets of matches in them) do work linear in the string: 4 MB adversarial
 * strings cost a counted number of steps bounded by a constant times their length, and twice the string costs twice.
 * (Inside each view, the built-in patterns are linear by their shape and patterns of your own by RE2's.)
 */
import { describe, expect, test } from 'vitest';
import { PatternSet, type ScanMeter } from '../../src/redaction/patterns.js';

const SIZE = 4 * 1024 * 1024;
const set = new PatternSet(['email', 'card', 'phone', { regex: '(\\w+\\s?)+@' }]);
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** `unit` repeated to `size` characters. */
function fill(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

function steps(text: string): number {
  const meter: ScanMeter = { steps: 0 };
  set.mask(text, meter);
  return meter.steps;
}

const INPUTS: Array<[string, (size: number) => string]> = [
  // One base64 run over megabytes that decodes to a match every few bytes (an uploaded text file of addresses).
  ['base64 of many emails', (n) => fill(b64('a@b.cc '.repeat(Math.ceil(n / 9))), n)],
  ['base64 of many card numbers', (n) => fill(b64('4111111111111111 '.repeat(Math.ceil(n / 22))), n)],
  ['short base64 runs of emails (every alignment)', (n) => fill(`${b64(`x${'é@b.cc '.repeat(100)}`)} `, n)],
  ['one base64 run', (n) => fill('A', n)],
  ['base64 runs one short of the minimum', (n) => fill('AAAAAAA=', n)],
  ['percent escapes', (n) => fill('%41', n)],
  ['broken percent escapes', (n) => fill('%E2%82', n)],
  ['bare percent signs', (n) => fill('%', n)],
  ['local parts without a domain', (n) => fill('a@', n)],
  ['dotted labels without a top-level domain', (n) => fill('a@b.1.', n)],
  ['digits and separators', (n) => fill('1 ', n)],
  ['phone fragments', (n) => fill('+1 (', n)],
  ['words without an @', (n) => fill('word ', n)],
];

describe('pattern scans over 4 MB adversarial strings', () => {
  test.each(INPUTS)(
    '%s: linear in counted steps',
    (_name, make) => {
      const full = steps(make(SIZE));
      const half = steps(make(SIZE / 2));
      expect(full).toBeGreaterThanOrEqual(SIZE);
      expect(full).toBeLessThanOrEqual(64 * SIZE);
      expect(full / half).toBeLessThan(2.1);
    },
    120_000,
  );

  test('what the scans find there is masked', () => {
    const text = b64('a@b.cc '.repeat(20_000));
    const masked = set.mask(text);
    expect(masked).toHaveLength(text.length);
    expect(Buffer.from(masked, 'base64').toString('latin1')).not.toContain('a@b.cc');
    // A match after a character of two UTF-16 units, in a base64 run decoded at an offset: the right quads are zeroed.
    const glued = `x${b64(`😀 ${'a@b.cc '.repeat(3)}`)}`;
    expect(Buffer.from(set.mask(glued).slice(1), 'base64').toString('utf8')).not.toMatch(/a@b|b\.cc/);
  });
});
