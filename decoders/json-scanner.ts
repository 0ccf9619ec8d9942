/**
 * Incremental, validating JSON byte scanner for a top-level array.
 *
 * It finds the byte range of every element of the outer array without building any tree, carries its state across
 * chunk boundaries (mid-string, mid-escape, mid-number, mid-literal), and validates the full JSON grammar on the way:
 * bracket/brace balance, commas and colons, string escapes (including `\uXXXX`), raw control characters in strings,
 * literals and number syntax. UTF-8 validity is left to the caller (one native `isUtf8` call per element).
 *
 * Elements must be objects (events) or strings (version 2 packed elements); anything else is `NOT_AN_EVENT`.
 */

import { DecodeError, type DecodeErrorCode } from './errors.js';
import { eventTooLarge } from './limits.js';
import { SCAN_OK, STACK_OFFSET, WASM_MAX_DEPTH, wasmChunkScanner, type WasmChunkScanner } from './wasm-instance.js';
import {
  afterNext,
  CLOSE,
  colonNext,
  dotNext,
  endNext,
  elementKindOf,
  escapeNext,
  exponentNext,
  exponentSignNext,
  isDigit,
  isHexDigit,
  isLineBreak,
  isPlain,
  keyNext,
  literalByte,
  literalLength,
  literalStart,
  minusNext,
  numberNext,
  REFUSE,
  startNext,
  STAY,
  stringNext,
  valueNext,
} from './json-grammar.js';
import { Container, ElemKind, Literal, Slot, State } from './wasm/layout.js';

export const KIND_OBJECT = ElemKind.object;
export const KIND_STRING = ElemKind.string;
export type ElementKind = typeof KIND_OBJECT | typeof KIND_STRING;

export interface ScannedElement {
  /** The element's exact bytes, from its first to its last byte (no surrounding whitespace). */
  bytes: Buffer;
  kind: ElementKind;
  /** Zero-based index in the outer array. */
  index: number;
  /** Offset of the element's first byte in the whole scanned stream. */
  offset: number;
  /** Whether the element holds a CR or LF outside its strings (must be compacted before it is written as a line). */
  hasNewline: boolean;
}

/**
 * The elements completed in one chunk, as offsets into that chunk (no per-element objects). Entry k is element
 * `firstIndex + k`; `start[k]` is -1 for an element that began in an earlier chunk, whose whole bytes are then in
 * `carried` (only ever entry 0). Arrays are reused by the next `pushSpans` call: read them before that.
 */
export class ElementSpans {
  length = 0;
  start = new Int32Array(1024);
  end = new Int32Array(1024);
  /** Bit 0: a string element (`KIND_STRING`); bit 1: holds CR/LF outside its strings. */
  flags = new Uint8Array(1024);
  /**
   * When `stamped`: entry k's value of rrweb's usual trailing `"timestamp":<digits>` member, read while scanning (NaN
   * when the element does not end that way; the reader then looks itself). Only the WebAssembly path fills it.
   */
  stamps = new Float64Array(1024);
  stamped = false;
  /** When the WebAssembly scanner found these elements: its `generation` for that scan (-1 otherwise). */
  wasmGeneration = -1;
  firstIndex = 0;
  /** Absolute offset of the chunk's first byte in the stream. */
  base = 0;
  carried: Buffer | undefined;
  /** Absolute offset of the carried element's first byte. */
  carriedOffset = 0;

  reset(firstIndex: number, base: number): void {
    this.length = 0;
    this.firstIndex = firstIndex;
    this.base = base;
    this.carried = undefined;
    this.stamped = false;
    this.wasmGeneration = -1;
  }

