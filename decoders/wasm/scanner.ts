// AssemblyScript source of the WebAssembly fast path of `ArrayElementScanner` (decoders/json-scanner.ts).
//
// It is the same state machine, state for state, so that the TypeScript scanner can hand its state over before a
// chunk and take it back after: the states, the container stack and the element bookkeeping mean exactly what they
// mean there. What differs is speed: no bounds checks, and string contents are skipped 16 bytes at a time (SIMD).
// The grammar is not written here: every decision calls ./json-grammar.ts, which is generated from
// decoders/json-grammar.ts, the file the TypeScript loop calls too. What is here is bookkeeping and speed: the
// string's plain bytes 16 at a time (`plainEnd`, the vector form of the grammar's `isPlain`) and the members of
// objects run through without going back to the state switch.
//
// It never reports an error itself. On anything it does not accept it returns a non-zero status without touching
// the caller's state, and the TypeScript scanner scans the same chunk again from the same state: it throws the
// exact DecodeError (or, for a nesting deeper than the stack area here, simply finishes the chunk).
//
// Built by `npm run build:wasm` (scripts/build-wasm.mjs) into decoders/wasm-module.ts; a test checks that the
// committed module is the build of this file.

import { Area, Container, ElemKind, Slot, State } from './layout';
import {
  afterNext,
  CLOSE,
  colonNext,
  dotNext,
  elementKindOf,
  endNext,
  escapeNext,
  exponentNext,
  exponentSignNext,
  isDigit,
  isHexDigit,
  isLineBreak,
  keyNext,
  literalByte,
  literalLength,
  literalOf,
  literalWord,
  minusNext,
  numberNext,
  REFUSE,
  startNext,
  STAY,
  stringNext,
  valueNext,
} from './json-grammar';
import { trailingTimestamp } from './trailing-timestamp';

// The state slots' byte addresses and the stack area (./layout.ts).
export const ST: usize = <usize>Slot.st << 2;
export const DEPTH: usize = <usize>Slot.depth << 2;
export const STR_KEY: usize = <usize>Slot.strKey << 2;
export const UNI_LEFT: usize = <usize>Slot.uniLeft << 2;
export const LIT: usize = <usize>Slot.lit << 2;
export const LIT_POS: usize = <usize>Slot.litPos << 2;
export const IN_ELEM: usize = <usize>Slot.inElem << 2;
export const ELEM_START: usize = <usize>Slot.elemStart << 2;
export const ELEM_KIND: usize = <usize>Slot.elemKind << 2;
export const ELEM_NEWLINE: usize = <usize>Slot.elemNewline << 2;
export const COUNT: usize = <usize>Slot.count << 2;
export const STACK: usize = <usize>Area.stack;
const STACK_END: usize = <usize>Area.stackEnd;
const MAX_DEPTH: i32 = <i32>(STACK_END - STACK);

// Statuses.
export const OK: i32 = 0;
const REFUSED: i32 = 1; // not valid JSON, or not an array of objects / strings
const TOO_DEEP: i32 = 2;

// States (./layout.ts: the same in json-scanner.ts).
const S_START = State.start;
export const S_FIRST = State.first;
const S_VALUE = State.value;
const S_OBJ_FIRST = State.objFirst;
const S_KEY = State.key;
const S_COLON = State.colon;
export const S_AFTER = State.after;
const S_STR = State.str;
const S_ESC = State.esc;
const S_UNI = State.uni;
const S_MINUS = State.minus;
const S_ZERO = State.zero;
const S_INT = State.int;
const S_DOT = State.dot;
const S_FRAC = State.frac;
const S_EXP = State.exp;
const S_EXP_SIGN = State.expSign;
const S_EXP_DIG = State.expDig;
const S_LIT = State.lit;
const S_END = State.end;

const C_OBJ: u8 = <u8>Container.object;
export const C_ARR: u8 = <u8>Container.array;

// Where the member lane of S_STR is.
const F_KEY = 0; // inside a key
const F_AFTER_KEY = 1; // right after a key's closing quote
const F_AFTER_VALUE = 2; // right after a member's value

/**
 * Address of the first '"', '\\' or control byte at or after address `i`, sixteen bytes at a time. The zero bytes
 * after the chunk stop it, so the result is at most the chunk's end, or past it only when the chunk ended first.
 */
@inline
function plainEnd(i: usize): usize {
  while (true) {
    const v = v128.load(i);
    const hit = v128.or(v128.or(i8x16.eq(v, i8x16.splat(0x22)), i8x16.eq(v, i8x16.splat(0x5c))), i8x16.eq(i8x16.min_u(v, i8x16.splat(0x1f)), v));
    const mask = i8x16.bitmask(hit);
    if (mask != 0) return i + <usize>ctz(mask);
    i += 16;
  }
}

