// AssemblyScript source of the WebAssembly fast path of `ArrayElementScanner` (decoders/json-scanner.ts).
//
// It is the same state machine, state for state, so that the TypeScript scanner can hand its state over before a
// chunk and take it back after: the states, the container stack and the element bookkeeping mean exactly what they
// mean there. What differs is speed: no bounds checks, and string contents are skipped 16 bytes at a time (SIMD).
//
// The grammar is defined once, in decoders/json-grammar.ts: the TypeScript loop takes every decision from it, and
// this module calls its token rules (escapes, number steps, literals; ./json-grammar.ts is the generated copy) and
// takes every structural decision (which byte each state takes, the member lane) through the predicates of
// ./json-steps.ts, which scripts/gen-wasm-steps.mjs computes from the grammar's functions on every byte value: plain
// comparisons, inlined, so no cost at run time. A predicate that serves several states or contexts holds only the
// bytes that lead to its answer in all of them, so this module may refuse more than the grammar (the TypeScript loop
// then scans the chunk, with the same result), never accept more; test/decoders/json-scanner.test.ts feeds every
// byte value in every state through both loops and through this module alone, besides the mutation fuzz.
//
// It never reports an error itself. On anything it does not accept it returns a non-zero status without touching
// the caller's state, and the TypeScript scanner scans the same chunk again from the same state: it throws the
// exact DecodeError (or, for a nesting deeper than the stack area here, simply finishes the chunk).
//
// Built by `npm run build:wasm` (scripts/build-wasm.mjs) into decoders/wasm-module.ts; a test checks that the
// committed module is the build of this file.

import { Area, Container, ElemKind, Literal, Slot, State } from './layout';
import { dotNext, escapeNext, exponentNext, exponentSignNext, isHexDigit, isLineBreak, literalByte, literalLength, literalStart, literalWord, minusNext, REFUSE } from './json-grammar';
import {
  afterClosesArray,
  afterClosesObject,
  afterComma,
  afterStays,
  colonStays,
  colonToValue,
  dotToFrac,
  elementIsObject,
  elementIsString,
  endStays,
  firstCloses,
  keyOpensString,
  keyStays,
  minusToDigit,
  numberEnds,
  numberEndsAtComma,
  numberInt,
  numberStays,
  numberToDot,
  numberToExp,
  numberZero,
  objFirstCloses,
  startOpens,
  startStays,
  STRING_BACKSLASH,
  STRING_CONTROL_MAX,
  STRING_QUOTE,
  stringCloses,
  stringToEscape,
  valueOpensArray,
  valueOpensObject,
  valueOpensString,
  valueStartsFalse,
  valueStartsInt,
  valueStartsMinus,
  valueStartsNumber,
  valueStartsNull,
  valueStartsTrue,
  valueStartsZero,
  valueStays,
} from './json-steps';
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
 * Address of the first byte at or after address `i` that does not simply stay in a string (a quote, a backslash or a
 * control byte: ./json-steps.ts), sixteen bytes at a time. The zero bytes after the chunk stop it, so the result is at
 * most the chunk's end, or past it only when the chunk ended first.
 */