  /** Makes room for `n` entries (keeping the current ones). */
  reserve(n: number): void {
    if (n <= this.start.length) return;
    let size = this.start.length * 2;
    while (size < n) size *= 2;
    const grow = <T extends Int32Array | Uint8Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(a);
      return next;
    };
    this.start = grow(this.start, (n) => new Int32Array(n));
    this.end = grow(this.end, (n) => new Int32Array(n));
    this.flags = grow(this.flags, (n) => new Uint8Array(n));
    this.stamps = grow(this.stamps, (n) => new Float64Array(n));
  }

  add(start: number, end: number, flags: number): void {
    const k = this.length;
    if (k === this.start.length) this.reserve(k + 1);
    this.start[k] = start;
    this.end[k] = end;
    this.flags[k] = flags;
    this.length = k + 1;
  }

  /** The element object of entry k (bytes are views into `chunk`, or the carried copy). */
  element(chunk: Buffer, k: number): ScannedElement {
    const start = this.start[k]!;
    const flags = this.flags[k]!;
    return {
      bytes: start < 0 ? this.carried! : chunk.subarray(start, this.end[k]!),
      kind: flags & 1 ? KIND_STRING : KIND_OBJECT,
      index: this.firstIndex + k,
      offset: start < 0 ? this.carriedOffset : this.base + start,
      hasNewline: (flags & 2) !== 0,
    };
  }
}

// Scanner states (decoders/wasm/layout.ts: the same in the WebAssembly scanner).
const S_START = State.start;
const S_FIRST = State.first;
const S_VALUE = State.value;
const S_OBJ_FIRST = State.objFirst;
const S_KEY = State.key;
const S_COLON = State.colon;
const S_AFTER = State.after;
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

/** What a number's states take next, as the error for another byte says it. */
const EXPECTED: Readonly<Record<number, string>> = {
  [S_MINUS]: "expected a digit after '-'",
  [S_DOT]: "expected a digit after '.'",
  [S_EXP]: 'expected an exponent',
  [S_EXP_SIGN]: 'expected an exponent digit',
};

const C_OBJ = Container.object;
const C_ARR = Container.array;

// The TypeScript loop looks the grammar's decisions up in one table rather than call its functions byte by byte;
// the WebAssembly module calls the same functions, inlined by its compiler. Row k holds decision k's answer to each of
// the 256 byte values; the first rows are the states' own (row `st` is the answer in state `st`, in an object for
// `State.after`, in a value for `State.str`), the others follow.
const DECISIONS: readonly ((c: number) => number | boolean)[] = [
  startNext, // State.start
  (c) => valueNext(c, true), // State.first
  (c) => valueNext(c, false), // State.value
  (c) => keyNext(c, true), // State.objFirst
  (c) => keyNext(c, false), // State.key
  colonNext, // State.colon
  (c) => afterNext(c, Container.object), // State.after
  (c) => stringNext(c, false), // State.str
  escapeNext, // State.esc
  isHexDigit, // State.uni
  minusNext, // State.minus
  (c) => numberNext(c, State.zero), // State.zero
  (c) => numberNext(c, State.int), // State.int
  dotNext, // State.dot
  (c) => numberNext(c, State.frac), // State.frac
  exponentNext, // State.exp
  exponentSignNext, // State.expSign
  (c) => numberNext(c, State.expDig), // State.expDig
  () => REFUSE, // State.lit (literals are matched byte by byte)
  endNext, // State.end
  (c) => afterNext(c, Container.array),
  (c) => stringNext(c, true),
  isPlain,
  isDigit,
  isLineBreak,
  elementKindOf,
];
/** The rows after the states' own (× 256). */
const enum Row {
  afterInArray = 20 << 8,
  stringKey = 21 << 8,
  plain = 22 << 8,
  digit = 23 << 8,
  lineBreak = 24 << 8,
  elementKind = 25 << 8,
}
const GRAMMAR = new Int8Array(DECISIONS.length << 8);
DECISIONS.forEach((decide, row) => {
  for (let c = 0; c < 256; c++) GRAMMAR[(row << 8) | c] = Number(decide(c));
});

/** The literals' text by their number (`Literal`), for error messages. */
const LITERAL_NAMES = ['true', 'false', 'null'];

/** Chunks at least this long go through the WebAssembly fast path (below it, copying in costs more than it saves). */
const WASM_MIN_BYTES = 4096;

