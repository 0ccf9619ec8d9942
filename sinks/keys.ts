import { createHash } from 'node:crypto';
import { SinkError } from './errors.js';
import type { OutputFormat, OutputSpec } from './sink.js';

/**
 * Key layout: `<device segment>/<session segment><extension>`.
 *
 * The replay id (`device_id/session_id`) is split on its last `/` (as the API client validates it); each part becomes one path segment through
 * `encodeSegment`, an injective encoding whose output is plain ASCII from a small alphabet:
 *
 * - `a-z` and `0-9` stay as they are; `-`, `_` and `.` too, except that a leading `-`, `_` or `.` and a trailing `.`
 *   are escaped (no hidden files, no `.`/`..`, no names read as command-line options, no Windows trailing dot, and
 *   names starting with `_` or `.` stay free for the sink's own files: `_manifest/`, `_staging/`, `.name.tmp`).
 * - An upper-case ASCII letter `X` becomes `^x`, so that ids differing only in case stay distinct on
 *   case-insensitive file systems (macOS, Windows). Lower-case ids (UUIDs, numbers) read unchanged.
 * - Every other character is percent-encoded as the upper-case hex of its UTF-8 bytes (`/` → `%2F`, `%` → `%25`,
 *   `\` → `%5C`, NUL/control characters, spaces, `^`, `~`, non-ASCII). Unicode is never normalised: NFC and NFD
 *   spellings of one text are different bytes and therefore different keys. A lone UTF-16 surrogate (not valid
 *   Unicode, but possible in a JS string) becomes `%uXXXX`.
 * - Windows device names (`con`, `prn`, `aux`, `nul`, `com0-9`, `lpt0-9`, also with an extension) get their first
 *   letter percent-encoded.
 * - Special tokens start with `%` followed by a character that is not an upper-case hex digit, so they can never be
 *   produced by the rules above: `%empty` (an empty part), `%none` (device segment of an id without `/`), and `%~`
 *   followed by a hash (below).
 * - A segment longer than `MAX_SEGMENT_BYTES` keeps a readable prefix, then `%~` and 32 hex digits (128 bits) of the
 *   SHA-256 of the whole encoded segment. Such a segment is no longer reversible, but stays distinct.
 *
 * Every key decodes back to its replay id (`replayIdFromKey`) except hashed ones. Each path segment, including the
 * extension and the local sink's temporary name around it, stays well under 255 bytes.
 */

/** Longest encoded segment (before the extension); leaves room for `.ndjson.gz` and the temporary-file wrapper. */
export const MAX_SEGMENT_BYTES = 200;
const HASH_HEX = 32;
const HASH_MARK = '%~';
const EMPTY = '%empty';
const NO_DEVICE = '%none';
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/;

function hex2(byte: number): string {
  return '%' + byte.toString(16).toUpperCase().padStart(2, '0');
}

function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) out += hex2(byte);
  return out;
}

/** The encoding of each character (one code point, or one lone surrogate) of a part, in order. */
function encodePieces(part: string): string[] {
  const pieces: string[] = [];
  const last = part.length - 1;
  for (let i = 0; i < part.length; i++) {
    const c = part.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
      pieces.push(part[i]!);
    } else if (c === 0x2d /* - */ || c === 0x5f /* _ */) {
      pieces.push(i === 0 ? hex2(c) : part[i]!);
    } else if (c === 0x2e /* . */) {
      pieces.push(i === 0 || i === last ? hex2(c) : '.');
    } else if (c >= 0x41 && c <= 0x5a) {
      pieces.push('^' + String.fromCharCode(c + 0x20));
    } else if (c >= 0xd800 && c <= 0xdbff && i < last && isLowSurrogate(part.charCodeAt(i + 1))) {
      pieces.push(percentEncode(part.slice(i, i + 2)));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      pieces.push('%u' + c.toString(16).toUpperCase().padStart(4, '0'));
    } else {
      pieces.push(percentEncode(part[i]!));
    }
  }
  if (pieces.length > 0 && WINDOWS_RESERVED.test(pieces.slice(0, 5).join(''))) {
    pieces[0] = hex2(pieces[0]!.charCodeAt(0));
  }
  return pieces;
}

/** The reversible part of the encoding (no length limit). */
function encodeFull(part: string): string {
  return part.length === 0 ? EMPTY : encodePieces(part).join('');
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** A part every rule leaves as it is (lower-case letters, digits, and `-`, `_`, `.` where allowed; not a device name). */
const UNCHANGED = /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9_-])?$/;

/** Encodes one part of a replay id as one path segment (see the module comment). Injective; ASCII only. */
export function encodeSegment(part: string): string {
  if (part.length === 0) return EMPTY;
  // Most ids (UUIDs, numbers) are their own encoding: no piece per character is built for them.
  if (part.length <= MAX_SEGMENT_BYTES && UNCHANGED.test(part) && !WINDOWS_RESERVED.test(part.slice(0, 5))) return part;
  const pieces = encodePieces(part);
  const full = pieces.join('');
  if (full.length <= MAX_SEGMENT_BYTES) return full;
  const keep = MAX_SEGMENT_BYTES - HASH_MARK.length - HASH_HEX;
  let prefix = '';
  for (const piece of pieces) {
    if (prefix.length + piece.length > keep) break;
    prefix += piece;
  }
  const digest = createHash('sha256').update(full, 'latin1').digest('hex').slice(0, HASH_HEX);
  return prefix + HASH_MARK + digest;
}

