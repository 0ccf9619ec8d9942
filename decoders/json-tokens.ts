/**
 * The JSON scanner's token grammar: the one definition of what may follow a backslash in a string, what a `\u`
 * escape's digits are, how a number goes on after its sign, its '.', its exponent mark and sign, and the bytes of
 * the literals. Both loops of the scanner call it: the TypeScript one (decoders/json-scanner.ts) imports it, and
 * scripts/gen-wasm-sources.mjs copies the part between the markers into decoders/wasm/json-tokens.ts for the
 * WebAssembly one (decoders/wasm/scanner.ts; `npm run build:wasm` regenerates it, and a test checks that the
 * committed copy and module are up to date). A change to the token grammar is an edit of this file, then
 * `npm run build:wasm`.
 *
 * Each `…Next` function gives the state that the byte `c` leads to, or `REFUSE` when JSON allows no such byte there:
 * the TypeScript loop then throws the DecodeError of the state it was in, and the module returns its refusal status.
 * The part between the markers is written in the common subset of TypeScript and AssemblyScript (numbers typed
 * `i32`, a byte typed `Byte`, no objects, no static data); the states are ./wasm/layout.ts's const enum.
 */

import { Literal, State } from './wasm/layout.js';

type i32 = number;
type bool = boolean;
/** A byte of the input (in the module: a u32). */
type Byte = number;

// --- shared with the WebAssembly module: begin ---

/** No state: JSON allows no such byte here. */
export const REFUSE: i32 = -1;

export function isDigit(c: Byte): bool {
  return c >= 0x30 && c <= 0x39;
}

export function isHexDigit(c: Byte): bool {
  const lower: Byte = c | 0x20;
  return (c >= 0x30 && c <= 0x39) || (lower >= 0x61 && lower <= 0x66);
}

/** After a backslash in a string: `"` `\` `/` `b` `f` `n` `r` `t` back to the string, `u` to its four hex digits. */
export function escapeNext(c: Byte): i32 {
  if (c == 0x75) return State.uni;
  if (c == 0x22 || c == 0x5c || c == 0x2f || c == 0x62 || c == 0x66 || c == 0x6e || c == 0x72 || c == 0x74) return State.str;
  return REFUSE;
}

/** After a number's '-': '0' alone, or an integer part that starts with 1 to 9. */
export function minusNext(c: Byte): i32 {
  if (c == 0x30) return State.zero;
  if (c >= 0x31 && c <= 0x39) return State.int;
  return REFUSE;
}

/** After a number's '.': at least one digit. */
export function dotNext(c: Byte): i32 {
  return isDigit(c) ? State.frac : REFUSE;
}

/** After a number's 'e' or 'E': a sign or a digit. */
export function exponentNext(c: Byte): i32 {
  if (c == 0x2b || c == 0x2d) return State.expSign;
  return isDigit(c) ? State.expDig : REFUSE;
}

/** After an exponent's sign: at least one digit. */
export function exponentSignNext(c: Byte): i32 {
  return isDigit(c) ? State.expDig : REFUSE;
}

/** The length of literal `lit` (a `Literal`: true, false or null). */
export function literalLength(lit: i32): i32 {
  return lit == Literal.falseValue ? 5 : 4;
}

/** Byte `pos` of literal `lit` ("true" 74 72 75 65, "false" 66 61 6c 73 65, "null" 6e 75 6c 6c). */
export function literalByte(lit: i32, pos: i32): Byte {
  if (lit == Literal.trueValue) return (0x65757274 >> (pos << 3)) & 0xff;
  if (lit == Literal.nullValue) return (0x6c6c756e >> (pos << 3)) & 0xff;
  return pos == 0 ? 0x66 : (0x65736c61 >> ((pos - 1) << 3)) & 0xff;
}

// --- shared with the WebAssembly module: end ---
