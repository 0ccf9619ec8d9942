// AssemblyScript source of a strict zlib (RFC 1950 + RFC 1951) inflater: one call inflates one whole stream from
// memory to memory, with no allocation and no per-call setup beyond its Huffman tables.
//
// Strict means: it accepts exactly what node's zlib.inflateSync (zlib 1.3, windowBits 15) accepts. zlib's rules, as
// they show through that API:
// - the header: CMF*256 + FLG a multiple of 31, CM 8, CINFO at most 7, FDICT clear (node has no dictionary to give);
//   CINFO does not limit distances (zlib is not built with INFLATE_STRICT): only the bytes produced so far do;
// - block type 3, a stored block whose NLEN is not the complement of LEN, more than 286 literal/length or 30
//   distance codes, a repeat of the previous code length with none before, repeats past the last code length, no
//   code for end-of-block: refused;
// - code lengths must form a complete prefix code, with zlib's exceptions: a literal/length or distance code made of
//   one single 1-bit code (the other 1-bit pattern is then an invalid code), and a distance code with no codes at
//   all (any distance is then an invalid code); the code-length code has no exception (a code-length code with no
//   codes at all cannot end well in zlib either: every length it reads is 0, so end-of-block has no code);
// - the symbols no code can stand for (literal/length 286 and 287, distances 30 and 31, both only reachable in fixed
//   blocks) are invalid; a distance past the start of the output is invalid;
// - after the last block, the Adler-32 of the output, big-endian, at the next byte boundary; anything after it is
//   not read (node ignores it too and reports how many bytes the stream used).
// Any of these, and input that ends before the stream does, give INFLATE_BAD.
//
// Memory: the caller's source and destination, and [Area.scratch, Area.scratchEnd) of ./layout.ts as scratch (tables, code lengths); nothing else
// is read or written. Reads stay inside src[0, srcLen), writes inside dst[0, dstCap) (the fast loop may write a few
// bytes past the current output, never past dstCap).
//
// Decoding is table driven: a 10-bit (literal/length) or 8-bit (distance) first-level table whose entries either
// decode a symbol outright (literals carry their byte, lengths and distances their base and extra-bit count) or
// point to a second-level table for the longer codes, laid out the way zlib's inflate_table lays them out. Bits
// come from a 64-bit buffer refilled 8 bytes at a time; near the end of the input or of the destination a slower
// loop takes over, one byte at a time, with every bound checked.

import { Area } from './layout';

// Statuses.
const INFLATE_OK: i32 = 0;
const INFLATE_BAD: i32 = 1;
const INFLATE_FULL: i32 = 2;

/** After INFLATE_OK: bytes written to dst. */
export let inflatedBytes: i32 = 0;
/** After INFLATE_OK: bytes of src the zlib stream used, header and Adler-32 trailer included. */
export let consumedBytes: i32 = 0;

// Scratch layout.
const SCRATCH: usize = <usize>Area.scratch;
const FLAG: usize = SCRATCH; // u32: FIXED_BUILT once the fixed-code tables below are built
const FIXED_BUILT: u32 = 0x31544c46;
const LIT_ROOT: u32 = 10;
const DIST_ROOT: u32 = 8;
const CL_ROOT: u32 = 7;
const FIXED_LIT: usize = SCRATCH + 64; // 1 << LIT_ROOT entries (fixed codes are at most 9 bits: no subtables)
const FIXED_DIST: usize = FIXED_LIT + (4 << LIT_ROOT); // 1 << DIST_ROOT entries
// Capacities (entries) of the dynamic tables, subtables included. A subtable of 1 << k entries needs at least k + 1
// codes of its own, so 286 codes need fewer than 1024 + 286 * 32 / 6 entries (zlib's exact bound: 1332) and 30
// distance codes fewer than 256 + 30 * 128 / 8.
const LIT_CAP: u32 = 4096;
const DIST_CAP: u32 = 2048;
const DYN_LIT: usize = FIXED_DIST + (4 << DIST_ROOT);
const DYN_DIST: usize = DYN_LIT + (<usize>LIT_CAP << 2);
const CL_TABLE: usize = DYN_DIST + (<usize>DIST_CAP << 2); // 1 << CL_ROOT entries
const LENS: usize = CL_TABLE + (4 << CL_ROOT); // u8 per symbol: literal/length code lengths, then distance ones
const CL_LENS: usize = LENS + 320; // u8 per code-length symbol (19)
const COUNT: usize = CL_LENS + 32; // u32 per code length 0..15, and three more such histograms while counting
const SCRATCH_END: usize = COUNT + 256; // 65536 + 30880
// (The table builder reads code lengths 16 at a time, so up to 15 bytes past the last one, still inside LENS or
// CL_LENS; it ignores them.)

