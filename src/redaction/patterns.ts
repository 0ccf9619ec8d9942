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
 */
import { RedactionPolicyError } from './errors.js';

/** A pattern as a policy names it: a built-in, or a regular expression of your own. */
export type PatternSpec = 'email' | 'card' | 'phone' | { regex: string; flags?: string };

interface Pattern {
  readonly regex: RegExp;
  /** A further check of a match (the Luhn sum of a card number, the digit count of a phone number). */
  readonly accept?: (match: string) => boolean;
}

function luhn(match: string): boolean {
  const digits = match.replace(/\D/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
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
  // no `@` (a base64 image), where a bare `[…]+@` would try every position of the run again.
  email: { regex: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  // 13 to 19 digits, single spaces or dashes between them allowed, with a valid Luhn sum.
  card: { regex: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g, accept: luhn },
  // An international number (+…), or groups with separators: 8 to 15 digits, the last group at least 3 long.
  phone: { regex: /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,4}){0,3}[ .-]\d{3,5}(?![\w])/g, accept: phoneLike },
});

const USER_FLAGS = /^[ims]*$/;

function compilePattern(spec: unknown, where: string): Pattern {
  if (typeof spec === 'string') {
    if (spec === 'email' || spec === 'card' || spec === 'phone') return BUILTIN_PATTERNS[spec];
    throw new RedactionPolicyError(`${where}: unknown built-in pattern ${JSON.stringify(spec)} (email, card, phone, or { "regex": "..." })`);
  }
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) throw new RedactionPolicyError(`${where} must be a built-in name or { "regex": "...", "flags": "i" }`);
  const { regex, flags, ...rest } = spec as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw new RedactionPolicyError(`${where}: unknown field ${JSON.stringify(Object.keys(rest)[0])}`);
  if (typeof regex !== 'string' || regex === '') throw new RedactionPolicyError(`${where}.regex must be a non-empty string`);
  if (flags !== undefined && (typeof flags !== 'string' || !USER_FLAGS.test(flags))) throw new RedactionPolicyError(`${where}.flags may hold i, m and s only`);
  let compiled: RegExp;
  try {
    compiled = new RegExp(regex, `gu${flags ?? ''}`);
  } catch (err) {
    throw new RedactionPolicyError(`${where}.regex does not compile: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (compiled.test('')) throw new RedactionPolicyError(`${where}.regex matches the empty string`);
  compiled.lastIndex = 0;
  return { regex: compiled };
}

/** Each match of the patterns in `text` as [start, end) pairs (UTF-16 indexes), pushed onto `out`. */
function findMatches(patterns: readonly Pattern[], text: string, out: number[]): void {
  for (const p of patterns) {
    const re = p.regex;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      if (p.accept === undefined || p.accept(m[0])) out.push(m.index, m.index + m[0].length);
    }
  }
}

const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * The percent-decoded view of `text` and, per UTF-16 unit of it, the [start, end) in `text` it came from; undefined
 * when `text` holds no valid escape. Escaped bytes are decoded as UTF-8 (an invalid sequence is kept as its escapes).
 */
function percentDecoded(text: string): { view: string; from: Int32Array; to: Int32Array } | undefined {
  if (!/%[0-9A-Fa-f]{2}/.test(text)) return undefined;
  const units: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '%' && HEX.test(text.slice(i + 1, i + 3))) {
      // A run of escapes: decoded together (a multi-byte character is several escapes).
      const start = i;
      const bytes: number[] = [];
      const at: number[] = [];
      while (text[i] === '%' && HEX.test(text.slice(i + 1, i + 3))) {
        bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
        at.push(i);
        i += 3;
      }
      const buf = Buffer.from(bytes);
      const decoded = buf.toString('utf8');
      if (Buffer.from(decoded, 'utf8').equals(buf)) {
        // Map each decoded unit to the escapes of its bytes.
        let b = 0;
        for (const ch of decoded) {
          const n = Buffer.byteLength(ch, 'utf8');
          const s = at[b]!;
          const e = at[b + n - 1]! + 3;
          for (let u = 0; u < ch.length; u++) {
            units.push(ch[u]!);
            from.push(s);
            to.push(e);
          }
          b += n;
        }
      } else {
        for (let k = start; k < i; k++) {
          units.push(text[k]!);
          from.push(k);
          to.push(k + 1);
        }
      }
      continue;
    }
    units.push(text[i]!);
    from.push(i);
    to.push(i + 1);
    i++;
  }
  return { view: units.join(''), from: Int32Array.from(from), to: Int32Array.from(to) };
}

const BASE64_RUN = /[A-Za-z0-9+/_-]{8,}={0,2}/g;
/** Runs longer than this are decoded at their start only (a data: URL or a token is a base64 value from its start). */
const ALIGNED_ONLY_ABOVE = 1024;

const STAR = 1;
const ZERO = 2;

/**
 * What must change in `text`, pushed onto `marks` as (start, end, kind) triples: kind `STAR` (each character other
 * than white space becomes `*`) or `ZERO` (base64 characters become `A`).
 */
function markMatches(patterns: readonly Pattern[], text: string, marks: number[]): void {
  const ranges: number[] = [];
  findMatches(patterns, text, ranges);
  for (let r = 0; r < ranges.length; r += 2) marks.push(ranges[r]!, ranges[r + 1]!, STAR);

  const decoded = percentDecoded(text);
  if (decoded !== undefined) {
    ranges.length = 0;
    findMatches(patterns, decoded.view, ranges);
    for (let r = 0; r < ranges.length; r += 2) marks.push(decoded.from[ranges[r]!]!, decoded.to[ranges[r + 1]! - 1]!, STAR);
  }

  BASE64_RUN.lastIndex = 0;
  for (let m = BASE64_RUN.exec(text); m !== null; m = BASE64_RUN.exec(text)) {
    const run = m[0].replace(/=+$/, '');
    const alignments = run.length > ALIGNED_ONLY_ABOVE ? 1 : 4;
    for (let a = 0; a < alignments && run.length - a >= 8; a++) {
      const part = run.slice(a);
      // Node's base64 decoder takes both alphabets (standard and URL-safe).
      const bytes = Buffer.from(part, 'base64');
      if (bytes.length === 0) continue;
      const utf8 = bytes.toString('utf8');
      const valid = Buffer.from(utf8, 'utf8').equals(bytes);
      const view = valid ? utf8 : bytes.toString('latin1');
      ranges.length = 0;
      findMatches(patterns, view, ranges);
      for (let r = 0; r < ranges.length; r += 2) {
        const startByte = valid ? Buffer.byteLength(view.slice(0, ranges[r]!), 'utf8') : ranges[r]!;
        const endByte = valid ? Buffer.byteLength(view.slice(0, ranges[r + 1]!), 'utf8') : ranges[r + 1]!;
        // Base64 quads encode 3 bytes each: zero every quad holding a byte of the match.
        const from = m.index + a;
        marks.push(from + Math.floor(startByte / 3) * 4, Math.min(from + Math.ceil(endByte / 3) * 4, from + part.length), ZERO);
      }
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

  /** `text` with every match masked (the same string when nothing matched). */
  mask(text: string): string {
    if (this.#patterns.length === 0 || text.length === 0) return text;
    const marks: number[] = [];
    markMatches(this.#patterns, text, marks);
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
