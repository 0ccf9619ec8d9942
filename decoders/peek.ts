/**
 * Cheap look at an event's top-level `type` and `timestamp` without parsing it.
 *
 * rrweb events are serialised as `{"type":N,...,"timestamp":N}`: the prefix and the suffix are checked first. The
 * prefix is trusted only when no other `"type"` key text follows (a later duplicate key would win in JSON.parse);
 * the suffix is the object's last member, so it always wins. Anything else falls back to a top-level scan that
 * skips nested values and strings, and, for input that is not well-formed, to `JSON.parse`. The answer always
 * equals what `JSON.parse` would give (a field is reported only when its value is a number).
 */

import { trailingTimestamp } from './trailing-timestamp.js';

export interface PeekedFields {
  type?: number;
  timestamp?: number;
}

const TYPE_PREFIX = Buffer.from('{"type":');
const TYPE_KEY = Buffer.from('"type"');

export function peekEventFields(json: Buffer): PeekedFields {
  const type = fastType(json);
  const timestamp = type === undefined ? undefined : fastTimestamp(json);
  if (type !== undefined && timestamp !== undefined) return { type, timestamp };
  return scanTopLevel(json) ?? parseFallback(json);
}

/**
 * Only the top-level numeric `timestamp`, as `JSON.parse` would give it. rrweb's usual `,"timestamp":N}` suffix is the
 * object's last member (a nested member would need its own closing brace before the final `}`), so it always wins
 * and is read in constant time; anything else goes through `peekEventFields`.
 */
export function peekEventTimestamp(json: Buffer): number | undefined {
  return fastTimestamp(json) ?? peekEventFields(json).timestamp;
}

function isNumberByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/** The JSON number in json[start, end), as JSON.parse reads it (digits-only integers without building a string). */
function readNumber(json: Buffer, start: number, end: number): number | undefined {
  if (end <= start) return undefined;
  if (end - start <= 15) {
    let v = 0;
    let k = start;
    for (; k < end; k++) {
      const d = json[k]! - 0x30;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    // Leading zeros are not JSON ("01"), so let Number() and the caller's validation see those.
    if (k === end && (json[start] !== 0x30 || end - start === 1)) return v;
  }
  const v = Number(json.toString('latin1', start, end));
  return Number.isNaN(v) ? undefined : v;
}

function startsWith(json: Buffer, bytes: Buffer, at: number): boolean {
  if (at < 0 || at + bytes.length > json.length) return false;
  for (let k = 0; k < bytes.length; k++) if (json[at + k] !== bytes[k]) return false;
  return true;
}

function fastType(json: Buffer): number | undefined {
  if (json.length < TYPE_PREFIX.length + 2 || !startsWith(json, TYPE_PREFIX, 0)) return undefined;
  let p = TYPE_PREFIX.length;
  while (p < json.length && isNumberByte(json[p]!)) p++;
  const next = json[p];
  if (next !== 0x2c && next !== 0x7d) return undefined;
  // A later top-level "type" member would win in JSON.parse. Such a member is preceded by ',' (whitespace aside);
  // "type" text elsewhere is preceded by '{' (first key of a nested object), ':' or '[' (a string value) or '\\'
  // (inside a string), so only occurrences after a ',' send the event to the full scan.
  let q = p;
  while ((q = json.indexOf(TYPE_KEY, q)) !== -1) {
    let b = q - 1;
    while (isWs(json[b])) b--;
    if (json[b] === 0x2c) return undefined;
    q += TYPE_KEY.length;
  }
  return readNumber(json, TYPE_PREFIX.length, p);
}

function fastTimestamp(json: Buffer): number | undefined {
  return fastTimestampIn(json, 0, json.length);
}

/** `fastTimestamp` of the event in json[start, end): the trailing-timestamp rule (./trailing-timestamp.ts). */
function fastTimestampIn(json: Buffer, start: number, end: number): number | undefined {
  const t = trailingTimestamp(json, start, end);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * `peekEventTimestamp` of the event whose bytes are `bytes[start, end)` (for events held in a run), without a
 * Buffer for it in the usual case.
 */
export function peekEventTimestampIn(bytes: Buffer, start: number, end: number): number | undefined {
  return fastTimestampIn(bytes, start, end) ?? peekEventFields(bytes.subarray(start, end)).timestamp;
}

function isWs(c: number | undefined): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** End (exclusive) of the string starting at `i` (a quote), or -1. */
function stringEnd(json: Buffer, i: number): number {
  const n = json.length;
  let q = i + 1;
  while (q < n) {
    const c = json[q]!;
    if (c === 0x22) return q + 1;
    q += c === 0x5c ? 2 : 1;
  }
  return -1;
}

/** End (exclusive) of the value starting at `i`, or -1. */
function valueEnd(json: Buffer, i: number): number {
  const c = json[i];
  if (c === 0x22) return stringEnd(json, i);
  if (c === 0x7b || c === 0x5b) {
    const n = json.length;
    let depth = 0;
    let p = i;
    while (p < n) {
      const b = json[p]!;
      if (b === 0x22) {
        p++;
        while (p < n) {
          const d = json[p]!;
          if (d === 0x22) break;
          p += d === 0x5c ? 2 : 1;
        }
        p++;
        continue;
      }
      if (b === 0x7b || b === 0x5b) depth++;
      else if (b === 0x7d || b === 0x5d) {
        if (--depth === 0) return p + 1;
      }
      p++;
    }
    return -1;
  }
  let p = i;
  while (p < json.length) {
    const b = json[p]!;
    if (b === 0x2c || b === 0x7d || b === 0x5d || isWs(b)) break;
    p++;
  }
  return p > i ? p : -1;
}

function scanTopLevel(json: Buffer): PeekedFields | undefined {
  const n = json.length;
  let i = 0;
  while (isWs(json[i])) i++;
  if (json[i] !== 0x7b) return undefined;
  i++;
  const out: PeekedFields = {};
  for (;;) {
    while (isWs(json[i])) i++;
    if (json[i] === 0x7d) break;
    if (json[i] !== 0x22) return undefined;
    const keyEnd = stringEnd(json, i);
    if (keyEnd === -1) return undefined;
    let key = json.toString('latin1', i + 1, keyEnd - 1);
    if (key.includes('\\')) {
      try {
        key = JSON.parse(json.toString('utf8', i, keyEnd)) as string;
      } catch {
        return undefined;
      }
    }
    i = keyEnd;
    while (isWs(json[i])) i++;
    if (json[i] !== 0x3a) return undefined;
    i++;
    while (isWs(json[i])) i++;
    const end = valueEnd(json, i);
    if (end === -1) return undefined;
    if (key === 'type' || key === 'timestamp') {
      const field: keyof PeekedFields = key;
      const c = json[i]!;
      const v = (c >= 0x30 && c <= 0x39) || c === 0x2d ? readNumber(json, i, end) : undefined;
      if (v === undefined) delete out[field];
      else out[field] = v;
    }
    i = end;
    while (isWs(json[i])) i++;
    if (json[i] === 0x2c) {
      i++;
      continue;
    }
    if (json[i] === 0x7d) break;
    return undefined;
  }
  i++;
  while (i < n && isWs(json[i])) i++;
  return i === n ? out : undefined;
}

function parseFallback(json: Buffer): PeekedFields {
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8'));
  } catch {
    return {};
  }
  const out: PeekedFields = {};
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { type, timestamp } = value as { type?: unknown; timestamp?: unknown };
    if (typeof type === 'number') out.type = type;
    if (typeof timestamp === 'number') out.timestamp = timestamp;
  }
  return out;
}