// Table entries (u32): bits 0-3 the code's length (all of it, also in second-level tables), bits 4-7 the extra
// bits after it (lengths, distances) or a subtable's index bits, bits 8-11 the kind, bits 16-31 the value (the
// literal, the length or distance base, the code-length symbol, or a subtable's first entry).
const E_LIT: u32 = 0x100;
const E_EOB: u32 = 0x200;
const E_SUB: u32 = 0x400;
const E_BAD: u32 = 0x800;

const K_CL = 0;
const K_LIT = 1;
const K_DIST = 2;

// The order of the code-length code's lengths in a dynamic block header: 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2
// 14 1 15, five bits each.
const CL_ORDER_LO: u64 =
  16 | (17 << 5) | (18 << 10) | (0 << 15) | (8 << 20) | (7 << 25) | (<u64>9 << 30) | (<u64>6 << 35) | (<u64>10 << 40) | (<u64>5 << 45) | (<u64>11 << 50) | (<u64>4 << 55);
const CL_ORDER_HI: u64 = 12 | (3 << 5) | (13 << 10) | (2 << 15) | (14 << 20) | (1 << 25) | (<u64>15 << 30);

// The fast loop runs while this much room is left before dstCap: three literals, or a match (258 bytes) and the
// overshoot of its 16-byte copies.
const FAST_OUT: usize = 320;

// The stream being inflated, between the block decoder and the header readers.
let inPos: usize = 0;
let inEnd: usize = 0;
let bitBuf: u64 = 0; // bits [0, bitCount) are the next input bits; above them: zeros or the input bits that follow
let bitCount: u32 = 0;
let outPos: usize = 0;
let outStart: usize = 0;
let outEnd: usize = 0;

/** Loads whole input bytes until at least `n` (≤ 56) bits are buffered or the input ends. */
@inline
function fillBits(n: u32): void {
  while (bitCount < n && inPos < inEnd) {
    bitBuf |= <u64>load<u8>(inPos) << <u64>bitCount;
    inPos++;
    bitCount += 8;
  }
}

/** Whether `n` bits are buffered (after loading what input there is). */
@inline
function needBits(n: u32): bool {
  fillBits(n);
  return bitCount >= n;
}

@inline
function peekBits(n: u32): u32 {
  return <u32>bitBuf & ((1 << n) - 1);
}

@inline
function dropBits(n: u32): void {
  bitBuf >>= <u64>n;
  bitCount -= n;
}

/** Drops the bits up to the next byte boundary and gives the buffered whole bytes back to the input. */
@inline
function alignToByte(): void {
  inPos -= <usize>(bitCount >> 3);
  bitBuf = 0;
  bitCount = 0;
}

