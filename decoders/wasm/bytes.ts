// AssemblyScript: the byte primitives through which the code shared with TypeScript (./trailing-timestamp.ts, generated
// from decoders/trailing-timestamp.ts) reads the module's memory. They know no rule; decoders/trailing-timestamp.ts
// defines the same four for TypeScript, one byte at a time. `bytes` is an address.

@inline
export function byteAt(bytes: usize, p: i32): i32 {
  return <i32>load<u8>(bytes + <usize>p);
}

/** The little-endian 32-bit word at p. */
@inline
export function word32At(bytes: usize, p: i32): i32 {
  return load<i32>(bytes + <usize>p);
}

/**
 * The 16 bytes before `at` as digit values (a byte that is no digit becomes more than 9). Reading before an element
 * is harmless: the chunk (or the version 2 output) is never at the start of the memory.
 */
@inline
function digitValues(bytes: usize, at: i32): v128 {
  return i8x16.sub(v128.load(bytes + <usize>at - 16), i8x16.splat(0x30));
}

/** How many of the 16 bytes right before `at` are decimal digits, counted back from at - 1. */
@inline
export function digitsBefore(bytes: usize, at: i32): i32 {
  const d = digitValues(bytes, at);
  const isDigit = i8x16.eq(i8x16.min_u(d, i8x16.splat(9)), d);
  // The top run of ones of the digit mask.
  return <i32>clz(~(<u32>i8x16.bitmask(isDigit) << 16));
}

/** The value of the `n` (1 to 15) decimal digits right before `at`: the bytes before them zeroed, as two groups of eight. */
@inline
export function digitsValue(bytes: usize, at: i32, n: i32): f64 {
  const kept = v128.and(digitValues(bytes, at), i8x16.ge_u(v128(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), i8x16.splat(<i8>(16 - n))));
  const high = eightDigits(<u64>i64x2.extract_lane(kept, 0));
  const low = eightDigits(<u64>i64x2.extract_lane(kept, 1));
  return <f64>(<i64>(high * 100000000 + low));
}

/**
 * The value of eight decimal digit values, one per byte, the first (most significant) in the lowest byte: pairs,
 * then fours, then all eight, each step one multiplication (the usual SWAR reduction).
 */
@inline
function eightDigits(x: u64): u64 {
  x = x * 10 + (x >> 8);
  return ((x & 0x000000ff000000ff) * (100 + (1000000 << 32)) + ((x >> 16) & 0x000000ff000000ff) * (1 + (10000 << 32))) >> 32;
}
