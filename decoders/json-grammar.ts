/**
 * The JSON scanner's grammar, in one place: for each state of the scanner, which byte may come next and which state it
 * leads to. The TypeScript loop (decoders/json-scanner.ts) takes every decision from it: it looks the answers up in
 * one table computed from these functions when it loads. scripts/gen-wasm-sources.mjs copies the part between the
 * markers into decoders/wasm/json-grammar.ts for the WebAssembly module (`npm run build:wasm` regenerates it, and a
 * test checks that the committed copy and module are up to date): the module calls the token rules (escapes, number
 * steps, literals) and the element-kind test, and takes its structural steps through predicates that
 * scripts/gen-wasm-steps.mjs computes from these functions on every byte value (decoders/wasm/json-steps.ts): a change
 * here is one edit, which both loops follow.
 *
 * Each `…Next` function gives the state that the byte `c` leads to, or one of the answers below that are not states:
 * `REFUSE` when JSON allows no such byte there (the TypeScript loop then throws the DecodeError of the state it was
 * in, and the module returns its refusal status), `STAY` for whitespace between tokens (the state stays) and `CLOSE`
 * for the bracket that closes the innermost container (the state after it is `State.after`, or `State.end` after the
 * outer array). What the loops do besides — the container stack, where elements start and end, line breaks — is
 * bookkeeping, not grammar. The TypeScript loop tests `isPlain` 4 bytes at a time in strings (the differential tests
 * compare both loops on every byte value in every state).
 *
 * The part between the markers is written in the common subset of TypeScript and AssemblyScript (numbers typed `i32`,
 * a byte typed `Byte`, no objects, no static data); the states are ./wasm/layout.ts's const enums.
 */

import { Container, ElemKind, Literal, State } from './wasm/layout.js';

type i32 = number;
type bool = boolean;
/** A byte of the input (in the module: a u32). */
type Byte = number;

// --- shared with the WebAssembly module: begin ---

/** No state: JSON allows no such byte here. */
export const REFUSE: i32 = -1;
/** Whitespace between tokens: the state stays. */
export const STAY: i32 = -2;
/** The innermost container closes: then `State.after`, or `State.end` when it was the outer array. */
export const CLOSE: i32 = -3;

export function isDigit(c: Byte): bool {
  return c >= 0x30 && c <= 0x39;
}

export function isHexDigit(c: Byte): bool {
  const lower: Byte = c | 0x20;
  return (c >= 0x30 && c <= 0x39) || (lower >= 0x61 && lower <= 0x66);
}

/** Whitespace between tokens: space, tab, line feed, carriage return. */
export function isSpace(c: Byte): bool {
  return c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d;
}

/** A line break (an element that holds one outside its strings is compacted before it is written as a line). */
export function isLineBreak(c: Byte): bool {
  return c == 0x0a || c == 0x0d;
}

// The structural bytes, each named once; the state functions below are made of them, and the module's member lane
// tests them directly.

/** '"': begins and ends a string (a key is a string). */
export function isQuote(c: Byte): bool {
  return c == 0x22;
}

/** ':' after a key. */
export function isColon(c: Byte): bool {
  return c == 0x3a;
}

/** ',' between members or values. */
export function isComma(c: Byte): bool {
  return c == 0x2c;
}

/** The container (a `Container`) that `c` opens: '{' an object, '[' an array; 0 for any other byte. */
export function containerOpenedBy(c: Byte): i32 {
  if (c == 0x7b) return Container.object;
  return c == 0x5b ? Container.array : 0;
}

/** The container (a `Container`) that `c` closes: '}' an object, ']' an array; 0 for any other byte. */
export function containerClosedBy(c: Byte): i32 {
  if (c == 0x7d) return Container.object;
  return c == 0x5d ? Container.array : 0;
}

/** The first state of a number that `c` begins ('-', '0', or 1 to 9), or `REFUSE`. */
export function numberStart(c: Byte): i32 {
  if (c >= 0x31 && c <= 0x39) return State.int;
  if (c == 0x30) return State.zero;
  return c == 0x2d ? State.minus : REFUSE;
}

/** The literal (a `Literal`) that `c` begins ('t', 'f', 'n'), or `REFUSE`. */
export function literalStart(c: Byte): i32 {
  if (c == 0x74) return Literal.trueValue;
  if (c == 0x66) return Literal.falseValue;
  return c == 0x6e ? Literal.nullValue : REFUSE;
}

/** Before the outer array: whitespace, then its '['. */
export function startNext(c: Byte): i32 {
  if (containerOpenedBy(c) == Container.array) return State.first;
  return isSpace(c) ? STAY : REFUSE;
}

/** After the outer array: whitespace only. */
export function endNext(c: Byte): i32 {
  return isSpace(c) ? STAY : REFUSE;
}