/** The table entry of `sym` in a code of `kind`, its code `len` bits long. */
@inline
function entryFor(kind: i32, sym: u32, len: u32): u32 {
  if (kind == K_CL) return (sym << 16) | len;
  if (kind == K_LIT) {
    if (sym < 256) return (sym << 16) | E_LIT | len;
    if (sym == 256) return E_EOB | len;
    const s = sym - 257;
    if (s < 8) return ((s + 3) << 16) | len;
    if (s < 28) {
      const extra = (s >> 2) - 1;
      return ((((4 + (s & 3)) << extra) + 3) << 16) | (extra << 4) | len;
    }
    if (s == 28) return (258 << 16) | len;
    return E_BAD; // 286, 287
  }
  if (sym < 4) return ((sym + 1) << 16) | len;
  if (sym < 30) {
    const extra = (sym >> 1) - 1;
    return ((((2 + (sym & 1)) << extra) + 1) << 16) | (extra << 4) | len;
  }
  return E_BAD; // 30, 31
}

@inline
function fillInvalid(table: usize, entries: u32): void {
  for (let i: usize = 0; i < <usize>entries; i++) store<u32>(table + (i << 2), E_BAD);
}

/**
 * Builds the decoding table of the code whose `n` code lengths are at `lens`: a first-level table of `root` index
 * bits at `table`, followed by second-level tables for the longer codes (at most `cap` entries in all). Returns
 * false when zlib refuses the code lengths (over-subscribed, or incomplete beyond zlib's exceptions).
 */