// Values the scan needs only at an element's start or end, or in rare states: module globals rather than locals, so
// that the hot loop keeps its few locals (position, state, depth) in registers. `scan` copies the state slots in at
// entry and back only when it returns OK, so a refused chunk leaves the slots untouched whatever these hold.
let gStarts: usize = 0;
let gEnds: usize = 0;
let gFlags: usize = 0;
let gStamps: usize = 0;
let gLimit: i32 = 0;
let gUniLeft: i32 = 0;
let gLit: i32 = 0;
let gLitPos: i32 = 0;
let gInElem: i32 = 0;
let gElemStart: i32 = 0;
let gElemKind: i32 = 0;
let gElemNewline: i32 = 0;

/** Records element `count`, which ends at address `at`: start, end, flags and (objects) its timestamp. */
function record(input: usize, count: i32, at: usize): void {
  const k = <usize>count;
  const end = <i32>(at - input);
  const start = gElemStart;
  const kind = gElemKind;
  store<i32>(gStarts + (k << 2), start);
  store<i32>(gEnds + (k << 2), end);
  store<u8>(gFlags + k, (kind == ElemKind.string ? 1 : 0) | (gElemNewline ? 2 : 0));
  store<f64>(gStamps + (k << 3), kind == ElemKind.object ? trailingTimestamp(input, start, end) : NaN);
}

/**
 * Scans `n` bytes at `input` (followed by 16 zero bytes), recording each element completed in this chunk:
 * its start in `starts` (i32, -1 for an element begun in an earlier chunk), its end in `ends` (i32, exclusive) and
 * its flags in `flags` (u8: 1 a string element, 2 CR/LF outside its strings) and its timestamp in `stamps` (f64, see
 * `trailingTimestamp`), at most `limit` elements (one more is refused). Returns OK with the state and COUNT updated, or a non-zero status with them untouched (the stack
 * area is scratch: the caller copies its own stack in before every call).
 */