/**
 * Where a value is expected (after '[', after ',' in an array, after ':' in an object; `first`: right after '[', where
 * ']' closes the empty array): the state of the value that `c` begins — `State.objFirst` for an object, `State.first`
 * for an array, a string, a number's first state, or `State.lit` (the literal is `literalStart(c)`).
 */
export function valueNext(c: Byte, first: bool): i32 {
  if (isQuote(c)) return State.str;
  const opened = containerOpenedBy(c);
  if (opened == Container.object) return State.objFirst;
  if (opened == Container.array) return State.first;
  const number = numberStart(c);
  if (number != REFUSE) return number;
  if (literalStart(c) != REFUSE) return State.lit;
  if (first && containerClosedBy(c) == Container.array) return CLOSE;
  return isSpace(c) ? STAY : REFUSE;
}

/** The kind of an element of the outer array that begins with `c`: an object (an event) or a string (a version 2
 * packed event); `REFUSE` for any other value. */
export function elementKindOf(c: Byte): i32 {
  if (containerOpenedBy(c) == Container.object) return ElemKind.object;
  return isQuote(c) ? ElemKind.string : REFUSE;
}

/** Where an object's key is expected (`first`: right after '{', where '}' closes the empty object). */
export function keyNext(c: Byte, first: bool): i32 {
  if (isQuote(c)) return State.str;
  if (first && containerClosedBy(c) == Container.object) return CLOSE;
  return isSpace(c) ? STAY : REFUSE;
}

/** After a key: its ':'. */
export function colonNext(c: Byte): i32 {
  if (isColon(c)) return State.value;
  return isSpace(c) ? STAY : REFUSE;
}

/** After a value inside the container `top` (a `Container`): ',' and the next member or value, or its closer. */
export function afterNext(c: Byte, top: i32): i32 {
  if (isComma(c)) return top == Container.object ? State.key : State.value;
  const closed = containerClosedBy(c);
  if (closed != 0) return closed == top ? CLOSE : REFUSE;
  return isSpace(c) ? STAY : REFUSE;
}

/** A byte that belongs to the string it is in: anything but '"', '\' and the control characters. */
export function isPlain(c: Byte): bool {
  return !isQuote(c) && c != 0x5c && c >= 0x20;
}

/** In a string (`key`: an object's key): its closing '"' (a key then wants its ':'), a backslash, or a plain byte. */
export function stringNext(c: Byte, key: bool): i32 {
  if (isQuote(c)) return key ? State.colon : State.after;
  if (c == 0x5c) return State.esc;
  return isPlain(c) ? State.str : REFUSE;
}

/** After a backslash in a string: `"` `\` `/` `b` `f` `n` `r` `t` back to the string, `u` to its four hex digits. */
export function escapeNext(c: Byte): i32 {
  if (c == 0x75) return State.uni;
  if (c == 0x22 || c == 0x5c || c == 0x2f || c == 0x62 || c == 0x66 || c == 0x6e || c == 0x72 || c == 0x74)
    return State.str;
  return REFUSE;
}

/** After a number's '-': '0' alone, or an integer part that starts with 1 to 9. */
export function minusNext(c: Byte): i32 {
  if (c == 0x30) return State.zero;
  if (c >= 0x31 && c <= 0x39) return State.int;
  return REFUSE;
}

/**
 * In a number, after its leading '0' (`st` `State.zero`) or a digit of its integer part, fraction or exponent
 * (`State.int`, `State.frac`, `State.expDig`): `STAY` for one more digit, '.' after the integer part, 'e' or 'E'
 * before the exponent; otherwise `State.after`: the number ended before `c`, which is read again in that state.
 */
export function numberNext(c: Byte, st: i32): i32 {
  if (isDigit(c)) return st == State.zero ? State.after : STAY;
  if (c == 0x2e) return st == State.zero || st == State.int ? State.dot : State.after;
  if (c == 0x65 || c == 0x45) return st == State.expDig ? State.after : State.exp;
  return State.after;
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

/** The length of literal `lit`. */
export function literalLength(lit: i32): i32 {
  return lit == Literal.falseValue ? 5 : 4;
}

/** The first four bytes of literal `lit`, as a little-endian word ("true", "fals", "null"). */
export function literalWord(lit: i32): i32 {
  if (lit == Literal.trueValue) return 0x65757274;
  return lit == Literal.nullValue ? 0x6c6c756e : 0x736c6166;
}

/** Byte `pos` of literal `lit` ("false" ends with 'e'). */
export function literalByte(lit: i32, pos: i32): Byte {
  return pos < 4 ? (literalWord(lit) >> (pos << 3)) & 0xff : 0x65;
}

// --- shared with the WebAssembly module: end ---
