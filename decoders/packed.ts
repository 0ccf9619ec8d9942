/**
 * Version 2 elements: turns one packed array element into the exact JSON bytes of its event.
 *
 * Shapes accepted (all seen in real version 2 files):
 *  1. a JSON string whose content is itself a JSON string literal wrapping the latin1 zlib characters
 *     (the browser SDK wrote `JSON.stringify(pack(event))`);
 *  2. a JSON string holding the plain event JSON text (newer SDKs, no packing);
 *  3. a JSON string whose characters are the zlib bytes (one char = one byte, latin1);
 *  4. an event object (handled by the caller: its bytes are the event).
 *
 * The packers (`@rrweb/packer`, `@amplitude/rrweb-packer`) compress `JSON.stringify({...event, v: "v1"})`; the
 * marker is removed so that the result equals the recorded event. For the usual payload the inflated text is the
 * event's JSON with `,"v":"v1"` before its final `}`: that suffix is cut without parsing. Otherwise (the event had its
 * own `v` key, whitespace, an empty event) the payload is parsed, the marker checked and removed, and re-serialised.
 */

import { isUtf8 } from 'node:buffer';
import { inflateSync } from 'node:zlib';
import { compactJson } from './compact.js';
import { DecodeError, type DecodeErrorCode } from './errors.js';
import { elementKindOf, isSpace } from './json-grammar.js';
import { scanSingleObject } from './json-scanner.js';
import { eventTooLarge, replayTooLarge, type DecodeLimits } from './limits.js';
import { decodeStringLiteral, StringMode } from './json-string.js';
import { ElemKind } from './wasm/layout.js';

/** The marker the packers add as the event's `v` property. */
const PACKER_MARK = 'v1';

const MARK_SUFFIX = Buffer.from(`,"v":${JSON.stringify(PACKER_MARK)}}`);
const SUFFIX_LEN = MARK_SUFFIX.length;
/** Bytes the packer's marker adds to an event (`,"v":"v1"`): a payload inflates to the event plus these. */
export const MARK_BYTES = SUFFIX_LEN - 1;
const ABOVE_LATIN1 = /[^\x00-\xff]/;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const MIN_INFLATE_CHUNK = 1024;
const MAX_INFLATE_CHUNK = 4 << 20;

export interface ElementContext {
  file?: string | undefined;
  index: number;
  offset: number;
}

/** A version 2 string element after unwrapping: either the event's bytes, or a zlib payload still to inflate. */
export type PreparedElement = { event: Buffer; packed?: undefined } | { event?: undefined; packed: Buffer };

/** Unwraps a version 2 string element (shapes 1–3) into event bytes (shape 2) or the zlib payload (shapes 1, 3). */
export function preparePackedString(bytes: Buffer, ctx: ElementContext): PreparedElement {
  // Fast path: unescape at the byte level, no JS strings. Anything unusual goes to the JSON.parse path below.
  const outer = decodeStringLiteral(bytes, StringMode.Utf8ToLatin1);
  if (outer !== null && outer.length > 0) {
    const first = outer[0]!;
    if (first === 0x22) {
      const inner = decodeStringLiteral(outer, StringMode.Latin1ToLatin1);
      if (inner !== null && inner.length > 0 && !isJsonTextStart(inner[0]!)) return { packed: inner };
    } else if (isJsonTextStart(first)) {
      const text = decodeStringLiteral(bytes, StringMode.Utf8ToUtf8);
      if (text !== null) {
        const el = scanInner(text, ctx, 'event text');
        return { event: objectElementBytes(el.bytes, el.hasNewline) };
      }
    } else return { packed: outer };
  } else if (outer === null) {
    // Characters above U+00FF: plain event text with non-latin1 text (shape 2), or something for the slow path.
    const text = decodeStringLiteral(bytes, StringMode.Utf8ToUtf8);
    if (text !== null && text.length > 0 && isJsonTextStart(text[0]!)) {
      const el = scanInner(text, ctx, 'event text');
      return { event: objectElementBytes(el.bytes, el.hasNewline) };
    }
  }
  return prepareSlow(bytes, ctx);
}

