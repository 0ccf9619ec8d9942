/**
 * CSS read as a browser reads it (CSS Syntax Level 3, §4 "Tokenization"), in one left-to-right pass, for the places
 * where it names a URL: `url(…)` tokens, the strings of the functions that take URLs (`url("…")`, `src()`,
 * `image-set()`, `image()`, `cross-fade()`, with their `-webkit-` forms) and `@import` rules. Comments, strings and
 * escapes (`u\72l(` is `url(`) are read exactly as the tokenizer does, so a URL in a comment or an ordinary string is
 * not one, and one spelled with escapes is. Every character is looked at a bounded number of times: the work is
 * linear in the text whatever it holds (unclosed comments, strings and `url(`, deep parentheses).
 *
 * Pure code with no DOM and no Node: the player's sanitizer (sanitize.ts, captured-assets.ts) rewrites CSS with it
 * in the browser, and `--capture-assets` (src/assets/collect.ts) collects the URLs to fetch with it in Node.
 */

/** A count of the characters a scan looked at (tests bound it: the scan is linear in its input). */
export interface CssMeter {
  steps: number;
}

/** Where a scan reports what it finds: [start, end) are UTF-16 indexes of the text. */
export interface CssReferences {
  /** A `url(…)` token (unquoted): its URL with escapes read; undefined when empty or malformed (CSS's bad URL). */
  url(value: string | undefined, start: number, end: number): void;
  /**
   * A string token inside a function that takes URLs: its text with escapes read (undefined: unclosed at a line
   * break); `direct` when it is the function's own argument, not one of a function nested in it (`type("…")`).
   */
  string(value: string | undefined, start: number, end: number, direct: boolean): void;
  /** An `@import` rule, through its `;` (or up to the `{`/`}` that ends it), with its URL when it names one. */
  atImport(value: string | undefined, start: number, end: number): void;
}

/**
 * What the text ends in, for text that other text will follow (the browser joins the texts of a `<style>`): `''`
 * at a token's end, else the characters that close what is open (a comment, a string, an escape).
 */
export type CssTail = string;

const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const STAR = 0x2a;
const OPEN = 0x28;
const CLOSE = 0x29;
const DQUOTE = 0x22;
const SQUOTE = 0x27;
const LF = 0x0a;
const CR = 0x0d;
const AT = 0x40;
const HASH = 0x23;
const SEMICOLON = 0x3b;
const LBRACE = 0x7b;
const RBRACE = 0x7d;

/** Functions whose strings are URLs (or may be: checked alike). */
const URL_FUNCTIONS: Readonly<Record<string, 1>> = {
  url: 1,
  src: 1,
  'image-set': 1,
  '-webkit-image-set': 1,
  image: 1,
  '-webkit-image': 1,
  'cross-fade': 1,
  '-webkit-cross-fade': 1,
};
/** Names longer than this are none of the names the scan looks for: not decoded. */
const LONGEST_NAME = 18;

function newline(c: number): boolean {
  return c === LF || c === CR || c === 0x0c;
}

function space(c: number): boolean {
  return c === 0x20 || c === 0x09 || newline(c);
}

function hexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function nameStart(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c >= 0x80;
}

function nameChar(c: number): boolean {
  return nameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d;
}

/** A backslash that starts an escape: not followed by a line break (at the end of the text it stands for U+FFFD). */
function validEscape(t: string, i: number): boolean {
  return t.charCodeAt(i) === BACKSLASH && !(i + 1 < t.length && newline(t.charCodeAt(i + 1)));
}

/** Whether an identifier starts at `i` (CSS's "would start an ident sequence"). */
function identStart(t: string, i: number): boolean {
  const c = t.charCodeAt(i);
  if (c === 0x2d) {
    const d = t.charCodeAt(i + 1);
    return nameStart(d) || d === 0x2d || validEscape(t, i + 1);
  }
  return nameStart(c) || validEscape(t, i);
}

/** Non-printable characters, which make an unquoted URL malformed. */
function nonPrintable(c: number): boolean {
  return (c >= 0 && c <= 8) || c === 0x0b || (c >= 0x0e && c <= 0x1f) || c === 0x7f;
}

