// AssemblyScript source of the WebAssembly fast path for version 2 elements (decoders/v2-batch.ts and packed.ts do
// the same in TypeScript). For each packed string element of a scanned chunk: the JSON string is decoded to latin1
// bytes (twice for the usual `JSON.stringify(pack(event))` form), inflated (./inflate), checked to be exactly one
// JSON object with the scanner's state machine (./scanner), and written without the packer's `,"v":"v1"` marker,
// events joined by `,`: a run, as the version 3 path gives.
//
// It decides nothing hard itself: an element it does not take as it is (another shape, any error, anything unusual)
// stops it, and the TypeScript path decodes that element, with the exact error when there is one.

import { consumedBytes, inflatedBytes, zlibInflate } from './inflate';
import { elementKindOf, isSpace } from './json-grammar';
import { ElemKind, Literal, Slot } from './layout';
import {
  COUNT,
  C_ARR,
  DEPTH,
  ELEM_KIND,
  ELEM_NEWLINE,
  ELEM_START,
  IN_ELEM,
  LIT,
  LIT_POS,
  OK,
  S_AFTER,
  S_FIRST,
  ST,
  STACK,
  STR_KEY,
  UNI_LEFT,
  scan,
} from './scanner';
import { trailingTimestamp } from './trailing-timestamp';

// Result slots and the tables of the one-object scan (./layout.ts).
const V2_AT: usize = <usize>Slot.v2At << 2;
const V2_EVENTS: usize = <usize>Slot.v2Events << 2;
const V2_BYTES: usize = <usize>Slot.v2Bytes << 2;
const ONE_START: usize = <usize>Slot.oneStart << 2;
const ONE_END: usize = <usize>Slot.oneEnd << 2;
const ONE_FLAGS: usize = <usize>Slot.oneFlags << 2;
const ONE_STAMP: usize = <usize>Slot.oneStamp << 2;

// Statuses.
const V2_DONE: i32 = 0;
const V2_TYPESCRIPT: i32 = 1; // element V2_AT needs the TypeScript path
const V2_FULL: i32 = 2; // element V2_AT does not fit in the output left

const INFLATE_OK: i32 = 0;
const INFLATE_FULL: i32 = 2;

@inline
function hexValue(c: u32): i32 {
  if (c - 0x30 < 10) return <i32>(c - 0x30);
  const l = (c | 0x20) - 0x61;
  return l < 6 ? <i32>l + 10 : -1;
}

/** Length of the escape `escapeAt` read last. */
let escLen: i32 = 0;

/**
 * The character of the escape whose backslash is at src[i] (inside the literal, which ends at `stop`): its value
 * (at most 0xff) with `escLen` set to its length, or -1 (an invalid escape, or one above U+00FF).
 */
function escapeAt(src: usize, i: i32, stop: i32): i32 {
  if (i + 1 >= stop) return -1;
  const e = <u32>load<u8>(src + <usize>(i + 1));
  escLen = 2;
  if (e == 0x22 || e == 0x5c || e == 0x2f) return <i32>e;
  if (e == 0x6e) return 0x0a;
  if (e == 0x74) return 0x09;
  if (e == 0x72) return 0x0d;
  if (e == 0x62) return 0x08;
  if (e == 0x66) return 0x0c;
  if (e != 0x75 || i + 6 > stop) return -1;
  const a = hexValue(<u32>load<u8>(src + <usize>(i + 2)));
  const b = hexValue(<u32>load<u8>(src + <usize>(i + 3)));
  const d = hexValue(<u32>load<u8>(src + <usize>(i + 4)));
  const f = hexValue(<u32>load<u8>(src + <usize>(i + 5)));
  if ((a | b | d | f) < 0) return -1;
  const cp = (a << 12) | (b << 8) | (d << 4) | f;
  escLen = 6;
  return cp > 0xff ? -1 : cp; // surrogates included: not one byte
}

/**
 * Decodes the JSON string literal src[0, n) (both quotes included) to one byte per character into dst (which may be
 * src: the output never passes the input). `utf8In`: the literal is UTF-8 and only U+0000..U+00FF are taken (mode
 * Utf8ToLatin1 of decodeStringLiteral); else it is one byte per character (mode Latin1ToLatin1). Returns the
 * length, or -1 for anything else (decodeStringLiteral's null). Branch-free per character but for escapes: packed
 * payloads are nearly random bytes, half of them two-byte UTF-8. Inlined, so each caller gets its own loop.
 */
@inline
function literalToLatin1(src: usize, n: i32, dst: usize, utf8In: bool): i32 {
  if (n < 2 || load<u8>(src) != 0x22 || load<u8>(src + <usize>(n - 1)) != 0x22) return -1;
  const stop = n - 1;
  let i = 1;
  let o = 0;
  let bad: u32 = 0;
  while (i < stop) {
    const c = <u32>load<u8>(src + <usize>i);
    if (c == 0x5c) {
      const cp = escapeAt(src, i, stop);
      if (cp < 0) return -1;
      store<u8>(dst + <usize>o, <u8>cp);
      o++;
      i += escLen;
      continue;
    }
    bad |= <u32>(c < 0x20) | <u32>(c == 0x22);
    if (utf8In) {
      // The byte after is readable: at worst the closing quote.
      const d = <u32>load<u8>(src + <usize>(i + 1));
      const lead = c >> 7;
      bad |= lead & (<u32>(c - 0xc2 > 1) | <u32>((d & 0xc0) != 0x80) | <u32>(i + 1 >= stop));
      store<u8>(dst + <usize>o, <u8>select<u32>(((c & 0x1f) << 6) | (d & 0x3f), c, lead != 0));
      i += 1 + <i32>lead;
    } else {
      store<u8>(dst + <usize>o, <u8>c);
      i++;
    }
    o++;
  }
  return bad != 0 ? -1 : o;
}