/** First byte of a plain event JSON text: '{' or whitespace (never the first byte of a zlib stream). */
function isJsonTextStart(c: number): boolean {
  return elementKindOf(c) === ElemKind.object || isSpace(c);
}

function prepareSlow(bytes: Buffer, ctx: ElementContext): PreparedElement {
  let s = JSON.parse(bytes.toString('utf8')) as string;
  if (s.charCodeAt(0) === 0x22) {
    // Shape 1: the string holds the text of a JSON string literal.
    let inner: unknown;
    try {
      inner = JSON.parse(s);
    } catch (cause) {
      throw fail('BAD_PACKED', 'the element string starts with a quote but is not a JSON string literal', ctx, cause);
    }
    if (typeof inner !== 'string') throw fail('BAD_PACKED', 'the element string does not wrap a string', ctx);
    s = inner;
  }
  if (startsWithBrace(s)) return { event: plainEventText(s, ctx) };
  return { packed: latin1Payload(s, ctx) };
}

/** Bytes of an event object element (shape 4, and every version 3 element). `bytes` is validated JSON. */
export function objectElementBytes(bytes: Buffer, hasNewline: boolean): Buffer {
  return hasNewline ? compactJson(bytes) : bytes;
}

function startsWithBrace(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x7b) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return false;
}

/** Shape 2: the string is the event's JSON text. */
function plainEventText(s: string, ctx: ElementContext): Buffer {
  if (!LONE_SURROGATE.test(s)) {
    const el = scanInner(Buffer.from(s, 'utf8'), ctx, 'event text');
    return objectElementBytes(el.bytes, el.hasNewline);
  }
  // Raw lone surrogates cannot be written as UTF-8; JSON.stringify escapes them exactly.
  return serialise(parseEventObject(s, ctx), ctx);
}

/** Shape 3 (and 1 once unwrapped): latin1 characters of a zlib stream. */
function latin1Payload(s: string, ctx: ElementContext): Buffer {
  if (ABOVE_LATIN1.test(s)) {
    throw fail(
      'BAD_PACKED',
      'the element string holds characters above U+00FF, so it is not a latin1 zlib payload',
      ctx,
    );
  }
  return Buffer.from(s, 'latin1');
}

/** Output buffer size for inflating a payload: about 4× its length, clamped to 1 KiB–4 MiB. */
function inflateChunkSize(packedLength: number): number {
  return Math.min(MAX_INFLATE_CHUNK, Math.max(MIN_INFLATE_CHUNK, packedLength * 4));
}

/**
 * The most bytes a payload may inflate to now: an event at the size limit plus the packer's marker, within what the
 * replay has left. The WebAssembly path bounds its output by the same number.
 */
export function payloadBound(limits: DecodeLimits): number {
  return Math.min(limits.maxEventBytes + MARK_BYTES, limits.budget.left);
}

/** The error for a payload that inflates to more than `payloadBound`: whichever limit made the bound. */
function payloadTooLarge(limits: DecodeLimits, ctx: ElementContext): DecodeError {
  const where = { file: ctx.file, index: ctx.index, offset: ctx.offset };
  return limits.budget.left < limits.maxEventBytes + MARK_BYTES
    ? replayTooLarge(limits.budget.limit, where)
    : eventTooLarge(limits.maxEventBytes, where);
}

/**
 * Inflates one zlib payload, never past `payloadBound` (zlib stops there: `EVENT_TOO_LARGE` or `REPLAY_TOO_LARGE`),
 * and takes its bytes from the replay's budget; a corrupt one, or one followed by stray bytes, is `BAD_ZLIB`.
 */