/** Where the escape whose backslash is at `i - 1` ends, and the character it stands for. */
function escapeAt(t: string, i: number, m: CssMeter): { text: string; end: number } {
  if (i >= t.length) return { text: '\ufffd', end: i };
  let j = i;
  while (j < t.length && j - i < 6 && hexDigit(t.charCodeAt(j))) j++;
  m.steps += Math.max(1, j - i);
  if (j === i) {
    const c = t.codePointAt(i)!;
    return { text: c === 0 ? '\ufffd' : String.fromCodePoint(c), end: i + (c > 0xffff ? 2 : 1) };
  }
  const code = parseInt(t.slice(i, j), 16);
  // One white space after the digits is part of the escape (CR LF counts as one).
  if (j < t.length && space(t.charCodeAt(j))) j += t.charCodeAt(j) === CR && t.charCodeAt(j + 1) === LF ? 2 : 1;
  const bad = code === 0 || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff;
  return { text: String.fromCodePoint(bad ? 0xfffd : code), end: j };
}

/** The name starting at `i`: where it ends, and its text (escapes read, ASCII lower-cased; '' when too long). */
function readName(t: string, i: number, m: CssMeter): { name: string; end: number } {
  let j = i;
  let name = '';
  let from = i;
  while (j < t.length) {
    const c = t.charCodeAt(j);
    if (nameChar(c)) {
      m.steps++;
      j++;
    } else if (validEscape(t, j)) {
      if (name.length <= LONGEST_NAME) name += t.slice(from, j);
      const e = escapeAt(t, j + 1, m);
      if (name.length <= LONGEST_NAME) name += e.text;
      j = e.end;
      from = j;
    } else break;
  }
  if (name.length <= LONGEST_NAME) name += t.slice(from, Math.min(j, from + LONGEST_NAME + 1));
  return { name: name.length <= LONGEST_NAME ? name.toLowerCase() : '', end: j };
}

interface Token {
  /** The text with escapes read; undefined when malformed (or empty, for a URL). */
  value: string | undefined;
  end: number;
}

/**
 * The string token opening at `i` (a quote). Closed by its quote; at an unescaped line break it is a bad string
 * (value undefined) that ends before the break; at the end of the text it ends there (`open` then says how to close
 * it: the quote, after a line break when it ends in a lone backslash).
 */
function readString(t: string, i: number, m: CssMeter): Token & { open: string } {
  const quote = t.charCodeAt(i);
  let j = i + 1;
  let value = '';
  let from = j;
  while (j < t.length) {
    m.steps++;
    const c = t.charCodeAt(j);
    if (c === quote) return { value: value + t.slice(from, j), end: j + 1, open: '' };
    if (newline(c)) return { value: undefined, end: j, open: '' };
    if (c !== BACKSLASH) {
      j++;
      continue;
    }
    value += t.slice(from, j);
    if (j + 1 >= t.length) return { value, end: t.length, open: `\n${t[i]}` };
    const d = t.charCodeAt(j + 1);
    if (newline(d)) j += d === CR && t.charCodeAt(j + 2) === LF ? 3 : 2;
    else {
      const e = escapeAt(t, j + 1, m);
      value += e.text;
      j = e.end;
    }
    from = j;
  }
  return { value: value + t.slice(from), end: t.length, open: t[i]! };
}