export function scan(input: usize, n: i32, starts: usize, ends: usize, flags: usize, stamps: usize, limit: i32): i32 {
  let st = load<i32>(ST);
  let depth = load<i32>(DEPTH);
  let strKey = load<i32>(STR_KEY);
  gUniLeft = load<i32>(UNI_LEFT);
  gLit = load<i32>(LIT);
  gLitPos = load<i32>(LIT_POS);
  gInElem = load<i32>(IN_ELEM);
  gElemStart = load<i32>(ELEM_START);
  gElemKind = load<i32>(ELEM_KIND);
  gElemNewline = load<i32>(ELEM_NEWLINE);
  gStarts = starts;
  gEnds = ends;
  gFlags = flags;
  gStamps = stamps;
  gLimit = limit;
  let count = 0;
  // Positions are addresses (the chunk starts at `input`): each load is one machine instruction, no add.
  const end: usize = input + <usize>n;
  let i: usize = input;

  while (i < end) {
    let c = <u32>load<u8>(i);
    // Every decision is the grammar's (./json-grammar.ts); the rest is bookkeeping: the container stack, where
    // elements start and end, and line breaks.
    switch (st) {
      case S_STR: {
        i = plainEnd(i);
        if (i >= end) {
          i = end;
          break;
        }
        c = <u32>load<u8>(i);
        const next = stringNext(c, strKey != 0);
        if (next == REFUSE) return REFUSED;
        i++;
        if (next != S_COLON) {
          st = next;
          if (next == S_AFTER && depth == 1) {
            if (count == gLimit) return REFUSED;
            record(input, count, i);
            count++;
            gInElem = 0;
          }
          break;
        }
        // A key just closed. The members of objects run through here without going back to the state switch:
        // `"key":` then a string, a number without exponent, a literal or an object, then `,"key"` or closers.
        // Anything else (whitespace, escapes, exponents, arrays, the chunk's end) sets the state the switch
        // continues from. Bytes past the chunk are zero, which the grammar takes nowhere here.
        let lane = F_AFTER_KEY;
        while (true) {
          if (lane == F_KEY) {
            i = plainEnd(i);
            if (stringNext(<u32>load<u8>(i), true) != S_COLON) {
              if (i > end) i = end;
              st = S_STR;
              strKey = 1;
              break;
            }
            i++;
            lane = F_AFTER_KEY;
          }
          if (lane == F_AFTER_KEY) {
            if (colonNext(<u32>load<u8>(i)) != S_VALUE) {
              st = S_COLON;
              break;
            }
            i++;
            c = <u32>load<u8>(i);
            const value = valueNext(c, false);
            if (value == S_STR) {
              i = plainEnd(i + 1);
              if (stringNext(<u32>load<u8>(i), false) != S_AFTER) {
                if (i > end) i = end;
                st = S_STR;
                strKey = 0;
                break;
              }
              i++;
            } else if (value == S_INT || value == S_ZERO || value == S_MINUS) {
              // A number: sign, integer part, fraction; the exponent's digits are left to the switch.
              let num = value;
              if (num == S_MINUS) {
                i++;
                num = minusNext(<u32>load<u8>(i));
                if (num == REFUSE) {
                  st = S_MINUS;
                  break;
                }
              }
              i++;
              if (num == S_INT) while (isDigit(<u32>load<u8>(i))) i++;
              if (i >= end) {
                st = num;
                break;
              }
              num = numberNext(<u32>load<u8>(i), num);
              if (num == S_DOT) {
                i++;
                if (dotNext(<u32>load<u8>(i)) == REFUSE) {
                  st = S_DOT;
                  break;
                }
                i++;
                while (isDigit(<u32>load<u8>(i))) i++;
                if (i >= end) {
                  st = S_FRAC;
                  break;
                }
                num = numberNext(<u32>load<u8>(i), S_FRAC);
              }
              if (num != S_AFTER) {
                i++;
                st = num;
                break;
              }
            } else if (value == S_LIT) {
              // The literal's first four bytes as one word (past the chunk's end: zero bytes, no match).
              const lit = literalOf(c);
              const len = literalLength(lit);
              if (load<i32>(i) != literalWord(lit) || (len > 4 && <u32>load<u8>(i + 4) != literalByte(lit, 4))) {
                st = S_VALUE;
                break;
              }
              i += <usize>len;
            } else if (value == S_OBJ_FIRST) {
              if (depth >= MAX_DEPTH) return TOO_DEEP;
              store<u8>(STACK + <usize>depth, C_OBJ);
              depth++;
              i++;
              if (keyNext(<u32>load<u8>(i), true) == S_STR) {
                i++;
                lane = F_KEY;
                continue;
              }
              st = S_OBJ_FIRST;
              break;
            } else {
              st = S_VALUE;
              break;
            }
            lane = F_AFTER_VALUE;
          }
          // After a value: ',' and the next key or value, or a closer; anything else is left to the switch.
          const after = afterNext(<u32>load<u8>(i), <i32>load<u8>(STACK + <usize>(depth - 1)));
          if (after == S_KEY) {
            i++;
            if (keyNext(<u32>load<u8>(i), false) == S_STR) {
              i++;
              lane = F_KEY;
              continue;
            }
            st = S_KEY;
            break;
          }
          if (after == S_VALUE) {
            i++;
            st = S_VALUE;
            break;
          }
          if (after == CLOSE) {
            i++;
            depth--;
            if (depth == 0) {
              st = S_END;
              break;
            }
            if (depth == 1) {
              if (count == gLimit) return REFUSED;
              record(input, count, i);
              count++;
              gInElem = 0;
              st = S_AFTER;
              break;
            }
            continue;
          }
          st = S_AFTER;
          break;
        }
        break;
      }
      case S_AFTER: {
        const next = afterNext(c, <i32>load<u8>(STACK + <usize>(depth - 1)));
        if (next == REFUSE) return REFUSED;
        i++;
        if (next == STAY) {
          if (depth >= 2 && isLineBreak(c)) gElemNewline = 1;
        } else if (next == CLOSE) {
          depth--;
          if (depth == 0) st = S_END;
          else if (depth == 1) {
            if (count == gLimit) return REFUSED;
            record(input, count, i);
            count++;
            gInElem = 0;
          }
        } else if (next == S_KEY && i < end && keyNext(<u32>load<u8>(i), false) == S_STR) {
          i++;
          st = S_STR;
          strKey = 1;
        } else st = next;
        break;
      }
      case S_FIRST:
      case S_VALUE: {
        const next = valueNext(c, st == S_FIRST);
        if (next == STAY) {
          if (depth >= 2 && isLineBreak(c)) gElemNewline = 1;
          i++;
          break;
        }
        if (next == CLOSE) {
          i++;
          depth--;
          if (depth == 0) st = S_END;
          else {
            st = S_AFTER;
            if (depth == 1) {
              if (count == gLimit) return REFUSED;
              record(input, count, i);
              count++;
              gInElem = 0;
            }
          }
          break;
        }
        if (next == REFUSE) return REFUSED;
        if (depth == 1) {
          const kind = elementKindOf(c);
          if (kind == REFUSE) return REFUSED;
          gElemKind = kind;
          gInElem = 1;
          gElemStart = <i32>(i - input);
          gElemNewline = 0;
        }
        i++;
        if (next == S_OBJ_FIRST) {
          if (depth >= MAX_DEPTH) return TOO_DEEP;
          store<u8>(STACK + <usize>depth, C_OBJ);
          depth++;
          if (i < end && keyNext(<u32>load<u8>(i), true) == S_STR) {
            i++;
            st = S_STR;
            strKey = 1;
          } else st = S_OBJ_FIRST;
        } else if (next == S_STR) {
          st = S_STR;
          strKey = 0;
        } else if (next == S_INT) {
          st = S_INT;
          while (i < end && isDigit(<u32>load<u8>(i))) i++;
        } else if (next == S_FIRST) {
          if (depth >= MAX_DEPTH) return TOO_DEEP;
          store<u8>(STACK + <usize>depth, C_ARR);
          depth++;
          st = S_FIRST;
        } else if (next == S_LIT) {
          gLit = literalOf(c);
          gLitPos = 1;
          st = S_LIT;
        } else st = next;
        break;
      }
      case S_OBJ_FIRST:
      case S_KEY: {
        const next = keyNext(c, st == S_OBJ_FIRST);
        if (next == REFUSE) return REFUSED;
        i++;
        if (next == STAY) {
          if (isLineBreak(c)) gElemNewline = 1;
        } else if (next == CLOSE) {
          depth--;
          st = S_AFTER;
          if (depth == 1) {
            if (count == gLimit) return REFUSED;
            record(input, count, i);
            count++;
            gInElem = 0;
          }
        } else {
          st = S_STR;
          strKey = 1;
        }
        break;
      }
      case S_COLON: {
        const next = colonNext(c);
        if (next == REFUSE) return REFUSED;
        i++;
        if (next == STAY) {
          if (isLineBreak(c)) gElemNewline = 1;
        } else st = next;
        break;
      }
      case S_ESC: {
        const next = escapeNext(c);
        if (next == REFUSE) return REFUSED;
        i++;
        if (next == S_UNI) gUniLeft = 4;
        st = next;
        break;
      }
      case S_UNI: {
        if (!isHexDigit(c)) return REFUSED;
        i++;
        if (--gUniLeft == 0) st = S_STR;
        break;
      }
      case S_MINUS: {
        const next = minusNext(c);
        if (next == REFUSE) return REFUSED;
        st = next;
        i++;
        break;
      }
      case S_ZERO:
      case S_INT:
      case S_FRAC:
      case S_EXP_DIG: {
        if (st != S_ZERO) {
          while (isDigit(c)) {
            if (++i >= end) break;
            c = <u32>load<u8>(i);
          }
          if (i >= end) break;
        }
        // A '.' or an exponent mark goes on; anything else is read again after the number.
        const next = numberNext(c, st);
        if (next != S_AFTER) i++;
        st = next;
        break;
      }
      case S_DOT: {
        const next = dotNext(c);
        if (next == REFUSE) return REFUSED;
        st = next;
        i++;
        break;
      }
      case S_EXP: {
        const next = exponentNext(c);
        if (next == REFUSE) return REFUSED;
        st = next;
        i++;
        break;
      }
      case S_EXP_SIGN: {
        const next = exponentSignNext(c);
        if (next == REFUSE) return REFUSED;
        st = next;
        i++;
        break;
      }
      case S_LIT: {
        if (c != literalByte(gLit, gLitPos)) return REFUSED;
        i++;
        if (++gLitPos == literalLength(gLit)) st = S_AFTER;
        break;
      }
      case S_START: {
        const next = startNext(c);
        if (next == REFUSE) return REFUSED;
        i++;
        if (next != STAY) {
          store<u8>(STACK, C_ARR);
          depth = 1;
          st = next;
        }
        break;
      }
      case S_END: {
        if (endNext(c) == REFUSE) return REFUSED;
        i++;
        break;
      }
      default:
        return REFUSED;
    }
  }

  store<i32>(ST, st);
  store<i32>(DEPTH, depth);
  store<i32>(STR_KEY, strKey);
  store<i32>(UNI_LEFT, gUniLeft);
  store<i32>(LIT, gLit);
  store<i32>(LIT_POS, gLitPos);
  store<i32>(IN_ELEM, gInElem);
  store<i32>(ELEM_START, gElemStart);
  store<i32>(ELEM_KIND, gElemKind);
  store<i32>(ELEM_NEWLINE, gElemNewline);
  store<i32>(COUNT, count);
  return OK;
}
