/**
 * The trailing-timestamp rule: the one definition of how an event's timestamp is read from its last member without
 * parsing it. The TypeScript side (decoders/peek.ts, hence the replay checks) reads it here; the WebAssembly module
 * reads it with the same code while it scans: scripts/gen-wasm-sources.mjs copies the part between the markers into
 * decoders/wasm/trailing-timestamp.ts (`npm run build:wasm` regenerates it, and a test checks that the committed copy
 * and module are up to date). A change to the rule is an edit of this file, then `npm run build:wasm`.
 *
 * The part between the markers is written in the common subset of TypeScript and AssemblyScript: numbers typed `i32`
 * / `f64`, no objects, and no constants that would be static data in the module (its memory layout has no room for
 * any). It reads the bytes through four primitives that know no rule: `byteAt`, `word32At`, `digitsBefore` and
 * `digitsValue`. This file defines them for TypeScript; decoders/wasm/bytes.ts defines them for the module, with
 * 16-byte vector loads.
 */

type i32 = number;
type f64 = number;
/** The bytes an event lies in (in the module: the address of the chunk). */
type Bytes = Uint8Array;

function byteAt(bytes: Bytes, p: i32): i32 {
  return bytes[p]!;
}

/** The little-endian 32-bit word at p (as an i32). */
function word32At(bytes: Bytes, p: i32): i32 {
  return bytes[p]! | (bytes[p + 1]! << 8) | (bytes[p + 2]! << 16) | (bytes[p + 3]! << 24);
}

/** How many of the (at most 16) bytes right before `at` are decimal digits, counted back from at - 1. */
function digitsBefore(bytes: Bytes, at: i32): i32 {
  const stop = at > 16 ? at - 16 : 0;
  let p = at;
  while (p > stop) {
    const c = bytes[p - 1]!;
    if (c < 0x30 || c > 0x39) break;
    p--;
  }
  return at - p;
}

/** The value of the `n` (1 to 15) decimal digits right before `at`. */
function digitsValue(bytes: Bytes, at: i32, n: i32): f64 {
  // The last eight digits and those before them, each part a small integer (two short chains, no float ones).
  const split = n > 8 ? at - 8 : at - n;
  let high = 0;
  for (let q = at - n; q < split; q++) high = high * 10 + (bytes[q]! - 0x30);
  let low = 0;
  for (let q = split; q < at; q++) low = low * 10 + (bytes[q]! - 0x30);
  return high * 100000000 + low;
}

// --- shared with the WebAssembly module: begin ---

/**
 * The value of the object event bytes[from, end) when it ends with rrweb's usual `,"timestamp":<digits>}` (or
 * `{"timestamp":<digits>}`): 1 to 15 digits, no leading zero, so that the value is an exact integer. NaN for any other
 * ending (and for from < 0: an element whose start is not at hand), and then the reader looks at the event itself
 * (decoders/peek.ts). The last member wins in JSON.parse, so a reading always equals what JSON.parse gives.
 */
export function trailingTimestamp(bytes: Bytes, from: i32, end: i32): f64 {
  const last: i32 = end - 1;
  if (from < 0 || last <= from || byteAt(bytes, last) != 0x7d) return NaN;
  // The digits right before the brace, inside the event.
  let digits: i32 = digitsBefore(bytes, last);
  if (digits > last - 1 - from) digits = last - 1 - from;
  const p: i32 = last - 1 - digits; // the byte before them
  if (digits == 0 || digits > 15 || (digits > 1 && byteAt(bytes, p + 1) == 0x30)) return NaN;
  // The key `"timestamp":` ends at p ('"tim' 'esta' 'mp":' as little-endian words), right after a ',' or the '{'.
  const key: i32 = p - 11;
  if (key <= from) return NaN;
  if (
    word32At(bytes, key) != 0x6d697422 ||
    word32At(bytes, key + 4) != 0x61747365 ||
    word32At(bytes, key + 8) != 0x3a22706d
  ) {
    return NaN;
  }
  const before: i32 = byteAt(bytes, key - 1);
  if (before != 0x2c && before != 0x7b) return NaN;
  return digitsValue(bytes, last, digits);
}

// --- shared with the WebAssembly module: end ---