function buildTable(lens: usize, n: u32, table: usize, root: u32, kind: i32, cap: u32): bool {
  // Four interleaved histograms (no store-to-load chain from one symbol to the next), then their sums.
  for (let l: usize = 0; l < 64; l++) store<u32>(COUNT + (l << 2), 0);
  let s: usize = 0;
  for (; s + 4 <= <usize>n; s += 4) {
    const a = COUNT + (<usize>load<u8>(lens + s) << 2);
    store<u32>(a, load<u32>(a) + 1);
    const b = COUNT + 64 + (<usize>load<u8>(lens + s + 1) << 2);
    store<u32>(b, load<u32>(b) + 1);
    const c = COUNT + 128 + (<usize>load<u8>(lens + s + 2) << 2);
    store<u32>(c, load<u32>(c) + 1);
    const d = COUNT + 192 + (<usize>load<u8>(lens + s + 3) << 2);
    store<u32>(d, load<u32>(d) + 1);
  }
  for (; s < <usize>n; s++) {
    const a = COUNT + (<usize>load<u8>(lens + s) << 2);
    store<u32>(a, load<u32>(a) + 1);
  }
  v128.store(COUNT, i32x4.add(i32x4.add(v128.load(COUNT), v128.load(COUNT + 64)), i32x4.add(v128.load(COUNT + 128), v128.load(COUNT + 192))));
  v128.store(COUNT + 16, i32x4.add(i32x4.add(v128.load(COUNT + 16), v128.load(COUNT + 80)), i32x4.add(v128.load(COUNT + 144), v128.load(COUNT + 208))));
  v128.store(COUNT + 32, i32x4.add(i32x4.add(v128.load(COUNT + 32), v128.load(COUNT + 96)), i32x4.add(v128.load(COUNT + 160), v128.load(COUNT + 224))));
  v128.store(COUNT + 48, i32x4.add(i32x4.add(v128.load(COUNT + 48), v128.load(COUNT + 112)), i32x4.add(v128.load(COUNT + 176), v128.load(COUNT + 240))));
  let max: u32 = 15;
  while (max != 0 && load<u32>(COUNT + (<usize>max << 2)) == 0) max--;
  const size: u32 = 1 << root;
  if (max == 0) {
    // No codes at all: zlib takes it (any use is an invalid code), but a code-length code like that can only
    // lead to an error.
    if (kind == K_CL) return false;
    fillInvalid(table, size);
    return true;
  }
  let left: i32 = 1;
  for (let l: u32 = 1; l <= 15; l++) {
    left = (left << 1) - <i32>load<u32>(COUNT + (<usize>l << 2));
    if (left < 0) return false; // over-subscribed
  }
  if (left > 0) {
    // Incomplete: only a single 1-bit literal/length or distance code (code 0: the even indexes). The other bit
    // pattern is an invalid code.
    if (kind == K_CL || max != 1) return false;
    let s: usize = 0;
    while (load<u8>(lens + s) == 0) s++;
    const e = entryFor(kind, <u32>s, 1);
    for (let i: usize = 0; i < <usize>size; i += 2) {
      store<u32>(table + (i << 2), e);
      store<u32>(table + (i << 2), E_BAD, 4);
    }
    return true;
  }

  // The canonical codes in increasing order (by length, then by symbol: the symbols of each length are found 16
  // code lengths at a time), bit-reversed (`huff`), as in zlib's inflate_table. A code of `len` bits is stored
  // once, at its index among the first 1 << len entries; going on to longer codes doubles that part of the table
  // (an entry also stands for both values of the next bit). The shortest code is at most 8 bits long (a complete
  // code of longer codes needs at least 512 symbols), so it fits the first level.
  const vectors: usize = (<usize>n + 15) >> 4;
  const tail: u32 = (n & 15) == 0 ? 0xffff : (<u32>1 << (n & 15)) - 1; // lanes of the last vector that are symbols
  let min: u32 = 1;
  while (load<u32>(COUNT + (<usize>min << 2)) == 0) min++;
  const top = max < root ? max : root;
  let filled: usize = <usize>1 << min;
  let huff: u32 = 0;
  for (let len = min; len <= top; len++) {
    if (len > min) {
      memory.copy(table + (filled << 2), table, filled << 2);
      filled <<= 1;
    }
    if (load<u32>(COUNT + (<usize>len << 2)) == 0) continue;
    const key = i8x16.splat(<i8>len);
    for (let k: usize = 0; k < vectors; k++) {
      let m = <u32>i8x16.bitmask(i8x16.eq(v128.load(lens + (k << 4)), key));
      if (k == vectors - 1) m &= tail;
      while (m != 0) {
        const sym = <u32>(k << 4) + ctz(m);
        m &= m - 1;
        store<u32>(table + (<usize>huff << 2), entryFor(kind, sym, len));
        huff = nextCode(huff, len);
      }
    }
  }
  while (filled < <usize>size) {
    memory.copy(table + (filled << 2), table, filled << 2);
    filled <<= 1;
  }
  if (max <= root) return true;

  // Codes longer than `root` bits: second-level tables, one per first-level index these codes start with, each
  // with as many index bits as the codes that remain need to fill it (zlib's layout, within zlib's bound).
  const mask: u32 = size - 1;
  let curr: u32 = root; // index bits of the (sub)table being filled
  let next: usize = table; // the (sub)table being filled
  let used: u32 = size;
  let low: u32 = 0xffffffff; // first-level index of the current subtable
  for (let len = root + 1; len <= max; len++) {
    const ca = COUNT + (<usize>len << 2);
    if (load<u32>(ca) == 0) continue;
    const key = i8x16.splat(<i8>len);
    for (let k: usize = 0; k < vectors; k++) {
      let m = <u32>i8x16.bitmask(i8x16.eq(v128.load(lens + (k << 4)), key));
      if (k == vectors - 1) m &= tail;
      while (m != 0) {
        const sym = <u32>(k << 4) + ctz(m);
        m &= m - 1;
        if ((huff & mask) != low) {
          next += <usize>(1 << curr) << 2;
          curr = len - root;
          let room: i32 = 1 << curr;
          while (curr + root < max) {
            room -= <i32>load<u32>(COUNT + (<usize>(curr + root) << 2));
            if (room <= 0) break;
            curr++;
            room <<= 1;
          }
          used += 1 << curr;
          if (used > cap) return false; // beyond zlib's bound for any code it accepts: cannot happen
          low = huff & mask;
          store<u32>(table + (<usize>low << 2), (<u32>((next - table) >> 2) << 16) | E_SUB | (curr << 4));
        }
        const here = entryFor(kind, sym, len);
        const incr: u32 = 1 << (len - root);
        let fill: u32 = 1 << curr;
        const base = next + (<usize>(huff >> root) << 2);
        do {
          fill -= incr;
          store<u32>(base + (<usize>fill << 2), here);
        } while (fill != 0);
        huff = nextCode(huff, len);
        store<u32>(ca, load<u32>(ca) - 1);
      }
    }
  }
  return true;
}