export interface ScannerOptions {
  /**
   * Chunks of at least this many bytes are scanned by the WebAssembly module (default `WASM_MIN_BYTES`);
   * `Infinity` keeps every chunk on the TypeScript loop. Both give the same results (tests compare them).
   */
  wasmMinBytes?: number | undefined;
  /**
   * The largest element in bytes (default: no limit). A larger one is `EVENT_TOO_LARGE`, thrown as soon as the bytes
   * carried for it from earlier chunks exceed the limit, so that no more than the limit is ever held for one element.
   */
  maxElementBytes?: number | undefined;
}

export class ArrayElementScanner {
  private st = S_START;
  private depth = 0;
  private stack: Uint8Array = new Uint8Array(64);
  private strKey = false;
  private uniLeft = 0;
  private lit: number = Literal.trueValue;
  private litPos = 0;
  /** Absolute offset of the start of the chunk being scanned. */
  private base = 0;
  /** Index of the current element, or of the next one when between elements. */
  private elemIndex = 0;
  private inElem = false;
  private elemStart = 0; // within the current chunk (0 when the element began in an earlier chunk)
  private elemStartAbs = 0;
  private elemKind: ElementKind = KIND_OBJECT;
  private elemNewline = false;
  private parts: Buffer[] = [];
  /** Bytes in `parts`. */
  private carriedBytes = 0;
  private spans: ElementSpans;
  private readonly ownSpans: ElementSpans;

  private readonly wasmMinBytes: number;
  private readonly maxElementBytes: number;

  constructor(
    private readonly file?: string,
    options: ScannerOptions = {},
  ) {
    this.wasmMinBytes = options.wasmMinBytes ?? WASM_MIN_BYTES;
    this.maxElementBytes = options.maxElementBytes ?? Infinity;
    this.ownSpans = new ElementSpans();
    this.spans = this.ownSpans;
  }

  /** Number of elements completed so far. */
  get count(): number {
    return this.elemIndex;
  }

  /** Total bytes scanned so far. */
  get position(): number {
    return this.base;
  }

  /** Resets to the state right after an outer '[' (used to validate one standalone value). */
  resetInsideArray(): void {
    this.st = S_FIRST;
    this.depth = 1;
    this.stack[0] = C_ARR;
    this.base = 0;
    this.elemIndex = 0;
    this.inElem = false;
    this.parts = [];
    this.carriedBytes = 0;
  }

  /** Whether the scanner is between elements (not inside one, not inside a token). */
  get betweenElements(): boolean {
    return this.st === S_AFTER && this.depth === 1;
  }

  /** Scans one chunk and appends every element completed in it to `out`. */
  push(buf: Buffer, out: ScannedElement[]): void {
    const spans = this.ownSpans;
    try {
      this.pushSpans(buf, spans);
    } finally {
      // Elements completed before an error are handed out too (callers report them first).
      for (let k = 0; k < spans.length; k++) out.push(spans.element(buf, k));
    }
  }

  /**
   * Scans one chunk and records every element completed in it in `spans` (reset first). On a syntax error, or an
   * element over `maxElementBytes`, the elements completed before it are in `spans` when the `DecodeError` is thrown.
   */
  pushSpans(buf: Buffer, spans: ElementSpans): void {
    // Only a chunk longer than the limit can hold a whole element over it (one carried in is checked on its own).
    if (buf.length <= this.maxElementBytes) {
      this.scanChunk(buf, spans);
      return;
    }
    let failure: { error: unknown } | undefined;
    try {
      this.scanChunk(buf, spans);
    } catch (error) {
      failure = { error };
    }
    // Every element in `spans` comes before a syntax error: one of them over the limit is the first problem.
    this.checkSizes(spans);
    if (failure !== undefined) throw failure.error;
  }

