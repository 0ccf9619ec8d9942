/**
 * Patterns: strings masked wherever they occur in an event, as they are and in the encoded forms a recording holds
 * them in. For each string value three views are searched:
 *   - the string itself;
 *   - its percent-decoded view, when it holds `%XX` escapes (an href query, a URL-encoded form value): a match there
 *     masks the escapes it was decoded from (`jane%40example.com` → `*****************`);
 *   - each run of 8 or more base64 characters (a `data:…;base64,` URL, a token), decoded at its start and, for runs
 *     of at most 1,024 characters, at the three other alignments too (a base64 value glued to other text): a match in
 *     the decoded bytes (read as UTF-8 when they are valid UTF-8, else byte for byte) zeroes the base64 quads that
 *     encode it (`A`: the encoded form stays valid base64 of the same length, and decodes to zero bytes there).
 * Masking keeps length: each character of a match other than white space becomes `*`.
 *
 * The built-ins run on JavaScript's engine: each is linear in the text (their comments say why). Patterns of your
 * own run on RE2 (`re2js`), whose matching is linear in the text for every pattern: a pattern that would backtrack
 * catastrophically on a backtracking engine costs the same as any other.
 */
import { isUtf8 } from 'node:buffer';
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { RedactionPolicyError } from './errors.js';

/**
 * RE2 is loaded when a pattern of your own is first compiled, not with this module (a run without such a pattern, or
 * without a policy, does not pay its ~6 ms of CPU at start): its CommonJS build, which `require` loads synchronously.
 */
const requireModule = createRequire(import.meta.url);
let re2js: typeof RE2JS | undefined;
function re2(): typeof RE2JS {
  return (re2js ??= (requireModule('re2js') as { RE2JS: typeof RE2JS }).RE2JS);
}

/** A pattern as a policy names it: a built-in, or a regular expression of your own. */
export type PatternSpec = 'email' | 'card' | 'phone' | { regex: string; flags?: string };

interface Pattern {
  /** Pushes the [start, end) of each match in `text` (UTF-16 indexes) onto `out`. */
  readonly find: (text: string, out: number[]) => void;
  /**
   * Whether an integer sent as a JSON number, by its decimal digits, is what the pattern masks (`exact`: false when
   * the number was beyond 2^53 and its last digits were lost in parsing).
   */
  readonly number?: (digits: string, exact: boolean) => boolean;
}

/** A built-in: a JavaScript regular expression (flag `g`) and a further check of each match. */
function builtin(regex: RegExp, accept?: (match: string) => boolean, number?: Pattern['number']): Pattern {
  return {
    find(text, out) {
      regex.lastIndex = 0;
      for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
        if (m[0].length === 0) {
          regex.lastIndex++;
          continue;
        }
        if (accept === undefined || accept(m[0])) out.push(m.index, m.index + m[0].length);
      }
    },
    ...(number === undefined ? {} : { number }),
  };
}

function luhn(match: string): boolean {
  const digits = match.replace(/\D/g, '');
  return digits.length >= 13 && digits.length <= 19 && luhnSum(digits);
}

function luhnSum(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function phoneLike(match: string): boolean {
  const digits = match.replace(/\D/g, '').length;
  if (digits < 8 || digits > 15) return false;
  const separators = match.replace(/[\d()+]/g, '').length;
  return match.startsWith('+') || match.includes('(') || separators >= 2;
}

/** The built-in patterns (heuristics: docs/REDACTION.md says what each catches and misses). */
export const BUILTIN_PATTERNS: Readonly<Record<'email' | 'card' | 'phone', Pattern>> = Object.freeze({
  // The look-behind makes a search start only where a run of local-part characters starts: linear in a long run with
  // no `@` (a base64 image), where a bare `[…]+@` would try every position of the run again. After the `@`, the
  // domain's labels are delimited by dots: no two ways to match the same text.
  email: builtin(/(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g),
  // 13 to 19 digits, single spaces or dashes between them allowed, with a valid Luhn sum (a match is at most 37
  // characters long: constant work per start). As a number: 13 to 19 digits with a valid Luhn sum, or beyond 2^53.
  card: builtin(
    /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
    luhn,
    (digits, exact) => digits.length >= 13 && digits.length <= 19 && (!exact || luhnSum(digits)),
  ),
  // An international number (+…), or groups with separators: 8 to 15 digits, the last group at least 3 long (a
  // match is at most ~40 characters long). As a number (no separators to tell): any integer of 8 to 15 digits.
  phone: builtin(
    /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,4}){0,3}[ .-]\d{3,5}(?![\w])/g,
    phoneLike,
    (digits) => digits.length >= 8 && digits.length <= 15,
  ),
});