/** The `url(` token whose argument starts at `i` (CSS's "consume a url token", and a bad URL's remnants). */
function readUrl(t: string, i: number, m: CssMeter): Token {
  let j = i;
  while (j < t.length && space(t.charCodeAt(j))) j++;
  m.steps += j - i;
  let value = '';
  let from = j;
  while (j < t.length) {
    m.steps++;
    const c = t.charCodeAt(j);
    if (c === CLOSE) return { value: value + t.slice(from, j) || undefined, end: j + 1 };
    if (space(c)) {
      const at = j;
      while (j < t.length && space(t.charCodeAt(j))) j++;
      m.steps += j - at;
      if (j >= t.length || t.charCodeAt(j) === CLOSE)
        return { value: value + t.slice(from, at) || undefined, end: Math.min(j + 1, t.length) };
      break;
    }
    if (c === DQUOTE || c === SQUOTE || c === OPEN || nonPrintable(c)) break;
    if (c === BACKSLASH) {
      if (!validEscape(t, j)) break;
      value += t.slice(from, j);
      const e = escapeAt(t, j + 1, m);
      value += e.text;
      j = e.end;
      from = j;
      continue;
    }
    j++;
  }
  if (j >= t.length) return { value: value + t.slice(from) || undefined, end: t.length };
  // A bad URL: nothing, up to its `)` (an escaped one does not end it).
  while (j < t.length) {
    m.steps++;
    if (t.charCodeAt(j) === CLOSE) return { value: undefined, end: j + 1 };
    j = validEscape(t, j) ? escapeAt(t, j + 1, m).end : j + 1;
  }
  return { value: undefined, end: t.length };
}

/** Whether `url(` at the `(` at `i` is a function taking a quoted string (else it is a `url(` token). */
function quotedUrl(t: string, i: number, m: CssMeter): boolean {
  let j = i + 1;
  while (j < t.length && space(t.charCodeAt(j))) j++;
  m.steps += j - i - 1;
  const c = t.charCodeAt(j);
  return c === DQUOTE || c === SQUOTE;
}

/** An `@import` being read: where it starts, the parenthesis depth it is at, and the first URL it names. */
interface OpenImport {
  start: number;
  depth: number;
  url: string | undefined;
  named: boolean;
}

/**
 * Reads `t`, telling `refs` of each URL it names (see `CssReferences`); returns what would close what the text leaves
 * open at its end (`CssTail`).
 */
export function scanCss(t: string, refs: CssReferences, m: CssMeter = { steps: 0 }): CssTail {
  const n = t.length;
  let depth = 0; // open parentheses (blocks and functions)
  let urlDepth = -1; // the depth inside the outermost function taking URLs (-1: not inside one)
  let typeDepth = -1; // the depth inside an image-set option's `type()`, whose string is a media type, no URL
  let imp: OpenImport | undefined;
  const named = (value: string | undefined): void => {
    if (imp !== undefined && !imp.named) {
      imp.url = value;
      imp.named = true;
    }
  };
  let i = 0;
  while (i < n) {
    m.steps++;
    const c = t.charCodeAt(i);
    if (c === SLASH && t.charCodeAt(i + 1) === STAR) {
      const close = t.indexOf('*/', i + 2);
      m.steps += (close === -1 ? n : close + 2) - i;
      if (close === -1) {
        if (imp !== undefined) refs.atImport(imp.url, imp.start, n);
        return '*/';
      }
      i = close + 2;
    } else if (c === DQUOTE || c === SQUOTE) {
      const s = readString(t, i, m);
      if (imp !== undefined) named(s.value);
      else if (urlDepth >= 0 && depth !== typeDepth) refs.string(s.value, i, s.end, depth === urlDepth);
      if (s.open !== '' && (imp !== undefined || urlDepth >= 0)) {
        if (imp !== undefined) refs.atImport(imp.url, imp.start, n);
        return '';
      }
      if (s.open !== '') return s.open;
      i = s.end;
    } else if (c === AT && identStart(t, i + 1)) {
      const at = readName(t, i + 1, m);
      if (imp === undefined && at.name === 'import') imp = { start: i, depth, url: undefined, named: false };
      i = at.end;
    } else if (c === HASH || (c >= 0x30 && c <= 0x39)) {
      // A hash (`#url(` is no function) or a number with its unit (`1url(` neither): one name.
      i = readName(t, i + 1, m).end;
    } else if (identStart(t, i)) {
      const id = readName(t, i, m);
      if (t.charCodeAt(id.end) !== OPEN) {
        i = id.end;
      } else if (id.name === 'url' && !quotedUrl(t, id.end, m)) {
        const u = readUrl(t, id.end + 1, m);
        if (imp !== undefined) named(u.value);
        else refs.url(u.value, i, u.end);
        i = u.end;
      } else {
        depth++;
        if (urlDepth < 0 && URL_FUNCTIONS[id.name] === 1) urlDepth = depth;
        else if (urlDepth >= 0 && typeDepth < 0 && id.name === 'type') typeDepth = depth;
        i = id.end + 1;
      }
    } else if (c === OPEN) {
      depth++;
      i++;
    } else if (c === CLOSE) {
      if (depth > 0) depth--;
      if (urlDepth > depth) urlDepth = -1;
      if (typeDepth > depth) typeDepth = -1;
      i++;
    } else if (imp !== undefined && depth === imp.depth && (c === SEMICOLON || c === LBRACE || c === RBRACE)) {
      const end = c === SEMICOLON ? i + 1 : i;
      refs.atImport(imp.url, imp.start, end);
      imp = undefined;
      i = end;
    } else {
      i++;
    }
  }
  if (imp !== undefined) refs.atImport(imp.url, imp.start, n);
  return '';
}