  // biome-ignore lint/complexity/noExcessiveLinesPerFunction: the byte scanner's state machine, one loop with its states inlined (the hot path; the WebAssembly twin mirrors it state for state).
  private scanChunk(buf: Buffer, spans: ElementSpans): void {
    spans.reset(this.elemIndex, this.base);
    this.spans = spans;
    const n = buf.length;
    if (n >= this.wasmMinBytes && this.depth <= WASM_MAX_DEPTH) {
      const fast = wasmChunkScanner();
      if (fast !== null && this.pushSpansWasm(fast, buf, spans)) return;
    }
    const view = new DataView(buf.buffer, buf.byteOffset, n);
    let i = 0;
    let st = this.st;
    let depth = this.depth;
    let stack = this.stack;
    let strKey = this.strKey;
    const g = GRAMMAR;
    this.elemStart = 0;
    try {
      outer: while (i < n) {
        let c = buf[i]!;
        // Every decision is the grammar's (./json-grammar.ts); the rest is bookkeeping: the container stack, where
        // elements start and end, and line breaks.
        switch (st) {
          case S_STR: {
            // The string's plain bytes (`isPlain`), four at a time: bitwise tests on one little-endian 32-bit word
            // for a byte below 0x20, a byte equal to 0x22 and a byte equal to 0x5c.
            if (g[Row.plain | c]) {
              while (i + 4 <= n) {
                const w = view.getInt32(i, true);
                const q = w ^ 0x22222222;
                const b = w ^ 0x5c5c5c5c;
                if ((((w - 0x20202020) & ~w) | ((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b)) & 0x80808080) break;
                i += 4;
              }
              if (i >= n) break outer;
              c = buf[i]!;
            }
            while (g[Row.plain | c]) {
              if (++i >= n) break outer;
              c = buf[i]!;
            }
            const next = g[(strKey ? Row.stringKey : S_STR << 8) | c]!;
            if (next === REFUSE) this.fail('BAD_JSON', 'raw control character in a string', i);
            i++;
            if (next === S_COLON) {
              // A key closed. Fused: its ':', then the '"' of a string value (inside an object: never an element).
              if (i < n && g[(S_COLON << 8) | buf[i]!] === S_VALUE) {
                i++;
                if (i < n && g[(S_VALUE << 8) | buf[i]!] === S_STR) {
                  i++;
                  strKey = false;
                } else st = S_VALUE;
              } else st = S_COLON;
            } else {
              st = next;
              if (next === S_AFTER && depth === 1) this.emit(buf, i);
            }
            continue;
          }
          case S_AFTER: {
            const next = g[(stack[depth - 1] === C_OBJ ? S_AFTER << 8 : Row.afterInArray) | c]!;
            if (next === REFUSE) {
              const closer = c === 0x7d || c === 0x5d;
              this.fail(
                'BAD_JSON',
                closer
                  ? `unexpected '${String.fromCharCode(c)}'`
                  : `expected ',' or a closing bracket, found ${describe(c)}`,
                i,
              );
            }
            i++;
            if (next === STAY) {
              if (depth >= 2 && g[Row.lineBreak | c]) this.elemNewline = true;
            } else if (next === CLOSE) {
              depth--;
              if (depth === 0) st = S_END;
              else if (depth === 1) this.emit(buf, i);
            } else if (next === S_KEY && i < n && g[(S_KEY << 8) | buf[i]!] === S_STR) {
              // Fused '"' that starts the next key.
              i++;
              st = S_STR;
              strKey = true;
            } else st = next;
            continue;
          }
          case S_FIRST:
          case S_VALUE: {
            const next = g[(st << 8) | c]!;
            if (next === STAY) {
              if (depth >= 2 && g[Row.lineBreak | c]) this.elemNewline = true;
              i++;
              continue;
            }
            if (next === CLOSE) {
              i++;
              depth--;
              if (depth === 0) st = S_END;
              else {
                st = S_AFTER;
                if (depth === 1) this.emit(buf, i);
              }
              continue;
            }
            if (next === REFUSE) this.fail('BAD_JSON', `expected a value, found ${describe(c)}`, i);
            if (depth === 1) {
              const kind = g[Row.elementKind | c]!;
              if (kind === REFUSE) this.fail('NOT_AN_EVENT', 'array element is neither an object nor a string', i);
              this.elemKind = kind as ElementKind;
              this.inElem = true;
              this.elemStart = i;
              this.elemStartAbs = this.base + i;
              this.elemNewline = false;
            }
            i++;
            switch (next) {
              case S_OBJ_FIRST:
                if (depth === stack.length) stack = this.grow();
                stack[depth++] = C_OBJ;
                // Fused '"' that starts the first key.
                if (i < n && g[(S_OBJ_FIRST << 8) | buf[i]!] === S_STR) {
                  i++;
                  st = S_STR;
                  strKey = true;
                } else st = S_OBJ_FIRST;
                break;
              case S_FIRST:
                if (depth === stack.length) stack = this.grow();
                stack[depth++] = C_ARR;
                st = S_FIRST;
                break;
              case S_STR:
                st = S_STR;
                strKey = false;
                break;
              case S_LIT:
                this.lit = literalStart(c);
                this.litPos = 1;
                st = S_LIT;
                break;
              case S_INT:
                st = S_INT;
                // Fused digit run.
                while (i < n && g[Row.digit | buf[i]!]) i++;
                break;
              default:
                st = next;
            }
            continue;
          }
          case S_OBJ_FIRST:
          case S_KEY: {
            const next = g[(st << 8) | c]!;
            if (next === REFUSE) this.fail('BAD_JSON', `expected an object key, found ${describe(c)}`, i);
            i++;
            if (next === STAY) {
              if (g[Row.lineBreak | c]) this.elemNewline = true;
            } else if (next === CLOSE) {
              depth--;
              st = S_AFTER;
              if (depth === 1) this.emit(buf, i);
            } else {
              st = S_STR;
              strKey = true;
            }
            continue;
          }
          case S_COLON: {
            const next = g[(st << 8) | c]!;
            if (next === REFUSE) this.fail('BAD_JSON', `expected ':', found ${describe(c)}`, i);
            i++;
            if (next === STAY) {
              if (g[Row.lineBreak | c]) this.elemNewline = true;
            } else st = next;
            continue;
          }
          case S_ESC: {
            const next = g[(st << 8) | c]!;
            if (next === REFUSE) this.fail('BAD_JSON', `invalid escape '\\${describe(c)}' in a string`, i);
            i++;
            if (next === S_UNI) this.uniLeft = 4;
            st = next;
            continue;
          }
          case S_UNI: {
            if (!g[(st << 8) | c]) this.fail('BAD_JSON', `invalid \\u escape: ${describe(c)} is not a hex digit`, i);
            i++;
            if (--this.uniLeft === 0) st = S_STR;
            continue;
          }
          // A number's sign, point or exponent mark: a digit (or the exponent's sign) must follow.
          case S_MINUS:
          case S_DOT:
          case S_EXP:
          case S_EXP_SIGN: {
            const next = g[(st << 8) | c]!;
            if (next === REFUSE) this.fail('BAD_JSON', `${EXPECTED[st]}, found ${describe(c)}`, i);
            st = next;
            i++;
            continue;
          }
          case S_ZERO:
          case S_INT:
          case S_FRAC:
          case S_EXP_DIG: {
            if (st !== S_ZERO) {
              // Digit run.
              while (g[Row.digit | c]) {
                if (++i >= n) break outer;
                c = buf[i]!;
              }
            }
            // A '.' or an exponent mark goes on; anything else is read after the number (fused: ',' and the next
            // key or value, as in S_AFTER).
            const next = g[(st << 8) | c]!;
            st = next;
            if (next !== S_AFTER) {
              i++;
              continue;
            }
            const after = g[(stack[depth - 1] === C_OBJ ? S_AFTER << 8 : Row.afterInArray) | c]!;
            if (after === S_KEY || after === S_VALUE) {
              i++;
              if (after === S_KEY && i < n && g[(S_KEY << 8) | buf[i]!] === S_STR) {
                i++;
                st = S_STR;
                strKey = true;
              } else st = after;
            }
            continue;
          }
          case S_LIT: {
            const lit = this.lit;
            if (c !== literalByte(lit, this.litPos))
              this.fail('BAD_JSON', `invalid literal (expected '${LITERAL_NAMES[lit]!}')`, i);
            i++;
            if (++this.litPos === literalLength(lit)) st = S_AFTER;
            continue;
          }
          case S_START: {
            const next = g[(st << 8) | c]!;
            if (next === REFUSE)
              this.fail('NOT_AN_ARRAY', `the file is not a JSON array (starts with ${describe(c)})`, i);
            i++;
            if (next !== STAY) {
              stack[0] = C_ARR;
              depth = 1;
              st = next;
            }
            continue;
          }
          case S_END: {
            if (g[(st << 8) | c] === REFUSE) this.fail('TRAILING_DATA', `${describe(c)} after the end of the array`, i);
            i++;
            continue;
          }
        }
      }
    } finally {
      this.st = st;
      this.depth = depth;
      this.strKey = strKey;
    }
    if (this.inElem) this.carry(buf.subarray(this.elemStart, n));
    this.base += n;
  }

  /**
   * The same scan in WebAssembly (decoders/wasm/scanner.ts): the state goes in, the chunk is scanned, and the state
   * and the elements come back. Returns false, with nothing changed, when the module refused the chunk (invalid
   * input, or a nesting deeper than its stack): the TypeScript loop then scans the chunk and reports the error.
   */
  private pushSpansWasm(fast: WasmChunkScanner, buf: Buffer, spans: ElementSpans): boolean {
    fast.prepare(buf.length);
    const state = fast.state;
    const depth = this.depth;
    state[Slot.st] = this.st;
    state[Slot.depth] = depth;
    state[Slot.strKey] = this.strKey ? 1 : 0;
    state[Slot.uniLeft] = this.uniLeft;
    state[Slot.lit] = this.lit;
    state[Slot.litPos] = this.litPos;
    state[Slot.inElem] = this.inElem ? 1 : 0;
    state[Slot.elemStart] = -1;
    state[Slot.elemKind] = this.elemKind;
    state[Slot.elemNewline] = this.elemNewline ? 1 : 0;
    state[Slot.count] = 0;
    fast.bytes.set(this.stack.subarray(0, depth), STACK_OFFSET);
    if (fast.scan(buf) !== SCAN_OK) return false;
    spans.wasmGeneration = fast.generation;

    const n = buf.length;
    const count = state[Slot.count]!;
    const newDepth = state[Slot.depth]!;
    this.st = state[Slot.st]!;
    this.depth = newDepth;
    this.strKey = state[Slot.strKey] !== 0;
    this.uniLeft = state[Slot.uniLeft]!;
    this.lit = state[Slot.lit]!;
    this.litPos = state[Slot.litPos]!;
    this.elemKind = state[Slot.elemKind] === KIND_STRING ? KIND_STRING : KIND_OBJECT;
    this.elemNewline = state[Slot.elemNewline] !== 0;
    while (this.stack.length < newDepth) this.grow();
    this.stack.set(fast.bytes.subarray(STACK_OFFSET, STACK_OFFSET + newDepth));

    if (count > 0) {
      const tables = fast.tables(count);
      spans.reserve(count);
      spans.start.set(tables.starts);
      spans.end.set(tables.ends);
      spans.flags.set(tables.flags);
      spans.stamps.set(tables.stamps);
      spans.stamped = true;
      spans.length = count;
      if (spans.start[0] === -1) this.takeCarried(buf, spans.end[0]!, spans);
      this.elemIndex += count;
    }
    this.inElem = state[Slot.inElem] !== 0;
    if (this.inElem) {
      const start = state[Slot.elemStart]!;
      if (start >= 0) {
        this.elemStartAbs = this.base + start;
        this.carry(buf.subarray(start, n));
      } else this.carry(buf);
    }
    this.base += n;
    return true;
  }

  /** Declares the end of input; throws when the array is not complete. */
  end(): void {
    if (this.st === S_END) return;
    if (this.st === S_START) {
      throw new DecodeError('EMPTY', 'the file holds no JSON value', this.ctx(undefined, this.base));
    }
    const what = this.inElem ? 'inside an element' : 'before the end of the array';
    throw new DecodeError('TRUNCATED', `the file ends ${what}`, this.ctx(this.elemIndex, this.base));
  }

  private emit(buf: Buffer, end: number): void {
    const flags = (this.elemKind === KIND_STRING ? 1 : 0) | (this.elemNewline ? 2 : 0);
    if (this.parts.length === 0) this.spans.add(this.elemStart, end, flags);
    else {
      this.takeCarried(buf, end, this.spans);
      this.spans.add(-1, end, flags);
    }
    this.elemIndex++;
    this.inElem = false;
  }

  /** The element carried over from earlier chunks ends at `end` of `buf`: its whole bytes go to `spans.carried`. */
  private takeCarried(buf: Buffer, end: number, spans: ElementSpans): void {
    if (this.carriedBytes + end > this.maxElementBytes) {
      spans.length = 0; // it is entry 0: nothing completed before it in this chunk
      throw this.tooLarge(this.elemIndex, this.elemStartAbs);
    }
    this.parts.push(buf.subarray(0, end));
    spans.carried = Buffer.concat(this.parts, this.carriedBytes + end);
    spans.carriedOffset = this.elemStartAbs;
    this.parts = [];
    this.carriedBytes = 0;
  }

  /** Keeps the part of the open element that is in this chunk, for when it ends; never more than the limit. */
  private carry(part: Buffer): void {
    this.carriedBytes += part.length;
    if (this.carriedBytes > this.maxElementBytes) throw this.tooLarge(this.elemIndex, this.elemStartAbs);
    this.parts.push(part);
  }

  /** Throws for the first element of `spans` that lies whole in the chunk and is over the limit (`spans` cut before it). */
  private checkSizes(spans: ElementSpans): void {
    const { start, end } = spans;
    for (let k = 0; k < spans.length; k++) {
      const s = start[k]!;
      if (s >= 0 && end[k]! - s > this.maxElementBytes) {
        spans.length = k;
        throw this.tooLarge(spans.firstIndex + k, spans.base + s);
      }
    }
  }

  private tooLarge(index: number, offset: number): DecodeError {
    return eventTooLarge(this.maxElementBytes, {
      file: this.file,
      index,
      offset,
    });
  }

  private grow(): Uint8Array {
    const next = new Uint8Array(this.stack.length * 2);
    next.set(this.stack);
    this.stack = next;
    return next;
  }

  private fail(code: DecodeErrorCode, detail: string, i: number): never {
    const index = code === 'TRAILING_DATA' || code === 'NOT_AN_ARRAY' ? undefined : this.elemIndex;
    throw new DecodeError(code, detail, this.ctx(index, this.base + i));
  }

  private ctx(index: number | undefined, offset: number) {
    return { file: this.file, index, offset };
  }
}

function describe(c: number): string {
  return c >= 0x21 && c <= 0x7e ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16).padStart(2, '0')}`;
}

let shared: ArrayElementScanner | undefined;

/**
 * Validates that `buf` holds exactly one JSON object (surrounding whitespace allowed) and returns its exact bytes
 * and whether it holds CR/LF outside strings. Throws `DecodeError` (offsets relative to `buf`) otherwise.
 */
export function scanSingleObject(buf: Buffer): ScannedElement {
  // The TypeScript loop only: this runs in the middle of version 2 decoding, whose chunk must stay in the module.
  const scanner = (shared ??= new ArrayElementScanner(undefined, { wasmMinBytes: Infinity }));
  const out: ScannedElement[] = [];
  scanner.resetInsideArray();
  try {
    scanner.push(buf, out);
  } catch (err) {
    shared = undefined; // leave no half state behind
    throw err;
  }
  const el = out[0];
  if (out.length !== 1 || !scanner.betweenElements || el === undefined) {
    shared = undefined;
    const detail = out.length > 1 ? 'more than one value' : 'an incomplete value';
    throw new DecodeError(out.length > 1 ? 'BAD_JSON' : 'TRUNCATED', `expected one JSON object, found ${detail}`, {
      offset: buf.length,
    });
  }
  if (el.kind !== KIND_OBJECT)
    throw new DecodeError('NOT_AN_EVENT', 'expected a JSON object, found a string', { offset: 0 });
  return el;
}