@inline
function plainEnd(i: usize): usize {
  while (true) {
    const v = v128.load(i);
    const quote = i8x16.eq(v, i8x16.splat(STRING_QUOTE));
    const backslash = i8x16.eq(v, i8x16.splat(STRING_BACKSLASH));
    const hit = v128.or(v128.or(quote, backslash), i8x16.eq(i8x16.min_u(v, i8x16.splat(STRING_CONTROL_MAX)), v));
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
    switch (st) {
      case S_STR: {
        i = plainEnd(i);
        if (i >= end) {
          i = end;
          break;
        }
        c = <u32>load<u8>(i);
        if (stringToEscape(c)) {
          i++;
          st = S_ESC;
          break;
        }
        if (!stringCloses(c)) return REFUSED;
        i++;
        if (!strKey) {
          st = S_AFTER;
          if (depth == 1) {
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
        // continues from.
        // Bytes past the chunk are zero, which no step here takes (scripts/gen-wasm-steps.mjs checks it).
        let lane = F_AFTER_KEY;
        while (true) {
          // (Plain branches rather than `||` / `&&`: the compiler turns those into booleans that are then tested.)
          // A string's end is one test: the chunk's end reads as the zero byte after it, which does not close it.
          if (lane == F_KEY) {
            i = plainEnd(i);
            if (!stringCloses(<u32>load<u8>(i))) {
              if (i > end) i = end;
              st = S_STR;
              strKey = 1;
              break;
            }
            i++;
            lane = F_AFTER_KEY;
          }
          if (lane == F_AFTER_KEY) {
            if (!colonToValue(<u32>load<u8>(i))) {
              st = S_COLON;
              break;
            }
            i++;
            c = <u32>load<u8>(i);
            if (valueOpensString(c)) {
              i = plainEnd(i + 1);
              if (!stringCloses(<u32>load<u8>(i))) {
                if (i > end) i = end;
                st = S_STR;
                strKey = 0;
                break;
              }
              i++;
            } else if (valueStartsNumber(c)) {
              // A number: sign, integer part, fraction; an exponent is left to the switch (in `S_INT` or `S_FRAC`,
              // whose exponent steps are those of a leading '0' too: `numberToExp` holds the bytes all three take).
              if (valueStartsMinus(c)) {
                i++;
                c = <u32>load<u8>(i);
                if (!minusToDigit(c)) {
                  st = S_MINUS;
                  break;
                }
              }
              i++;
              if (numberZero(c)) {
                if (i >= end) {
                  st = S_ZERO;
                  break;
                }
              } else {
                if (!numberInt(c)) return REFUSED;
                while (numberStays(<u32>load<u8>(i))) i++;
                if (i >= end) {
                  st = S_INT;
                  break;
                }
              }
              c = <u32>load<u8>(i);
              if (numberToDot(c)) {
                i++;
                if (!dotToFrac(<u32>load<u8>(i))) {
                  st = S_DOT;
                  break;
                }
                i++;
                while (numberStays(<u32>load<u8>(i))) i++;
                if (i >= end) {
                  st = S_FRAC;
                  break;
                }
                c = <u32>load<u8>(i);
                if (numberToExp(c)) {
                  st = S_FRAC;
                  break;
                }
              } else if (numberToExp(c)) {
                st = S_INT;
                break;
              }
              // `c` ended the number: every byte that may follow a value does (the generator checks it).
            } else if (valueStartsTrue(c) && load<u32>(i) == <u32>literalWord(Literal.trueValue)) {
              i += literalLength(Literal.trueValue);
            } else if (valueStartsFalse(c) && load<u32>(i, 1) == <u32>((literalWord(Literal.falseValue) >>> 8) | (literalByte(Literal.falseValue, 4) << 24))) {
              i += literalLength(Literal.falseValue);
            } else if (valueStartsNull(c) && load<u32>(i) == <u32>literalWord(Literal.nullValue)) {
              i += literalLength(Literal.nullValue);
            } else if (valueOpensObject(c)) {
              if (depth >= MAX_DEPTH) return TOO_DEEP;
              store<u8>(STACK + <usize>depth, C_OBJ);
              depth++;
              i++;
              if (keyOpensString(<u32>load<u8>(i))) {
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
          // After a value.
          c = <u32>load<u8>(i);
          if (afterComma(c)) {
            i++;
            if (load<u8>(STACK + <usize>(depth - 1)) == C_OBJ) {
              if (keyOpensString(<u32>load<u8>(i))) {
                i++;
                lane = F_KEY;
                continue;
              }
              st = S_KEY;
            } else st = S_VALUE;
            break;
          }
          const closesObject = afterClosesObject(c);
          if (closesObject || afterClosesArray(c)) {
            if (load<u8>(STACK + <usize>(depth - 1)) != (closesObject ? C_OBJ : C_ARR)) return REFUSED;
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
        if (afterComma(c)) {
          i++;
          if (load<u8>(STACK + <usize>(depth - 1)) == C_OBJ) {
            if (i < end && keyOpensString(<u32>load<u8>(i))) {
              i++;
              st = S_STR;
              strKey = 1;
            } else st = S_KEY;
          } else st = S_VALUE;
          break;
        }
        const closesObject = afterClosesObject(c);
        if (closesObject || afterClosesArray(c)) {
          if (load<u8>(STACK + <usize>(depth - 1)) != (closesObject ? C_OBJ : C_ARR)) return REFUSED;
          i++;
          depth--;
          if (depth == 0) st = S_END;
          else if (depth == 1) {
            if (count == gLimit) return REFUSED;
            record(input, count, i);
            count++;
            gInElem = 0;
          }
          break;
        }
        if (afterStays(c)) {
          if (depth >= 2 && isLineBreak(c)) gElemNewline = 1;
          i++;
          break;
        }
        return REFUSED;
      }
      case S_FIRST:
      case S_VALUE: {
        if (valueStays(c)) {
          if (depth >= 2 && isLineBreak(c)) gElemNewline = 1;
          i++;
          break;
        }
        if (st == S_FIRST && firstCloses(c)) {
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
        if (depth == 1) {
          if (elementIsObject(c)) gElemKind = ElemKind.object;
          else if (elementIsString(c)) gElemKind = ElemKind.string;
          else return REFUSED;
          gInElem = 1;
          gElemStart = <i32>(i - input);
          gElemNewline = 0;
        }
        i++;
        if (valueOpensObject(c)) {
          if (depth >= MAX_DEPTH) return TOO_DEEP;
          store<u8>(STACK + <usize>depth, C_OBJ);
          depth++;
          if (i < end && keyOpensString(<u32>load<u8>(i))) {
            i++;
            st = S_STR;
            strKey = 1;
          } else st = S_OBJ_FIRST;
        } else if (valueOpensString(c)) {
          st = S_STR;
          strKey = 0;
        } else if (valueStartsInt(c)) {
          st = S_INT;
          while (i < end && numberStays(<u32>load<u8>(i))) i++;
        } else if (valueOpensArray(c)) {
          if (depth >= MAX_DEPTH) return TOO_DEEP;
          store<u8>(STACK + <usize>depth, C_ARR);
          depth++;
          st = S_FIRST;
        } else if (valueStartsMinus(c)) st = S_MINUS;
        else if (valueStartsZero(c)) st = S_ZERO;
        else if (valueStartsTrue(c) || valueStartsFalse(c) || valueStartsNull(c)) {
          gLit = literalStart(c);
          gLitPos = 1;
          st = S_LIT;
        } else return REFUSED;
        break;
      }
      case S_OBJ_FIRST:
      case S_KEY: {
        if (keyOpensString(c)) {
          st = S_STR;
          strKey = 1;
          i++;
          break;
        }
        if (keyStays(c)) {
          if (isLineBreak(c)) gElemNewline = 1;
          i++;
          break;
        }
        if (st == S_OBJ_FIRST && objFirstCloses(c)) {
          i++;
          depth--;
          st = S_AFTER;
          if (depth == 1) {
            if (count == gLimit) return REFUSED;
            record(input, count, i);
            count++;
            gInElem = 0;
          }
          break;
        }
        return REFUSED;
      }
      case S_COLON: {
        if (colonToValue(c)) {
          st = S_VALUE;
          i++;
          break;
        }
        if (colonStays(c)) {
          if (isLineBreak(c)) gElemNewline = 1;
          i++;
          break;
        }
        return REFUSED;
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
      case S_ZERO: {
        if (numberToDot(c)) {
          st = S_DOT;
          i++;
        } else if (numberToExp(c)) {
          st = S_EXP;
          i++;
        } else if (numberEnds(c)) st = S_AFTER;
        else return REFUSED;
        break;
      }
      case S_INT:
      case S_FRAC:
      case S_EXP_DIG: {
        while (numberStays(c)) {
          if (++i >= end) break;
          c = <u32>load<u8>(i);
        }
        if (i >= end) break;
        if (st == S_INT && numberToDot(c)) {
          st = S_DOT;
          i++;
        } else if (st != S_EXP_DIG && numberToExp(c)) {
          st = S_EXP;
          i++;
        } else if (numberEndsAtComma(c)) {
          i++;
          if (load<u8>(STACK + <usize>(depth - 1)) == C_OBJ) {
            if (i < end && keyOpensString(<u32>load<u8>(i))) {
              i++;
              st = S_STR;
              strKey = 1;
            } else st = S_KEY;
          } else st = S_VALUE;
        } else if (numberEnds(c)) st = S_AFTER;
        else return REFUSED;
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
        if (startOpens(c)) {
          store<u8>(STACK, C_ARR);
          depth = 1;
          st = S_FIRST;
          i++;
          break;
        }
        if (startStays(c)) {
          i++;
          break;
        }
        return REFUSED;
      }
      case S_END: {
        if (endStays(c)) {
          i++;
          break;
        }
        return REFUSED;
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