/** First byte of a plain event JSON text: '{' or whitespace (never the first byte of a zlib stream). */
@inline
function isJsonTextStart(c: u32): bool {
  return elementKindOf(c) == ElemKind.object || isSpace(c);
}

/**
 * The zlib payload of the string element input[start, end) decoded into `stage`: its length, or -1 when the
 * element is not a packed payload this path takes (preparePackedString's shapes 1 and 3 only).
 */
function packedPayload(input: usize, start: i32, end: i32, stage: usize): i32 {
  const outer = literalToLatin1(input + <usize>start, end - start, stage, true);
  if (outer <= 0) return -1;
  const first = <u32>load<u8>(stage);
  if (first == 0x22) {
    const inner = literalToLatin1(stage, outer, stage, false);
    if (inner <= 0 || isJsonTextStart(<u32>load<u8>(stage))) return -1;
    return inner;
  }
  return isJsonTextStart(first) ? -1 : outer;
}

/**
 * Decodes elements [k, count) of the scanned chunk at `input` (tables `starts`, `ends`, `flags`, as `scan` left
 * them) into `out`: events joined by `,`, event j ending at outEnds[j] (i32), its timestamp in outStamps[j] (f64).
 * `stage` holds one element's payload (as long as the longest element). Stops at the first element it does not take
 * (V2_TYPESCRIPT) or that does not fit in `outCap` bytes (V2_FULL: nothing of it written); the slots tell where.
 */
export function v2Decode(
  input: usize,
  k: i32,
  count: i32,
  starts: usize,
  ends: usize,
  flags: usize,
  stage: usize,
  out: usize,
  outCap: i32,
  outEnds: usize,
  outStamps: usize,
): i32 {
  let pos = 0; // next output byte
  let events = 0;
  let status = V2_DONE;
  for (; k < count; k++) {
    const start = load<i32>(starts + (<usize>k << 2));
    const end = load<i32>(ends + (<usize>k << 2));
    if (start < 0 || (load<u8>(flags + <usize>k) & 1) == 0) {
      status = V2_TYPESCRIPT;
      break;
    }
    const payload = packedPayload(input, start, end, stage);
    if (payload < 0) {
      status = V2_TYPESCRIPT;
      break;
    }
    // Room for the event, the `,` after it and the 16 zero bytes the scan reads past it.
    const room = outCap - pos - 17;
    if (room <= 0) {
      status = V2_FULL;
      break;
    }
    const at = out + <usize>pos;
    const inflated = zlibInflate(stage, payload, at, room);
    if (inflated == INFLATE_FULL) {
      status = V2_FULL;
      break;
    }
    if (inflated != INFLATE_OK || consumedBytes != payload) {
      status = V2_TYPESCRIPT;
      break;
    }
    const len = inflatedBytes;
    memory.fill(at + <usize>len, 0, 16);
    // Exactly one JSON object, compact at both ends: the scanner's machine, right after an outer '['.
    store<i32>(ST, S_FIRST);
    store<i32>(DEPTH, 1);
    store<u8>(STACK, C_ARR);
    store<i32>(STR_KEY, 0);
    store<i32>(UNI_LEFT, 0);
    store<i32>(LIT, Literal.trueValue);
    store<i32>(LIT_POS, 0);
    store<i32>(IN_ELEM, 0);
    store<i32>(ELEM_START, -1);
    store<i32>(ELEM_KIND, ElemKind.object);
    store<i32>(ELEM_NEWLINE, 0);
    store<i32>(COUNT, 0);
    if (
      scan(at, len, ONE_START, ONE_END, ONE_FLAGS, ONE_STAMP, 1) != OK ||
      load<i32>(COUNT) != 1 ||
      load<i32>(ST) != S_AFTER ||
      load<i32>(DEPTH) != 1 ||
      load<u8>(ONE_FLAGS) != 0 ||
      load<i32>(ONE_START) != 0 ||
      load<i32>(ONE_END) != len
    ) {
      status = V2_TYPESCRIPT;
      break;
    }
    // The packer's marker: the object ends with `,"v":"v1"}`; '}' replaces its ','.
    if (len <= 11 || load<u64>(at + <usize>(len - 10)) != 0x3176223a2276222c || load<u16>(at + <usize>(len - 2)) != 0x7d22) {
      status = V2_TYPESCRIPT;
      break;
    }
    const eventLen = len - 9;
    store<u8>(at + <usize>(eventLen - 1), 0x7d);
    store<f64>(outStamps + (<usize>events << 3), trailingTimestamp(at, 0, eventLen));
    pos += eventLen;
    store<i32>(outEnds + (<usize>events << 2), pos);
    events++;
    store<u8>(out + <usize>pos, 0x2c);
    pos++;
  }
  store<i32>(V2_AT, k);
  store<i32>(V2_EVENTS, events);
  store<i32>(V2_BYTES, events > 0 ? pos - 1 : 0);
  return status;
}