/** The code after `huff` (both bit-reversed), `len` bits long. */
@inline
function nextCode(huff: u32, len: u32): u32 {
  let inc: u32 = 1 << (len - 1);
  while ((huff & inc) != 0) inc >>= 1;
  return inc != 0 ? (huff & (inc - 1)) + inc : 0;
}

/** Builds the fixed-code tables unless the scratch region holds them already. */
function initFixed(): void {
  if (load<u32>(FLAG) == FIXED_BUILT) return;
  for (let s: usize = 0; s < 288; s++) store<u8>(LENS + s, s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8);
  buildTable(LENS, 288, FIXED_LIT, LIT_ROOT, K_LIT, 1 << LIT_ROOT);
  for (let s: usize = 0; s < 32; s++) store<u8>(LENS + s, 5);
  buildTable(LENS, 32, FIXED_DIST, DIST_ROOT, K_DIST, 1 << DIST_ROOT);
  store<u32>(FLAG, FIXED_BUILT);
}

@inline
function clOrder(i: u32): usize {
  return i < 12 ? <usize>(CL_ORDER_LO >> (<u64>i * 5)) & 31 : <usize>(CL_ORDER_HI >> (<u64>(i - 12) * 5)) & 31;
}

/** Reads a dynamic block's header and builds its tables at DYN_LIT and DYN_DIST. */
function readDynamic(): i32 {
  if (!needBits(14)) return INFLATE_BAD;
  const nlen = peekBits(5) + 257;
  dropBits(5);
  const ndist = peekBits(5) + 1;
  dropBits(5);
  const ncode = peekBits(4) + 4;
  dropBits(4);
  if (nlen > 286 || ndist > 30) return INFLATE_BAD;
  for (let i: usize = 0; i < 19; i++) store<u8>(CL_LENS + i, 0);
  for (let i: u32 = 0; i < ncode; i++) {
    if (!needBits(3)) return INFLATE_BAD;
    store<u8>(CL_LENS + clOrder(i), <u8>peekBits(3));
    dropBits(3);
  }
  if (!buildTable(CL_LENS, 19, CL_TABLE, CL_ROOT, K_CL, 1 << CL_ROOT)) return INFLATE_BAD;

  const total = nlen + ndist;
  let i: u32 = 0;
  let inp = inPos;
  const end = inEnd;
  let bb = bitBuf;
  let bl = bitCount;
  while (i < total) {
    if (bl < 14) {
      // A code (7 bits at most) and its extra bits (7 at most).
      if (end - inp >= 8) {
        bb |= load<u64>(inp) << <u64>bl;
        inp += <usize>((63 - bl) >> 3);
        bl |= 56;
      } else {
        while (bl <= 56 && inp < end) {
          bb |= <u64>load<u8>(inp) << <u64>bl;
          inp++;
          bl += 8;
        }
      }
    }
    const e = load<u32>(CL_TABLE + ((<usize>bb & ((1 << CL_ROOT) - 1)) << 2));
    const n = e & 15;
    if (n > bl) return INFLATE_BAD;
    bb >>= <u64>n;
    bl -= n;
    const sym = e >> 16;
    if (sym < 16) {
      store<u8>(LENS + <usize>i, <u8>sym);
      i++;
      continue;
    }
    let value: u8 = 0;
    let extra: u32 = 7;
    let rep: u32 = 11;
    if (sym == 16) {
      if (i == 0) return INFLATE_BAD;
      value = load<u8>(LENS + <usize>(i - 1));
      extra = 2;
      rep = 3;
    } else if (sym == 17) {
      extra = 3;
      rep = 3;
    }
    if (extra > bl) return INFLATE_BAD;
    rep += <u32>bb & ((1 << extra) - 1);
    bb >>= <u64>extra;
    bl -= extra;
    if (rep > total - i) return INFLATE_BAD;
    memory.fill(LENS + <usize>i, value, rep);
    i += rep;
  }
  inPos = inp;
  bitBuf = bb;
  bitCount = bl;
  if (load<u8>(LENS + 256) == 0) return INFLATE_BAD;
  if (!buildTable(LENS, nlen, DYN_LIT, LIT_ROOT, K_LIT, LIT_CAP)) return INFLATE_BAD;
  if (!buildTable(LENS + <usize>nlen, ndist, DYN_DIST, DIST_ROOT, K_DIST, DIST_CAP)) return INFLATE_BAD;
  return INFLATE_OK;
}