export function inflatePayload(packed: Buffer, ctx: ElementContext, limits: DecodeLimits): Buffer {
  const bound = payloadBound(limits);
  let res: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    // maxOutputLength is at least 1 (node's range); a bound of 0 is enforced below.
    res = inflateSync(packed, {
      chunkSize: inflateChunkSize(packed.length),
      info: true,
      maxOutputLength: Math.max(1, bound),
    }) as unknown as typeof res;
  } catch (cause) {
    if ((cause as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw payloadTooLarge(limits, ctx);
    throw badZlib(cause instanceof Error ? cause.message : String(cause), ctx, cause);
  }
  if (res.buffer.length > bound) throw payloadTooLarge(limits, ctx);
  if (res.engine.bytesWritten !== packed.length)
    throw badZlib(`${packed.length - res.engine.bytesWritten} stray bytes after the zlib stream`, ctx);
  limits.budget.take(res.buffer.length);
  return res.buffer;
}

/** Throws `EVENT_TOO_LARGE` when a decoded event is over the limit (re-serialising can lengthen one, e.g. `1e9`). */
export function checkEventSize(event: Buffer, ctx: ElementContext, limits: DecodeLimits): Buffer {
  if (event.length > limits.maxEventBytes) {
    throw eventTooLarge(limits.maxEventBytes, {
      file: ctx.file,
      index: ctx.index,
      offset: ctx.offset,
    });
  }
  return event;
}

/** The `BAD_ZLIB` error for a payload that did not inflate (`detail` as zlib reported it). */
function badZlib(detail: string, ctx: ElementContext, cause?: unknown): DecodeError {
  return fail('BAD_ZLIB', `the packed payload does not inflate: ${detail}`, ctx, cause);
}

/** The event bytes of an inflated payload: validated, packer marker removed. May modify `inflated`. */
export function eventFromInflated(inflated: Buffer, ctx: ElementContext): Buffer {
  const el = scanInner(inflated, ctx, 'inflated payload');
  const b = el.bytes;
  const len = b.length;
  if (!el.hasNewline && len > SUFFIX_LEN + 1 && b.compare(MARK_SUFFIX, 0, SUFFIX_LEN, len - SUFFIX_LEN, len) === 0) {
    b[len - SUFFIX_LEN] = 0x7d; // '}' replaces the ',' that began the marker
    return b.subarray(0, len - SUFFIX_LEN + 1);
  }
  const event = parseEventObject(inflated.toString('utf8'), ctx);
  if (!Object.hasOwn(event, 'v')) {
    throw fail('UNKNOWN_PACKER', `the packed event has no packer marker "v" (expected "${PACKER_MARK}")`, ctx);
  }
  if (event['v'] !== PACKER_MARK) {
    throw fail(
      'UNKNOWN_PACKER',
      `the event was packed with packer marker ${JSON.stringify(event['v'])}, only "${PACKER_MARK}" is known`,
      ctx,
    );
  }
  delete event['v'];
  return serialise(event, ctx);
}

function serialise(event: Record<string, unknown>, ctx: ElementContext): Buffer {
  try {
    return Buffer.from(JSON.stringify(event), 'utf8');
  } catch (cause) {
    // Only nesting deeper than the call stack gets here (rrweb could not have packed such an event).
    throw fail('BAD_INNER_JSON', 'the event cannot be re-serialised (nested too deeply)', ctx, cause);
  }
}

function scanInner(buf: Buffer, ctx: ElementContext, what: string) {
  if (!isUtf8(buf)) throw fail('BAD_INNER_JSON', `the ${what} is not valid UTF-8`, ctx);
  try {
    return scanSingleObject(buf);
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw fail('BAD_INNER_JSON', `the ${what} is not one JSON event object: ${detail}`, ctx, cause);
  }
}

function parseEventObject(text: string, ctx: ElementContext): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw fail('BAD_INNER_JSON', 'the event text is not JSON', ctx, cause);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw fail('BAD_INNER_JSON', 'the event text is not a JSON object', ctx);
  }
  return value as Record<string, unknown>;
}

function fail(code: DecodeErrorCode, detail: string, ctx: ElementContext, cause?: unknown): DecodeError {
  return new DecodeError(code, detail, { file: ctx.file, index: ctx.index, offset: ctx.offset, cause });
}