/**
 * Reverses `encodeSegment`. Returns `undefined` for a hashed (shortened) segment or for text that no encoding
 * produces.
 */
export function decodeSegment(segment: string): string | undefined {
  if (segment === EMPTY) return '';
  let out = '';
  let bytes: number[] = [];
  const flush = (): boolean => {
    if (bytes.length === 0) return true;
    const buf = Buffer.from(bytes);
    const text = buf.toString('utf8');
    bytes = [];
    if (!Buffer.from(text, 'utf8').equals(buf)) return false;
    out += text;
    return true;
  };
  for (let i = 0; i < segment.length; ) {
    const c = segment[i]!;
    if (c === '%') {
      if (segment[i + 1] === 'u') {
        const code = segment.slice(i + 2, i + 6);
        if (!/^[0-9A-F]{4}$/.test(code)) return undefined;
        if (!flush()) return undefined;
        out += String.fromCharCode(parseInt(code, 16));
        i += 6;
        continue;
      }
      const pair = segment.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(pair)) return undefined; // `%~` (hashed) or unknown token
      bytes.push(parseInt(pair, 16));
      i += 3;
      continue;
    }
    if (!flush()) return undefined;
    if (c === '^') {
      const next = segment[i + 1];
      if (next === undefined || !/[a-z]/.test(next)) return undefined;
      out += next.toUpperCase();
      i += 2;
      continue;
    }
    if (!/[a-z0-9._-]/.test(c)) return undefined;
    out += c;
    i += 1;
  }
  if (!flush()) return undefined;
  return encodeFull(out) === segment ? out : undefined;
}

/** File extension for an output: `.json`, `.ndjson`, plus `.gz` with gzip. */
export function extensionFor(output: OutputSpec): string {
  return `.${output.format}` + (output.gzip ? '.gz' : '');
}

/** `<device segment>/<session segment>` without extension: the replay's place in the layout. */
export function replayKeyBase(replayId: string): string {
  const slash = replayId.lastIndexOf('/');
  if (slash === -1) return `${NO_DEVICE}/${encodeSegment(replayId)}`;
  return `${encodeSegment(replayId.slice(0, slash))}/${encodeSegment(replayId.slice(slash + 1))}`;
}

/** Final key of a replay relative to the target, `/`-separated: `<device>/<session>.json[.gz]` or `.ndjson[.gz]`. */
export function replayKey(replayId: string, output: OutputSpec): string {
  return replayKeyBase(replayId) + extensionFor(output);
}

const EXTENSIONS = ['.ndjson.gz', '.json.gz', '.html.gz', '.ndjson', '.json', '.html'];
const OUTPUT_FORMATS: readonly OutputFormat[] = ['json', 'ndjson', 'html'];
/** An encoded segment: never empty, never starting with `.`, `-` or `_` (so never `.`, `..`, `_manifest`, `_staging`). */
const ENCODED_SEGMENT = /^[a-z0-9%^][A-Za-z0-9._%^~-]*$/;

/** Every key a replay's output can have in this layout (each format, with and without gzip). */
export function outputKeysOf(replayId: string): string[] {
  return OUTPUT_FORMATS.flatMap((format) => [false, true].map((gzip) => replayKey(replayId, { format, gzip })));
}

/**
 * Whether `key` has the shape of a replay output key (`<device segment>/<session segment>.<ext>`, as `replayKey`
 * makes them): not the manifest, not a staging object, no `..`, no absolute path, no backslash.
 */
export function isOutputKey(key: string): boolean {
  const ext = EXTENSIONS.find((e) => key.endsWith(e));
  if (ext === undefined) return false;
  const parts = key.slice(0, -ext.length).split('/');
  return parts.length === 2 && parts.every((part) => ENCODED_SEGMENT.test(part));
}

/** Throws `SINK_PATH_ESCAPE` unless `key` is a replay output key (what a sink's `remove` takes). */
export function checkOutputKey(key: string, target: string): void {
  if (!isOutputKey(key)) {
    throw new SinkError(
      'SINK_PATH_ESCAPE',
      `${JSON.stringify(key.slice(0, 300))} is not a replay output key; refusing to remove it`,
      { target, key },
    );
  }
}

/** The replay id a key (or key base) was made from; `undefined` for hashed segments or foreign keys. */
export function replayIdFromKey(key: string): string | undefined {
  const ext = EXTENSIONS.find((e) => key.endsWith(e));
  return replayIdFromKeyBase(ext === undefined ? key : key.slice(0, -ext.length));
}

/** The replay id a key base (`replayKeyBase`, no extension) was made from; `undefined` for hashed or foreign ones. */
export function replayIdFromKeyBase(base: string): string | undefined {
  const parts = base.split('/');
  if (parts.length !== 2) return undefined;
  const session = decodeSegment(parts[1]!);
  // Ids are split at their last `/`, so a session part never holds one (a device part may).
  if (session === undefined || session.includes('/')) return undefined;
  if (parts[0] === NO_DEVICE) return session;
  const device = decodeSegment(parts[0]!);
  if (device === undefined) return undefined;
  return `${device}/${session}`;
}