/** A stored block, after its 3 header bits. */
function storedBlock(): i32 {
  alignToByte();
  if (inEnd - inPos < 4) return INFLATE_BAD;
  const len = <u32>load<u16>(inPos);
  if (len != (~<u32>load<u16>(inPos + 2) & 0xffff)) return INFLATE_BAD;
  inPos += 4;
  if (inEnd - inPos < <usize>len) return INFLATE_BAD;
  if (outEnd - outPos < <usize>len) return INFLATE_FULL;
  memory.copy(outPos, inPos, len);
  inPos += len;
  outPos += len;
  return INFLATE_OK;
}

/** The entry for the next code in table `t` (first level of `root` bits), second level resolved. */
@inline
function lookup(t: usize, root: u32, bits: u64): u32 {
  let e = load<u32>(t + ((<usize>bits & ((1 << root) - 1)) << 2));
  if ((e & E_SUB) != 0) {
    e = load<u32>(t + ((<usize>(e >> 16) + (<usize>(bits >> <u64>root) & ((1 << ((e >> 4) & 15)) - 1))) << 2));
  }
  return e;
}

/** The value of an entry with extra bits: its base plus the extra bits after its code. */
@inline
function withExtra(e: u32, bits: u64): u32 {
  return (e >> 16) + (<u32>(bits >> <u64>(e & 15)) & ((1 << ((e >> 4) & 15)) - 1));
}

