// The WebAssembly module's memory layout and the scanner state it exchanges with TypeScript: the one definition of
// both. The AssemblyScript sources (./scanner.ts, ./v2.ts, ./inflate.ts) and the TypeScript side
// (../wasm-instance.ts, ../json-scanner.ts) import this file; it is valid in both languages and holds only const enums,
// which both compilers inline as numbers.

/** The i32 slots at the start of the memory (byte address = slot × 4). */
export const enum Slot {
  // The scanner's state, handed in before a chunk and read back after it (decoders/json-scanner.ts).
  st = 0,
  depth = 1,
  strKey = 2,
  uniLeft = 3,
  lit = 4, // a `Literal`
  litPos = 5,
  inElem = 6,
  elemStart = 7, // chunk offset of the open element's first byte; -1 when it began in an earlier chunk
  elemKind = 8, // an `ElemKind`
  elemNewline = 9,
  count = 10, // elements completed in the chunk
  // What one `v2Decode` call did.
  v2At = 12, // the element it stopped at (the count when done)
  v2Events = 13, // events written
  v2Bytes = 14, // output bytes (the last event's end)
  // The tables of the version 2 decoder's one-object scan.
  oneStart = 16,
  oneEnd = 17,
  oneFlags = 18,
  oneStamp = 20, // an f64 (8-byte aligned)
}

/** Byte addresses of the memory's areas. */
export const enum Area {
  slots = 0,
  /** The container stack: one byte per open container (a `Container`). */
  stack = 256,
  stackEnd = 65536,
  /** The inflater's tables. */
  scratch = 65536,
  scratchEnd = 131072,
  /** The chunk, then the tables and the version 2 areas, laid out by decoders/wasm-instance.ts. */
  input = 131072,
}

/** The scanner's states (`Slot.st`), the same in both loops. */
export const enum State {
  start = 0, // before the outer '['
  first = 1, // after '[': a value or ']'
  value = 2, // after ',' in an array, or ':' in an object
  objFirst = 3, // after '{': a key or '}'
  key = 4, // after ',' in an object
  colon = 5, // after a key
  after = 6, // after a value: ',' or the closer
  str = 7,
  esc = 8,
  uni = 9,
  minus = 10,
  zero = 11,
  int = 12,
  dot = 13,
  frac = 14,
  exp = 15,
  expSign = 16,
  expDig = 17,
  lit = 18,
  end = 19, // after the outer ']'
}

/** The container stack's entries. */
export const enum Container {
  object = 1,
  array = 2,
}

/** The literal being read (`Slot.lit`). */
export const enum Literal {
  trueValue = 0,
  falseValue = 1,
  nullValue = 2,
}

/** An element's kind (`Slot.elemKind`). */
export const enum ElemKind {
  object = 1,
  string = 2,
}