/** Characters after which other CSS text starts at a token of its own. */
function endsToken(c: number): boolean {
  return space(c) || c === SEMICOLON || c === LBRACE || c === RBRACE || c === CLOSE || c === 0x2c || c === 0x3a;
}

/** `value` as a CSS string (double quotes; quotes, backslashes and line breaks escaped). */
function cssString(value: string): string {
  return `"${value.replace(/["\\\n\r\f]/g, (c) => (c === '"' || c === '\\' ? `\\${c}` : `\\${c.charCodeAt(0).toString(16)} `))}"`;
}

/** How `rewriteCssUrls` replaces what the CSS names: the text to write instead. */
export interface CssRewrite {
  /** A URL (of a `url()` token or a string of a function taking URLs): the URL to write, or null for none. */
  url(value: string | undefined): string | null;
  /** An `@import` of `value`: the CSS to write instead ('' to remove it). */
  atImport(value: string | undefined): string;
  /**
   * Whether other text may follow this one in the browser (a `<style>`'s texts, joined): then a comment ends it too,
   * unless its last character ends a token (default true). A value read on its own (an SVG attribute's) needs none.
   */
  joined?: boolean;
}

/**
 * `css` with every URL it names replaced as `rewrite` says, in one pass; closed at its end (a comment, string or
 * escape left open is closed, and, `joined`, a comment ends it unless its last character ends a token), so that what
 * the browser reads after it — the next text of the same `<style>` — is read as the scan read it.
 */
export function rewriteCssUrls(css: string, rewrite: CssRewrite, meter?: CssMeter): string {
  const out: string[] = [];
  let from = 0;
  const put = (start: number, end: number, text: string): void => {
    out.push(css.slice(from, start), text);
    from = end;
  };
  const tail = scanCss(
    css,
    {
      url(value, start, end) {
        const url = rewrite.url(value);
        put(start, end, url === null ? 'url()' : `url(${cssString(url)})`);
      },
      string(value, start, end) {
        const url = rewrite.url(value);
        put(start, end, url === null ? '""' : cssString(url));
      },
      atImport(value, start, end) {
        // A comment keeps the text on either side apart (`u@import "x";rl(` is not `url(`).
        put(start, end, `/**/${rewrite.atImport(value)}/**/`);
      },
    },
    meter,
  );
  out.push(css.slice(from), tail);
  const text = out.join('');
  // A backslash left at the end would escape the next text's first character: it escapes a space instead.
  if (danglingBackslash(text)) return `${text} /**/`;
  if (rewrite.joined === false) return text;
  return text === '' || endsToken(text.charCodeAt(text.length - 1)) ? text : `${text}/**/`;
}

/** Whether `text` ends in an odd run of backslashes (outside strings and comments, the last one escapes nothing yet). */
function danglingBackslash(text: string): boolean {
  let k = text.length;
  while (k > 0 && text.charCodeAt(k - 1) === BACKSLASH) k--;
  return (text.length - k) % 2 === 1;
}