/** Decodes the symbols of a Huffman block until its end-of-block code. */
function decodeBlock(lt: usize, dt: usize): i32 {
  let inp = inPos;
  const end = inEnd;
  let bb = bitBuf;
  let bl = bitCount;
  let out = outPos;
  const oend = outEnd;
  const start = outStart;
  let done = false;

  // Fast loop: 16 input bytes remain (two 8-byte refills) and any match fits before oend with room to spare. A
  // refill leaves at least 56 bits: enough for three literals (45), or for a length and a distance with their
  // extra bits (48). Refilling only adds bits above the ones an entry was looked up with.
  while (end - inp >= 16 && oend - out >= FAST_OUT) {
    bb |= load<u64>(inp) << <u64>bl;
    inp += <usize>((63 - bl) >> 3);
    bl |= 56;
    let e = lookup(lt, LIT_ROOT, bb);
    if ((e & E_LIT) != 0) {
      let n = e & 15;
      bb >>= <u64>n;
      bl -= n;
      store<u8>(out, <u8>(e >> 16));
      out++;
      e = lookup(lt, LIT_ROOT, bb); // at least 41 bits left
      if ((e & E_LIT) != 0) {
        n = e & 15;
        bb >>= <u64>n;
        bl -= n;
        store<u8>(out, <u8>(e >> 16));
        out++;
        e = lookup(lt, LIT_ROOT, bb); // at least 26 bits left
        if ((e & E_LIT) != 0) {
          n = e & 15;
          bb >>= <u64>n;
          bl -= n;
          store<u8>(out, <u8>(e >> 16));
          out++;
          continue;
        }
      }
      bb |= load<u64>(inp) << <u64>bl;
      inp += <usize>((63 - bl) >> 3);
      bl |= 56;
    }
    if ((e & (E_EOB | E_BAD)) != 0) {
      if ((e & E_BAD) != 0) return INFLATE_BAD;
      const n = e & 15;
      bb >>= <u64>n;
      bl -= n;
      done = true;
      break;
    }
    const len = <usize>withExtra(e, bb);
    let n = (e & 15) + ((e >> 4) & 15);
    bb >>= <u64>n;
    bl -= n;
    const d = lookup(dt, DIST_ROOT, bb);
    if ((d & E_BAD) != 0) return INFLATE_BAD;
    let dist = <usize>withExtra(d, bb);
    n = (d & 15) + ((d >> 4) & 15);
    bb >>= <u64>n;
    bl -= n;
    if (dist > out - start) return INFLATE_BAD;
    let from = out - dist;
    const to = out + len;
    if (dist >= 16) {
      do {
        v128.store(out, v128.load(from));
        out += 16;
        from += 16;
      } while (out < to);
    } else if (dist == 1) {
      const v = i8x16.splat(load<i8>(from));
      do {
        v128.store(out, v);
        out += 16;
      } while (out < to);
    } else {
      // Double the pattern until it spans 8 bytes (its copies start where it does), then 8 bytes at a time.
      while (dist < 8) {
        for (let k: usize = 0; k < dist; k++) store<u8>(out + k, load<u8>(from + k));
        out += dist;
        dist <<= 1;
      }
      from = out - dist;
      while (out < to) {
        store<u64>(out, load<u64>(from));
        out += 8;
        from += 8;
      }
    }
    out = to;
  }

  if (!done) {
    // Slow loop, byte by byte, every bound checked.
    while (true) {
      while (bl <= 56 && inp < end) {
        bb |= <u64>load<u8>(inp) << <u64>bl;
        inp++;
        bl += 8;
      }
      const e = lookup(lt, LIT_ROOT, bb);
      if ((e & E_BAD) != 0) return INFLATE_BAD;
      let n = e & 15;
      if (n > bl) return INFLATE_BAD; // the input ends inside the code
      if ((e & E_LIT) != 0) {
        if (out >= oend) return INFLATE_FULL;
        store<u8>(out, <u8>(e >> 16));
        out++;
        bb >>= <u64>n;
        bl -= n;
        continue;
      }
      if ((e & E_EOB) != 0) {
        bb >>= <u64>n;
        bl -= n;
        break;
      }
      n += (e >> 4) & 15;
      if (n > bl) return INFLATE_BAD;
      const len = <usize>withExtra(e, bb);
      bb >>= <u64>n;
      bl -= n;
      while (bl <= 56 && inp < end) {
        bb |= <u64>load<u8>(inp) << <u64>bl;
        inp++;
        bl += 8;
      }
      const d = lookup(dt, DIST_ROOT, bb);
      if ((d & E_BAD) != 0) return INFLATE_BAD;
      n = (d & 15) + ((d >> 4) & 15);
      if (n > bl) return INFLATE_BAD;
      const dist = <usize>withExtra(d, bb);
      bb >>= <u64>n;
      bl -= n;
      if (dist > out - start) return INFLATE_BAD;
      if (len > oend - out) return INFLATE_FULL;
      let from = out - dist;
      const to = out + len;
      while (out < to) {
        store<u8>(out, load<u8>(from));
        out++;
        from++;
      }
    }
  }
  inPos = inp;
  bitBuf = bb;
  bitCount = bl;
  outPos = out;
  return INFLATE_OK;
}