const USER_FLAGS = /^[ims]*$/;
const RE2_FLAGS: Readonly<Record<string, 'CASE_INSENSITIVE' | 'MULTILINE' | 'DOTALL'>> = {
  i: 'CASE_INSENSITIVE',
  m: 'MULTILINE',
  s: 'DOTALL',
};

/** A pattern of your own, on RE2: linear in the text whatever the pattern. */
function re2Pattern(re: RE2JS): Pattern {
  return {
    find(text, out) {
      const m = re.matcher(text);
      while (m.find()) if (m.end() > m.start()) out.push(m.start(), m.end());
    },
  };
}

function compilePattern(spec: unknown, where: string): Pattern {
  if (typeof spec === 'string') {
    if (spec === 'email' || spec === 'card' || spec === 'phone') return BUILTIN_PATTERNS[spec];
    throw new RedactionPolicyError(
      `${where}: unknown built-in pattern ${JSON.stringify(spec)} (email, card, phone, or { "regex": "..." })`,
    );
  }
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
    throw new RedactionPolicyError(`${where} must be a built-in name or { "regex": "...", "flags": "i" }`);
  const { regex, flags, ...rest } = spec as Record<string, unknown>;
  if (Object.keys(rest).length > 0)
    throw new RedactionPolicyError(`${where}: unknown field ${JSON.stringify(Object.keys(rest)[0])}`);
  if (typeof regex !== 'string' || regex === '')
    throw new RedactionPolicyError(`${where}.regex must be a non-empty string`);
  if (flags !== undefined && (typeof flags !== 'string' || !USER_FLAGS.test(flags)))
    throw new RedactionPolicyError(`${where}.flags may hold i, m and s only`);
  let compiled: RE2JS;
  try {
    const RE2 = re2();
    compiled = RE2.compile(
      regex,
      [...(flags ?? '')].reduce((all, f) => all | RE2[RE2_FLAGS[f]!], 0),
    );
  } catch (err) {
    // RE2 syntax: no look-around, no back-references (what makes matching exponential on a backtracking engine).
    throw new RedactionPolicyError(
      `${where}.regex does not compile as RE2 syntax (no look-around, no back-references): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (compiled.matcher('').find()) throw new RedactionPolicyError(`${where}.regex matches the empty string`);
  return re2Pattern(compiled);
}

/** A count of the characters the scans looked at (tests bound it: masking is linear in the text). */
export interface ScanMeter {
  steps: number;
}

/** Each match of the patterns in `text` as [start, end) pairs (UTF-16 indexes), pushed onto `out`. */
function findMatches(patterns: readonly Pattern[], text: string, out: number[], meter: ScanMeter): void {
  meter.steps += patterns.length * text.length;
  for (const p of patterns) p.find(text, out);
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/**
 * The UTF-8 byte offset of UTF-16 indexes of `view` (`Buffer.byteLength(view.slice(0, index))`), asked in increasing
 * order (each pattern's matches are): from the last one asked, so all of a view's matches cost one pass over it, not
 * one pass each. An index between the two halves of a pair counts the high half alone (3 bytes), as a slice does.
 */
class ByteOffsets {
  #char = 0;
  #byte = 0;
  constructor(
    private readonly view: string,
    private readonly meter: ScanMeter,
  ) {}

  at(index: number): number {
    if (index < this.#char) {
      this.#char = 0;
      this.#byte = 0;
    }
    const v = this.view;
    const split = index > 0 && index < v.length && isHigh(v.charCodeAt(index - 1)) && isLow(v.charCodeAt(index));
    const end = split ? index - 1 : index;
    this.meter.steps += end - this.#char;
    this.#byte += Buffer.byteLength(v.slice(this.#char, end), 'utf8');
    this.#char = end;
    return split ? this.#byte + 3 : this.#byte;
  }
}

/** The value of a hexadecimal digit, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
}

/** Whether a `%XX` escape starts at `i`. */
function escapeAt(text: string, i: number): boolean {
  return text.charCodeAt(i) === 0x25 && hexValue(text.charCodeAt(i + 1)) >= 0 && hexValue(text.charCodeAt(i + 2)) >= 0;
}

/** The byte a `%XX` escape at `i` stands for. */
function escapedByte(text: string, i: number): number {
  return hexValue(text.charCodeAt(i + 1)) * 16 + hexValue(text.charCodeAt(i + 2));
}

/** Escaped bytes decoded at once, at most: a longer run of escapes is decoded in pieces, cut between characters. */
const DECODE_CHUNK = 1 << 16;

/** Where the percent-decoded view of a text comes from, piece by piece, in order. */
interface PercentVisitor {
  /** [from, to) of the text kept as it is: each character one unit of the view. */
  literal(from: number, to: number): void;
  /** The escapes [from, to) decoded (valid UTF-8) to `chars`: each character's units come from its bytes' escapes. */
  decoded(from: number, to: number, chars: string): void;
}

/** Decodes the escapes [from, to) (a run of them), in pieces of at most DECODE_CHUNK bytes cut before a lead byte. */
function decodeRun(text: string, from: number, to: number, visit: PercentVisitor): void {
  let k = from;
  while (k < to) {
    let end = Math.min(to, k + 3 * DECODE_CHUNK);
    // Cut before a character's first byte (not inside one): back over continuation bytes (10xxxxxx), at most three.
    for (let back = 0; end < to && back < 4 && (escapedByte(text, end) & 0xc0) === 0x80; back++) end -= 3;
    if (end <= k) end = Math.min(to, k + 3 * DECODE_CHUNK);
    const bytes = Buffer.allocUnsafe((end - k) / 3);
    for (let b = 0; b < bytes.length; b++) bytes[b] = escapedByte(text, k + 3 * b);
    // Not UTF-8: kept as its escapes.
    if (isUtf8(bytes)) visit.decoded(k, end, bytes.toString('utf8'));
    else visit.literal(k, end);
    k = end;
  }
}

/** Walks `text`'s percent-decoded view: one pass, no state but the pieces (an escaped byte is `%XX`, 3 characters). */
function walkPercent(text: string, visit: PercentVisitor): void {
  let kept = 0;
  for (let i = text.indexOf('%'); i !== -1; ) {
    if (!escapeAt(text, i)) {
      i = text.indexOf('%', i + 1);
      continue;
    }
    let j = i;
    while (escapeAt(text, j)) j += 3;
    if (i > kept) visit.literal(kept, i);
    decodeRun(text, i, j, visit);
    kept = j;
    i = text.indexOf('%', j);
  }
  if (kept < text.length) visit.literal(kept, text.length);
}

/**
 * The percent-decoded view of `text`, undefined when it holds no valid escape. Escaped bytes are decoded as UTF-8 (an
 * invalid sequence is kept as its escapes). Built in one pass, in pieces joined a few thousand at a time: its memory is
 * the view's own (a third of the text for a text of escapes), nothing per character.
 */
function percentView(text: string): string | undefined {
  if (!/%[0-9A-Fa-f]{2}/.test(text)) return undefined;
  const chunks: string[] = [];
  let parts: string[] = [];
  const put = (piece: string): void => {
    parts.push(piece);
    if (parts.length >= 4096) {
      chunks.push(parts.join(''));
      parts = [];
    }
  };
  walkPercent(text, {
    literal: (from, to) => put(text.slice(from, to)),
    decoded: (_from, _to, chars) => put(chars),
  });
  chunks.push(parts.join(''));
  return chunks.join('');
}

/**
 * For view indexes `at` (ascending), the [from, to) of `text` each one's unit of the percent-decoded view comes from:
 * the same walk again, looking into a decoded piece only where an index falls.
 */
function percentSources(text: string, at: Int32Array): { from: Int32Array; to: Int32Array } {
  const from = new Int32Array(at.length);
  const to = new Int32Array(at.length);
  let q = 0;
  let unit = 0; // the view's index where the piece being walked starts
  walkPercent(text, {
    literal(a, b) {
      for (; q < at.length && at[q]! < unit + (b - a); q++) {
        from[q] = a + (at[q]! - unit);
        to[q] = from[q]! + 1;
      }
      unit += b - a;
    },
    decoded(a, _to, chars) {
      const end = unit + chars.length;
      if (q < at.length && at[q]! < end) {
        // Each character: its units, and its bytes' escapes (3 text characters a byte).
        let u = unit;
        let byte = 0;
        for (const ch of chars) {
          const cp = ch.codePointAt(0)!;
          const bytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
          for (; q < at.length && at[q]! < u + ch.length; q++) {
            from[q] = a + 3 * byte;
            to[q] = a + 3 * (byte + bytes);
          }
          u += ch.length;
          byte += bytes;
          if (q >= at.length || at[q]! >= end) break;
        }
      }
      unit = end;
    },
  });
  return { from, to };
}

/** The index of `value` in the ascending `sorted` (which holds it). */
function indexOf(sorted: Int32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Each run of 8 or more base64 characters (`[A-Za-z0-9+/_-]`) of `text`: one pass, no regular expression. */
function base64Runs(text: string, visit: (start: number, end: number) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!base64Char(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && base64Char(text.charCodeAt(i))) i++;
    if (i - start >= 8) visit(start, i);
  }
}

function base64Char(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2b ||
    c === 0x2f ||
    c === 0x5f ||
    c === 0x2d
  );
}

/** Runs longer than this are decoded at their start only (a data: URL or a token is a base64 value from its start). */
const ALIGNED_ONLY_ABOVE = 1024;

const STAR = 1;
const ZERO = 2;

/**
 * What must change in `text`, pushed onto `marks` as (start, end, kind) triples: kind `STAR` (each character other
 * than white space becomes `*`) or `ZERO` (base64 characters become `A`).
 */
function markMatches(patterns: readonly Pattern[], text: string, marks: number[], meter: ScanMeter): void {
  const ranges: number[] = [];
  findMatches(patterns, text, ranges, meter);
  for (let r = 0; r < ranges.length; r += 2) marks.push(ranges[r]!, ranges[r + 1]!, STAR);

  const view = percentView(text);
  if (view !== undefined) {
    meter.steps += text.length;
    ranges.length = 0;
    findMatches(patterns, view, ranges, meter);
    if (ranges.length > 0) markPercent(text, ranges, marks, meter);
  }

  base64Runs(text, (start, end) => markBase64(patterns, text, start, end, marks, meter));
}

/** Marks the escapes that the matches `ranges` of the percent-decoded view were decoded from. */
function markPercent(text: string, ranges: readonly number[], marks: number[], meter: ScanMeter): void {
  // The view's first and last unit of each match, ascending, found in one more walk over the text.
  const at = new Int32Array(ranges.length);
  for (let r = 0; r < ranges.length; r += 2) {
    at[r] = ranges[r]!;
    at[r + 1] = ranges[r + 1]! - 1;
  }
  at.sort();
  meter.steps += text.length;
  const { from, to } = percentSources(text, at);
  for (let r = 0; r < ranges.length; r += 2)
    marks.push(from[indexOf(at, ranges[r]!)]!, to[indexOf(at, ranges[r + 1]! - 1)]!, STAR);
}

/** Marks the base64 quads of the run [start, end) that encode what a pattern matches in its decoded bytes. */
function markBase64(
  patterns: readonly Pattern[],
  text: string,
  start: number,
  end: number,
  marks: number[],
  meter: ScanMeter,
): void {
  const ranges: number[] = [];
  const run = end - start;
  const alignments = run > ALIGNED_ONLY_ABOVE ? 1 : 4;
  for (let a = 0; a < alignments && run - a >= 8; a++) {
    const part = text.slice(start + a, end);
    // Node's base64 decoder takes both alphabets (standard and URL-safe).
    const bytes = Buffer.from(part, 'base64');
    if (bytes.length === 0) continue;
    const valid = isUtf8(bytes);
    const view = bytes.toString(valid ? 'utf8' : 'latin1');
    meter.steps += part.length;
    ranges.length = 0;
    findMatches(patterns, view, ranges, meter);
    const offsets = valid ? new ByteOffsets(view, meter) : undefined;
    for (let r = 0; r < ranges.length; r += 2) {
      const startByte = offsets === undefined ? ranges[r]! : offsets.at(ranges[r]!);
      const endByte = offsets === undefined ? ranges[r + 1]! : offsets.at(ranges[r + 1]!);
      // Base64 quads encode 3 bytes each: zero every quad holding a byte of the match.
      const from = start + a;
      marks.push(
        from + Math.floor(startByte / 3) * 4,
        Math.min(from + Math.ceil(endByte / 3) * 4, from + part.length),
        ZERO,
      );
    }
  }
}

/** Compiled patterns: masks what they match in a string, in its plain, URL-encoded and base64 forms. */
export class PatternSet {
  readonly #patterns: readonly Pattern[];

  constructor(specs: readonly unknown[]) {
    this.#patterns = specs.map((s, i) => compilePattern(s, `patterns[${i}]`));
  }

  get empty(): boolean {
    return this.#patterns.length === 0;
  }

  /**
   * A JSON number a pattern masks (`card`, `phone`: an integer by its decimal digits) as `*`, one per character of
   * its decimal form; undefined when none does.
   */
  maskNumber(value: number): string | undefined {
    if (!Number.isInteger(value)) return undefined;
    const digits = BigInt(Math.abs(value)).toString();
    const exact = Number.isSafeInteger(value);
    for (const p of this.#patterns)
      if (p.number?.(digits, exact)) return '*'.repeat(digits.length + (value < 0 ? 1 : 0));
    return undefined;
  }

  /** `text` with every match masked (the same string when nothing matched); `meter` counts the work. */
  mask(text: string, meter: ScanMeter = { steps: 0 }): string {
    if (this.#patterns.length === 0 || text.length === 0) return text;
    const marks: number[] = [];
    markMatches(this.#patterns, text, marks, meter);
    if (marks.length === 0) return text;
    // Per character: 0 kept, STAR or ZERO; a character both matched as text and inside a zeroed quad is a star.
    const mask = new Uint8Array(text.length);
    for (let k = 0; k < marks.length; k += 3) {
      const kind = marks[k + 2]!;
      for (let c = marks[k]!; c < marks[k + 1]!; c++) if (mask[c] !== STAR) mask[c] = kind;
    }
    let out = '';
    let from = 0;
    for (let k = 0; k < text.length; k++) {
      const m = mask[k]!;
      if (m === 0) continue;
      const c = text.charCodeAt(k);
      const white = c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c;
      out += text.slice(from, k) + (m === ZERO ? 'A' : white ? text[k] : '*');
      from = k + 1;
    }
    return out + text.slice(from);
  }
}

/** Every character other than white space as `*` (length kept): the masking of selected text and input values. */
export function maskAll(text: string): string {
  return text.replace(/\S/gu, '*');
}