/** Adler-32 of [p, p + n), 16 bytes at a time in blocks short enough for 32-bit sums. */
function adler32(p: usize, n: usize): u32 {
  let a: u32 = 1;
  let b: u32 = 0;
  const hiWeights = i16x8(16, 15, 14, 13, 12, 11, 10, 9);
  const loWeights = i16x8(8, 7, 6, 5, 4, 3, 2, 1);
  while (n >= 16) {
    let chunks = n >> 4;
    if (chunks > 347) chunks = 347; // 5552 bytes: zlib's NMAX
    n -= chunks << 4;
    let s1 = i32x4.splat(0); // byte sums
    let s2 = i32x4.splat(0); // weighted byte sums within each chunk
    let ps = i32x4.splat(0); // sums of s1 before each chunk
    for (let k: usize = 0; k < chunks; k++) {
      const v = v128.load(p);
      ps = i32x4.add(ps, s1);
      s1 = i32x4.add(s1, i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(v)));
      s2 = i32x4.add(
        s2,
        i32x4.add(i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_u(v), hiWeights), i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_u(v), loWeights)),
      );
      p += 16;
    }
    const sum1 = <u64>(<u32>(i32x4.extract_lane(s1, 0) + i32x4.extract_lane(s1, 1) + i32x4.extract_lane(s1, 2) + i32x4.extract_lane(s1, 3)));
    const sum2 = <u64>(<u32>(i32x4.extract_lane(s2, 0) + i32x4.extract_lane(s2, 1) + i32x4.extract_lane(s2, 2) + i32x4.extract_lane(s2, 3)));
    const psum = <u64>(<u32>(i32x4.extract_lane(ps, 0) + i32x4.extract_lane(ps, 1) + i32x4.extract_lane(ps, 2) + i32x4.extract_lane(ps, 3)));
    b = <u32>((<u64>b + <u64>a * (<u64>chunks << 4) + (psum << 4) + sum2) % 65521);
    a = <u32>((<u64>a + sum1) % 65521);
  }
  while (n != 0) {
    a += <u32>load<u8>(p);
    b += a;
    p++;
    n--;
  }
  return ((b % 65521) << 16) | (a % 65521);
}

/**
 * Inflates the zlib stream at src[0, srcLen) into dst[0, dstCap). Returns INFLATE_OK (0), INFLATE_BAD (1: anything
 * node's zlib.inflateSync would refuse: bad header, FDICT set, bad block type, invalid/over-subscribed/incomplete
 * code lengths (with zlib's exact exceptions, e.g. a distance code set with a single code is accepted), invalid
 * symbol, distance too far back, truncated input, Adler-32 mismatch), or INFLATE_FULL (2: the output would exceed
 * dstCap).
 */
export function zlibInflate(src: usize, srcLen: i32, dst: usize, dstCap: i32): i32 {
  inflatedBytes = 0;
  consumedBytes = 0;
  if (srcLen < 2) return INFLATE_BAD;
  const cmf = <u32>load<u8>(src);
  const flg = <u32>load<u8>(src + 1);
  if (((cmf << 8) | flg) % 31 != 0 || (cmf & 15) != 8 || cmf >> 4 > 7 || (flg & 0x20) != 0) return INFLATE_BAD;
  inPos = src + 2;
  inEnd = src + <usize>srcLen;
  bitBuf = 0;
  bitCount = 0;
  outStart = dst;
  outPos = dst;
  outEnd = dst + <usize>(dstCap < 0 ? 0 : dstCap);
  let last: u32 = 0;
  do {
    if (!needBits(3)) return INFLATE_BAD;
    last = peekBits(1);
    const type = peekBits(3) >> 1;
    dropBits(3);
    let status: i32;
    if (type == 0) {
      status = storedBlock();
    } else if (type == 1) {
      initFixed();
      status = decodeBlock(FIXED_LIT, FIXED_DIST);
    } else if (type == 2) {
      status = readDynamic();
      if (status == INFLATE_OK) status = decodeBlock(DYN_LIT, DYN_DIST);
    } else {
      return INFLATE_BAD;
    }
    if (status != INFLATE_OK) return status;
  } while (last == 0);
  alignToByte();
  if (inEnd - inPos < 4) return INFLATE_BAD;
  if (adler32(outStart, outPos - outStart) != bswap<u32>(load<u32>(inPos))) return INFLATE_BAD;
  inflatedBytes = <i32>(outPos - outStart);
  consumedBytes = <i32>(inPos + 4 - src);
  return INFLATE_OK;
}
