// The WebAssembly zlib inflater (decoders/wasm/inflate.ts), compiled here with the locked AssemblyScript compiler
// and checked against node's zlib: same output, same bytes consumed, and a refusal exactly where node throws.
//
// Memory during a call: [65536, 131072) is the inflater's scratch, the source at 131072 and the destination right
// after it (or, to make any read past the source trap, the destination at 131072 and the source ending exactly at
// the end of memory; or, to see a distance past the start of the output taken, ZERO_GAP zero bytes between them).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  constants,
  createDeflate,
  deflateSync,
  gunzipSync,
  inflateRawSync,
  inflateSync,
  type ZlibOptions,
} from 'node:zlib';
import asc from 'assemblyscript/asc';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeEvents, pack } from './fixtures.js';

const root = join(import.meta.dirname, '..', '..');
const FLAGS = ['-O3', '--runtime', 'stub', '--enable', 'simd', '--noAssert', '--initialMemory', '0'];

const OK = 0;
const BAD = 1;
const FULL = 2;

const PAGE = 65536;
const SCRATCH_START = 65536;
const SRC = 131072;
const GUARD = 64;
const GUARD_BYTE = 0xa5;
const ZERO_GAP = 40000;

interface InflateExports {
  memory: WebAssembly.Memory;
  zlibInflate(src: number, srcLen: number, dst: number, dstCap: number): number;
  inflatedBytes: WebAssembly.Global;
  consumedBytes: WebAssembly.Global;
}

type Layout = 'src-first' | 'src-at-end' | 'zero-gap';

interface Result {
  status: number;
  out: Buffer;
  consumed: number;
}

let wasmModule: WebAssembly.Module;
let shared: Inflater;

async function compile(): Promise<Uint8Array<ArrayBuffer>> {
  let wasm: Uint8Array<ArrayBuffer> | undefined;
  const { error, stderr } = await asc.main(
    ['decoders/wasm/inflate.ts', ...FLAGS, '--baseDir', root, '--outFile', 'inflate.wasm'],
    {
      readFile: (name: string, baseDir: string) => {
        try {
          return readFileSync(join(baseDir, name), 'utf8');
        } catch {
          return null;
        }
      },
      writeFile: (name: string, contents: Uint8Array | string) => {
        if (name.endsWith('.wasm') && typeof contents !== 'string') wasm = new Uint8Array(contents);
      },
      listFiles: () => [],
    },
  );
  if (error) throw new Error(`asc failed: ${error.message}\n${stderr.toString()}`);
  if (wasm === undefined) throw new Error('asc produced no module');
  return wasm;
}

/** One instance of the module, and calls laid out in its memory. */
class Inflater {
  readonly ex: InflateExports;

  constructor() {
    const instance = new WebAssembly.Instance(wasmModule, {});
    this.ex = instance.exports as unknown as InflateExports;
  }

  get bytes(): Uint8Array {
    return new Uint8Array(this.ex.memory.buffer);
  }

  ensure(size: number): void {
    const have = this.ex.memory.buffer.byteLength;
    if (size > have) this.ex.memory.grow(Math.ceil((size - have) / PAGE));
  }

  /** Inflates `src` into a destination of `cap` bytes; checks that nothing past the destination was written. */
  run(src: Uint8Array, cap: number, layout: Layout = 'src-first'): Result {
    let srcAt: number;
    let dst: number;
    if (layout === 'src-first') {
      this.ensure(SRC + src.length + cap + GUARD);
      srcAt = SRC;
      dst = SRC + src.length;
    } else if (layout === 'zero-gap') {
      this.ensure(SRC + src.length + ZERO_GAP + cap + GUARD);
      srcAt = SRC;
      dst = SRC + src.length + ZERO_GAP;
      this.bytes.fill(0, dst - ZERO_GAP, dst);
    } else {
      this.ensure(SRC + cap + GUARD + src.length);
      dst = SRC;
      srcAt = this.ex.memory.buffer.byteLength - src.length;
    }
    let mem = this.bytes;
    mem.set(src, srcAt);
    const guardEnd = Math.min(dst + cap + GUARD, layout === 'src-at-end' ? srcAt : mem.length);
    mem.fill(GUARD_BYTE, dst + cap, guardEnd);
    const status = this.ex.zlibInflate(srcAt, src.length, dst, cap);
    mem = this.bytes;
    for (let i = dst + cap; i < guardEnd; i++) {
      if (mem[i] !== GUARD_BYTE) throw new Error(`byte ${i - dst - cap} past the destination was written`);
    }
    if (Buffer.compare(mem.subarray(srcAt, srcAt + src.length), src) !== 0) throw new Error('the source was written');
    const n = status === OK ? (this.ex.inflatedBytes.value as number) : 0;
    return { status, out: Buffer.from(mem.subarray(dst, dst + n)), consumed: this.ex.consumedBytes.value as number };
  }

  /** The status once the destination is large enough not to be the reason (doubling it after INFLATE_FULL). */
  settle(src: Uint8Array, cap: number, layout: Layout = 'src-first'): Result {
    // Deflate cannot expand more than 1032:1 (a 258-byte match per 2 bits), so a larger destination never fills.
    const most = src.length * 1032 + 1024;
    for (;;) {
      const r = this.run(src, cap, layout);
      if (r.status !== FULL || cap >= most) return r;
      cap = Math.min(most, cap * 2 + 1024);
    }
  }
}

type NodeResult = { ok: true; out: Buffer; consumed: number } | { ok: false; error: string };

function nodeInflate(src: Uint8Array): NodeResult {
  try {
    const r = inflateSync(src, { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    return { ok: true, out: r.buffer, consumed: r.engine.bytesWritten };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/**
 * Compares the module with node on `src`: '' when they agree, else what differs. When node inflates it: the
 * same bytes and the same count of bytes consumed with a destination of exactly that size, INFLATE_FULL with one
 * byte less. When node throws: INFLATE_BAD (after growing the destination as long as the module reports
 * INFLATE_FULL).
 */
function differ(
  inf: Inflater,
  src: Uint8Array,
  layout: Layout = 'src-first',
): { diff: string; ok: boolean; ref: NodeResult } {
  const ref = nodeInflate(src);
  if (ref.ok) {
    const r = inf.run(src, ref.out.length, layout);
    if (r.status !== OK)
      return { diff: `node inflates ${ref.out.length} bytes, the module returns ${r.status}`, ok: true, ref };
    if (!r.out.equals(ref.out))
      return { diff: `different output (${r.out.length} vs node's ${ref.out.length} bytes)`, ok: true, ref };
    if (r.consumed !== ref.consumed) return { diff: `consumed ${r.consumed}, node ${ref.consumed}`, ok: true, ref };
    if (ref.out.length > 0) {
      const short = inf.run(src, ref.out.length - 1, layout);
      if (short.status !== FULL) return { diff: `one byte short: status ${short.status}`, ok: true, ref };
    }
    return { diff: '', ok: true, ref };
  }
  const r = inf.settle(src, 4096, layout);
  const diff = r.status === BAD ? '' : `node throws (${ref.error}), the module returns ${r.status}`;
  return { diff, ok: false, ref };
}

function expectSame(src: Uint8Array, label: string, layout: Layout = 'src-first'): boolean {
  const { diff, ok } = differ(shared, src, layout);
  expect(diff, label).toBe('');
  return ok;
}

function adler32(b: Uint8Array): number {
  let a = 1;
  let s = 0;
  for (let i = 0; i < b.length; i++) {
    a = (a + b[i]) % 65521;
    s = (s + a) % 65521;
  }
  return ((s << 16) | a) >>> 0;
}

function be32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v >>> 0);
  return b;
}

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomBytes(n: number, seed: number): Buffer {
  const r = prng(seed);
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (r() * 256) | 0;
  return b;
}

// ---------------------------------------------------------------------------------------------------------------
// Hand-made deflate streams.

const LBASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
];
const LEXT = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DBASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577,
];
const DEXT = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
const FIXED_LIT = Array.from({ length: 288 }, (_, s) => (s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8));
const FIXED_DIST = new Array<number>(32).fill(5);

/** Canonical codes (RFC 1951 3.2.2) of a set of code lengths; -1 for symbols without a code. */
function canonical(lens: number[]): number[] {
  const count = new Array<number>(16).fill(0);
  for (const l of lens) if (l > 0) count[l]++;
  const next = new Array<number>(16).fill(0);
  let code = 0;
  for (let l = 1; l < 16; l++) {
    code = (code + count[l - 1]) << 1;
    next[l] = code;
  }
  return lens.map((l) => (l > 0 ? next[l]++ : -1));
}

/**
 * A token of a Huffman block: a literal/length symbol sent as is (a literal, 256, or anything else), a match, a
 * match whose distance symbol is sent as is (no extra bits), or raw bits.
 */
type Token =
  | number
  | { len: number; dist: number }
  | { len: number; distSym: number }
  | { bits: number; count: number };

class BitWriter {
  private readonly bytes: number[] = [];
  private acc = 0;
  private n = 0;
  /** What a correct decoder outputs for the tokens written so far. */
  readonly out: number[] = [];

  put(value: number, count: number): this {
    for (let i = 0; i < count; i++) {
      this.acc |= ((value >>> i) & 1) << this.n;
      if (++this.n === 8) {
        this.bytes.push(this.acc);
        this.acc = 0;
        this.n = 0;
      }
    }
    return this;
  }

  /** A Huffman code, most significant bit first. */
  code(code: number, len: number): this {
    if (code < 0) throw new Error('no code for this symbol');
    for (let i = len - 1; i >= 0; i--) this.put((code >>> i) & 1, 1);
    return this;
  }

  align(fill = 0): this {
    while (this.n !== 0) this.put(fill, 1);
    return this;
  }

  raw(b: Uint8Array): this {
    this.align();
    for (const x of b) this.bytes.push(x);
    return this;
  }

  finish(): Buffer {
    this.align();
    return Buffer.from(this.bytes);
  }

  stored(data: Uint8Array, final: boolean, padding = 0): this {
    this.put(final ? 1 : 0, 1)
      .put(0, 2)
      .align(padding);
    this.raw(Uint8Array.of(data.length & 0xff, data.length >> 8, ~data.length & 0xff, (~data.length >> 8) & 0xff)).raw(
      data,
    );
    for (const x of data) this.out.push(x);
    return this;
  }

  fixed(tokens: Token[], final: boolean): this {
    this.put(final ? 1 : 0, 1).put(1, 2);
    return this.tokens(tokens, FIXED_LIT, FIXED_DIST);
  }

  /**
   * A dynamic block. The code lengths are sent with the code-length code `clLens` (default: a complete code for
   * all 19 symbols), one symbol per length unless `clSeq` gives the code-length symbols (with their extra bits).
   */
  dynamic(
    litLens: number[],
    distLens: number[],
    tokens: Token[],
    final: boolean,
    clLens?: number[],
    clSeq?: Array<[number, number]>,
  ): this {
    const cl = clLens ?? Array.from({ length: 19 }, (_, s) => (s < 13 ? 4 : 5));
    let hclen = 19;
    while (hclen > 4 && cl[CL_ORDER[hclen - 1]] === 0) hclen--;
    this.put(final ? 1 : 0, 1).put(2, 2);
    this.put(litLens.length - 257, 5)
      .put(distLens.length - 1, 5)
      .put(hclen - 4, 4);
    for (let i = 0; i < hclen; i++) this.put(cl[CL_ORDER[i]], 3);
    const clCodes = canonical(cl);
    const seq: Array<[number, number]> = clSeq ?? [...litLens, ...distLens].map((l): [number, number] => [l, 0]);
    for (const [sym, extra] of seq) {
      this.code(clCodes[sym], cl[sym]);
      if (sym === 16) this.put(extra, 2);
      else if (sym === 17) this.put(extra, 3);
      else if (sym === 18) this.put(extra, 7);
    }
    return this.tokens(tokens, litLens, distLens);
  }

  private tokens(tokens: Token[], litLens: number[], distLens: number[]): this {
    const lit = canonical(litLens);
    const dist = canonical(distLens);
    for (const t of tokens) {
      if (typeof t === 'number') {
        this.code(lit[t], litLens[t]);
        if (t < 256) this.out.push(t);
      } else if ('bits' in t) {
        this.put(t.bits, t.count);
      } else {
        let i = LBASE.length - 1;
        while (LBASE[i] > t.len) i--;
        this.code(lit[257 + i], litLens[257 + i]).put(t.len - LBASE[i], LEXT[i]);
        if ('distSym' in t) {
          this.code(dist[t.distSym], distLens[t.distSym]);
        } else {
          let j = DBASE.length - 1;
          while (DBASE[j] > t.dist) j--;
          this.code(dist[j], distLens[j]).put(t.dist - DBASE[j], DEXT[j]);
          // (Distances past the start read zeros: the trailer then suits a decoder that would read the zeros
          // the 'zero-gap' layout puts before the destination.)
          for (let k = 0; k < t.len; k++) this.out.push(this.out[this.out.length - t.dist] ?? 0);
        }
      }
    }
    return this;
  }
}

/** A zlib stream around a deflate body, with the Adler-32 of `out` (by default what the body should give). */
function zlibOf(w: BitWriter, header = [0x78, 0x9c], out: number[] = w.out): Buffer {
  return Buffer.concat([Buffer.from(header), w.finish(), be32(adler32(Uint8Array.from(out)))]);
}

function lens(n: number, set: Record<number, number>): number[] {
  const l = new Array<number>(n).fill(0);
  for (const [s, v] of Object.entries(set)) l[Number(s)] = v;
  return l;
}

/** A complete literal/length code: 'a', 'b', 'c', end-of-block and the length symbols 257..260, all 3 bits long. */
const ABLIT = lens(261, { 97: 3, 98: 3, 256: 3, 257: 3, 258: 3, 259: 3, 260: 3, 99: 3 });
/** A complete distance code of 4 codes. */
const DIST4 = [2, 2, 2, 2];

function expectVerdict(stream: Buffer, verdict: 'ok' | 'bad', label: string, out?: string): void {
  const ref = nodeInflate(stream);
  expect(ref.ok ? 'ok' : 'bad', `node on ${label}${ref.ok ? '' : ` (${ref.error})`}`).toBe(verdict);
  expectSame(stream, label);
  expectSame(stream, `${label} (zeros before the destination)`, 'zero-gap');
  if (out !== undefined && ref.ok) expect(ref.out.toString('latin1'), label).toBe(out);
}

// ---------------------------------------------------------------------------------------------------------------
// Payloads.

const events = makeEvents(400, 7);

function rrwebJson(bytes: number, seed: number): Buffer {
  const all = makeEvents(Math.max(8, Math.ceil(bytes / 150)), seed);
  let text = JSON.stringify(all);
  while (text.length < bytes) text += JSON.stringify(all);
  return Buffer.from(text.slice(0, bytes), 'utf8');
}

/** The zlib streams of the events of the version 2 sample files (some events there are plain JSON: skipped). */
function sampleStreams(): Buffer[] {
  const out: Buffer[] = [];
  const dir = join(root, 'samples', 'files');
  for (const replay of readdirSync(dir)) {
    const v2 = join(dir, replay, 'v2');
    let files: string[];
    try {
      files = readdirSync(v2);
    } catch {
      continue;
    }
    for (const f of files.filter((x) => x.endsWith('.json.gz'))) {
      const elements = JSON.parse(gunzipSync(readFileSync(join(v2, f))).toString('utf8')) as unknown[];
      for (let e of elements) {
        if (typeof e !== 'string') continue;
        if (e.startsWith('"')) e = JSON.parse(e) as string;
        const b = Buffer.from(e as string, 'latin1');
        if (b[0] === 0x78) out.push(b);
      }
    }
  }
  return out;
}

let packedCache: Buffer[] | undefined;

/** The events packed as rrweb's and Amplitude's packers do (fflate's zlib streams), one after the other. */
function packedEvents(): Buffer[] {
  packedCache ??= events.map((e, i) => Buffer.from(pack(e, i % 2 === 0 ? 'rrweb' : 'amplitude'), 'latin1'));
  return packedCache;
}

async function flushedStream(parts: Buffer[], flushes: number[], opts: ZlibOptions): Promise<Buffer> {
  const d = createDeflate(opts);
  const chunks: Buffer[] = [];
  d.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    d.on('end', resolve);
    d.on('error', reject);
  });
  for (let i = 0; i < parts.length; i++) {
    d.write(parts[i]);
    await new Promise<void>((resolve) => d.flush(flushes[i % flushes.length], () => resolve()));
  }
  d.end();
  await ended;
  return Buffer.concat(chunks);
}

const STRATEGIES = [
  constants.Z_DEFAULT_STRATEGY,
  constants.Z_FILTERED,
  constants.Z_HUFFMAN_ONLY,
  constants.Z_RLE,
  constants.Z_FIXED,
];

beforeAll(async () => {
  wasmModule = new WebAssembly.Module(await compile());
  shared = new Inflater();
});

describe('WebAssembly zlib inflater: well-formed streams', () => {
  it('exports zlibInflate, inflatedBytes, consumedBytes and its memory, nothing else', () => {
    expect(
      WebAssembly.Module.exports(wasmModule)
        .map((e) => `${e.name}:${e.kind}`)
        .sort(),
    ).toEqual(['consumedBytes:global', 'inflatedBytes:global', 'memory:memory', 'zlibInflate:function']);
    expect(WebAssembly.Module.imports(wasmModule)).toEqual([]);
  });

  it('inflates empty and one-byte inputs at every level and strategy', () => {
    const inputs = [Buffer.alloc(0), ...Array.from({ length: 256 }, (_, v) => Buffer.of(v))];
    for (const input of inputs) {
      for (const level of [0, 1, 6, 9]) {
        for (const strategy of STRATEGIES) {
          const z = deflateSync(input, { level, strategy });
          const r = shared.run(z, input.length);
          expect(r.status).toBe(OK);
          expect(r.out.equals(input)).toBe(true);
          expect(r.consumed).toBe(z.length);
          if (input.length > 0) expect(shared.run(z, 0).status).toBe(FULL);
        }
      }
    }
    // Empty input: the destination can have no room at all.
    expect(shared.run(deflateSync(Buffer.alloc(0)), 0).status).toBe(OK);
  });

  it('refuses sources of 0 and 1 bytes', () => {
    expect(expectSame(Buffer.alloc(0), 'empty source')).toBe(false);
    for (let v = 0; v < 256; v++) expect(expectSame(Buffer.of(v), `the byte ${v}`)).toBe(false);
  });

  it('inflates every level × strategy × windowBits × memLevel of an rrweb-like payload', () => {
    const payload = rrwebJson(6000, 3);
    for (let level = 0; level <= 9; level++) {
      for (const strategy of STRATEGIES) {
        for (let windowBits = 8; windowBits <= 15; windowBits++) {
          for (let memLevel = 1; memLevel <= 9; memLevel++) {
            expectSame(
              deflateSync(payload, { level, strategy, windowBits, memLevel }),
              `level ${level} strategy ${strategy} wb ${windowBits} ml ${memLevel}`,
            );
          }
        }
      }
    }
  });

  it('inflates random and rrweb-like payloads of many sizes with random settings', () => {
    const r = prng(99);
    for (let i = 0; i < 400; i++) {
      const size = Math.floor(Math.exp(r() * Math.log(60000)));
      const kind = i % 4;
      const payload =
        kind === 0
          ? randomBytes(size, i)
          : kind === 1
            ? rrwebJson(size, i)
            : kind === 2
              ? Buffer.from(JSON.stringify(events.slice(0, 1 + (i % 40))), 'utf8')
              : Buffer.from(Array.from({ length: size }, (_, k) => (r() < 0.9 ? 97 + (k % 3) : (r() * 256) | 0)));
      const opts: ZlibOptions = {
        level: Math.floor(r() * 10),
        strategy: STRATEGIES[Math.floor(r() * STRATEGIES.length)],
        windowBits: 8 + Math.floor(r() * 8),
        memLevel: 1 + Math.floor(r() * 9),
      };
      const z = deflateSync(payload, opts);
      expectSame(z, `payload ${i} (${size} bytes, ${JSON.stringify(opts)})`, i % 2 === 0 ? 'src-first' : 'src-at-end');
    }
  });

  it('inflates packed rrweb events (fflate, both packers) and the events of the version 2 samples', () => {
    const packed = packedEvents();
    const samples = sampleStreams();
    expect(samples.length).toBeGreaterThan(100);
    let inflated = 0;
    for (const [i, z] of [...packed, ...samples].entries()) {
      if (expectSame(z, `event ${i}`, i % 2 === 0 ? 'src-first' : 'src-at-end')) inflated++;
    }
    expect(inflated).toBe(packed.length + samples.length);
  });

  it('inflates outputs of 1 MB and more: long and overlapping matches, short periods, JSON, stored blocks', () => {
    const big: Array<[string, Buffer]> = [
      ['a × 1e6', Buffer.from('a'.repeat(1e6))],
      ['random 1 MB', randomBytes(1 << 20, 5)],
      ['JSON 1.5 MB', rrwebJson(1_500_000, 8)],
    ];
    for (let period = 2; period <= 20; period++) {
      const unit = Buffer.from('abcdefghijklmnopqrstuvwxyz'.slice(0, period));
      big.push([`period ${period}`, Buffer.concat(new Array<Buffer>(Math.ceil(1_100_000 / period)).fill(unit))]);
    }
    // A 40 KB random block repeated: matches as far back as the window allows.
    const block = randomBytes(40000, 6);
    big.push(['repeated 40 KB random block', Buffer.concat([block, block, block.subarray(0, 20000), block])]);
    for (const [label, data] of big) {
      const settings: ZlibOptions[] = label.startsWith('period')
        ? [{ level: 6 }, { level: 1, strategy: constants.Z_RLE }]
        : [{ level: 0 }, { level: 1 }, { level: 9 }, { level: 6, strategy: constants.Z_FIXED }];
      for (const opts of settings) {
        const z = deflateSync(data, opts);
        const r = shared.run(z, data.length);
        expect(r.status, `${label} ${JSON.stringify(opts)}`).toBe(OK);
        expect(r.out.equals(data), `${label} ${JSON.stringify(opts)}`).toBe(true);
        expect(r.consumed).toBe(z.length);
        expect(shared.run(z, data.length - 1).status, `${label} one byte short`).toBe(FULL);
      }
    }
  });

  it('inflates multi-block streams (sync, full, partial and block flushes between writes)', async () => {
    const parts: Buffer[] = Array.from({ length: 12 }, (_, i) =>
      Buffer.from(JSON.stringify(events.slice(i * 10, i * 10 + 10 + i * 7))),
    );
    parts.push(randomBytes(70000, 12), Buffer.alloc(0), Buffer.from('x'));
    const flushSets = [
      [constants.Z_SYNC_FLUSH],
      [constants.Z_FULL_FLUSH],
      [constants.Z_PARTIAL_FLUSH],
      [constants.Z_BLOCK],
      [
        constants.Z_SYNC_FLUSH,
        constants.Z_FULL_FLUSH,
        constants.Z_PARTIAL_FLUSH,
        constants.Z_BLOCK,
        constants.Z_NO_FLUSH,
      ],
    ];
    for (const flushes of flushSets) {
      for (const opts of [
        { level: 1 },
        { level: 6 },
        { level: 9, strategy: constants.Z_FIXED },
        { level: 0 },
      ] as ZlibOptions[]) {
        const z = await flushedStream(parts, flushes, opts);
        expect(nodeInflate(z).ok).toBe(true);
        expectSame(z, `flushes ${flushes.join(',')} ${JSON.stringify(opts)}`);
      }
    }
    // Large input at level 1: many dynamic blocks.
    const large = rrwebJson(3_000_000, 21);
    expectSame(deflateSync(large, { level: 1 }), 'level 1, 3 MB');
  });

  it('reports the bytes the stream used when bytes follow it, as node does', () => {
    for (const [i, tail] of [
      Buffer.of(0),
      Buffer.from('garbage'),
      deflateSync(Buffer.from('second stream')),
      randomBytes(100, 3),
    ].entries()) {
      const z = deflateSync(Buffer.from(JSON.stringify(events.slice(0, 5 + i))));
      const src = Buffer.concat([z, tail]);
      expectSame(src, `tail ${i}`);
      expect(shared.run(src, 1 << 20).consumed).toBe(z.length);
    }
  });
});

describe('WebAssembly zlib inflater: what zlib accepts and refuses', () => {
  it('checks every two-byte header as zlib does (FCHECK, CM 8, CINFO ≤ 7, FDICT clear)', () => {
    const body = [0x03, 0x00, 0, 0, 0, 1]; // a final fixed block with only end-of-block, Adler-32 of nothing
    // The module on all 65,536 headers. node on every header whose FCHECK holds (those its other rules decide) and on
    // every 64th of the others, which zlib refuses at its first check: node makes a new inflate stream for each call,
    // and all 65,536 of them cost 40 times what the module does (over a minute on a loaded machine).
    const accepted: number[] = [];
    const acceptedByNode: number[] = [];
    for (let h = 0; h < 65536; h++) {
      const src = Buffer.from([h >> 8, h & 0xff, ...body]);
      if (shared.settle(src, 4096).status === OK) accepted.push(h);
      if (h % 31 !== 0 && h % 64 !== 0) continue;
      const { diff, ok } = differ(shared, src);
      if (diff !== '') expect(diff, `header ${h.toString(16)}`).toBe('');
      if (ok) acceptedByNode.push(h);
    }
    const expected: number[] = [];
    for (let h = 0; h < 65536; h++)
      if (h % 31 === 0 && ((h >> 8) & 15) === 8 && h >> 12 <= 7 && (h & 0x20) === 0) expected.push(h);
    expect(accepted).toEqual(expected);
    expect(acceptedByNode).toEqual(expected);
  });

  it('takes distances up to the output so far, whatever window CINFO declares', () => {
    // 32768 bytes stored, then a match 32768 back (deflate's largest distance).
    const data = randomBytes(32768, 4);
    const far = new BitWriter().stored(data, false).fixed([{ len: 258, dist: 32768 }, 256], true);
    expectVerdict(zlibOf(far), 'ok', 'distance 32768');
    // CINFO 0 (a 256-byte window) with a match 1000 back: zlib is not built with INFLATE_STRICT.
    const w = new BitWriter().stored(randomBytes(1000, 5), false).fixed([{ len: 10, dist: 1000 }, 256], true);
    expectVerdict(zlibOf(w, [0x08, 0x1d]), 'ok', 'CINFO 0, distance 1000');
    // A distance as long as the output is fine, one more is not (also across blocks).
    expectVerdict(
      zlibOf(new BitWriter().fixed([97, 98, { len: 5, dist: 2 }, 256], true)),
      'ok',
      'distance = output',
      'abababa',
    );
    expectVerdict(
      zlibOf(new BitWriter().fixed([97, 98, { len: 5, dist: 3 }, 256], true)),
      'bad',
      'distance = output + 1',
    );
    expectVerdict(zlibOf(new BitWriter().fixed([{ len: 3, dist: 1 }, 256], true)), 'bad', 'a match before any output');
    expectVerdict(
      zlibOf(
        new BitWriter()
          .fixed([97, 256], false)
          .stored(Buffer.from('bc'), false)
          .fixed([{ len: 4, dist: 3 }, 256], true),
      ),
      'ok',
      'across blocks',
      'abcabca',
    );
    expectVerdict(
      zlibOf(
        new BitWriter()
          .fixed([97, 256], false)
          .stored(Buffer.from('bc'), false)
          .fixed([{ len: 4, dist: 4 }, 256], true),
      ),
      'bad',
      'across blocks, one too far',
    );
    // The same with plenty of input and output left (the decoder's fast loop).
    const tail = Array.from({ length: 300 }, (_, i) => 97 + (i % 26));
    const alphabet = tail.map((c) => String.fromCharCode(c)).join('');
    expectVerdict(
      zlibOf(new BitWriter().fixed([97, 98, { len: 5, dist: 2 }, ...tail, 256], true)),
      'ok',
      'distance = output, long',
      'abababa' + alphabet,
    );
    expectVerdict(
      zlibOf(new BitWriter().fixed([97, 98, { len: 5, dist: 3 }, ...tail, 256], true)),
      'bad',
      'distance = output + 1, long',
    );
    expectVerdict(
      zlibOf(new BitWriter().fixed([{ len: 3, dist: 1 }, ...tail, 256], true)),
      'bad',
      'a match before any output, long',
    );
    const stored = randomBytes(5000, 8);
    expectVerdict(
      zlibOf(new BitWriter().stored(stored, false).fixed([{ len: 10, dist: 5000 }, ...tail, 256], true)),
      'ok',
      'distance = output after a stored block',
    );
    expectVerdict(
      zlibOf(new BitWriter().stored(stored, false).fixed([{ len: 10, dist: 5001 }, ...tail, 256], true)),
      'bad',
      'distance = output + 1 after a stored block',
    );
  });

  it('follows zlib on literal/length and distance symbols no code stands for', () => {
    for (const sym of [286, 287])
      expectVerdict(zlibOf(new BitWriter().fixed([97, sym, 256], true)), 'bad', `fixed literal/length ${sym}`);
    for (const distSym of [30, 31])
      expectVerdict(
        zlibOf(new BitWriter().fixed([97, { len: 3, distSym }, 256], true)),
        'bad',
        `fixed distance ${distSym}`,
      );
    // Length symbol 284 with all its extra bits set is 258 too: zlib takes it.
    const alt = new BitWriter().fixed([97, 284, { bits: 31, count: 5 }, { bits: 0, count: 5 }, 256], true);
    expectVerdict(
      zlibOf(
        alt,
        undefined,
        [...'a'.repeat(259)].map((c) => c.charCodeAt(0)),
      ),
      'ok',
      'length symbol 284 + 31',
    );
  });

  it('follows zlib on incomplete and over-subscribed codes, with its exceptions', () => {
    const lit = lens(258, { 97: 2, 98: 2, 256: 2, 257: 2 });
    // A distance code of one 1-bit code: accepted, its other bit pattern is an invalid code.
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lit, [1], [97, 98, { len: 3, dist: 1 }, 256], true)),
      'ok',
      'one distance code',
      'abbbb',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lit, [0, 1], [97, 98, { len: 3, dist: 2 }, 256], true)),
      'ok',
      'one distance code (symbol 1)',
      'ababa',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lit, [1], [97, 98, 257, { bits: 1, count: 1 }, 256], true)),
      'bad',
      'the unused 1-bit distance pattern',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lit, [2], [97, 98, { len: 3, dist: 1 }, 256], true)),
      'bad',
      'one 2-bit distance code',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lit, [1, 2], [97, 98, { len: 3, dist: 1 }, 256], true)),
      'bad',
      'incomplete distance code',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lit, [1, 1, 1], [97, 98, { len: 3, dist: 1 }, 256], true)),
      'bad',
      'over-subscribed distance code',
    );
    // No distance codes at all: fine while no match comes.
    expectVerdict(zlibOf(new BitWriter().dynamic(lit, [0], [97, 98, 97, 256], true)), 'ok', 'no distance codes', 'aba');
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lit, [0, 0, 0, 0], [97, 98, 97, 256], true)),
      'ok',
      'no distance codes (4 zero lengths)',
      'aba',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lit, [0], [97, 98, 257, { bits: 0, count: 4 }, 256], true)),
      'bad',
      'a match without distance codes',
    );
    // A literal/length code of end-of-block alone, 1 bit: accepted.
    const eobOnly = lens(257, { 256: 1 });
    expectVerdict(
      zlibOf(new BitWriter().dynamic(eobOnly, [0], [256], false).fixed([99, 256], true)),
      'ok',
      'end-of-block alone',
      'c',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(eobOnly, [0], [{ bits: 1, count: 1 }], true)),
      'bad',
      'the unused 1-bit literal/length pattern',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lens(257, { 256: 2 }), [0], [256], true)),
      'bad',
      'end-of-block alone, 2 bits',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lens(257, { 97: 2, 98: 2, 256: 2 }), [0], [97, 256], true)),
      'bad',
      'incomplete literal/length code',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lens(257, { 97: 1, 98: 1, 256: 1 }), [0], [97, 256], true)),
      'bad',
      'over-subscribed literal/length code',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lens(257, { 97: 1, 98: 1 }), [0], [97, 98], true)),
      'bad',
      'no end-of-block code',
    );
    // The code-length code: no exception.
    const cl = Array.from({ length: 19 }, (_, s) => (s < 13 ? 4 : 5));
    expectVerdict(
      zlibOf(new BitWriter().dynamic(ABLIT, DIST4, [97, 256], true, cl)),
      'ok',
      'complete code-length code',
      'a',
    );
    expectVerdict(
      zlibOf(
        new BitWriter().dynamic(
          ABLIT,
          DIST4,
          [97, 256],
          true,
          cl.map((l, s) => (s === 18 ? 0 : l)),
        ),
      ),
      'bad',
      'incomplete code-length code',
    );
    expectVerdict(
      zlibOf(
        new BitWriter().dynamic(
          ABLIT,
          DIST4,
          [97, 256],
          true,
          cl.map((l, s) => (s === 18 ? 4 : l)),
        ),
      ),
      'bad',
      'over-subscribed code-length code',
    );
    const ones = new Array<[number, number]>(258).fill([1, 0]);
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lens(257, { 256: 1 }), [1], [], true, lens(19, { 1: 1 }), ones)),
      'bad',
      'a code-length code of one 1-bit code',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lens(257, { 256: 1 }), [1], [256], true, new Array<number>(19).fill(0), [])),
      'bad',
      'no code-length codes',
    );
  });

  it('builds the tables of each dynamic block from its own code lengths only', () => {
    // Block 1: 282 literal/length codes, 272..275 of them 9 to 11 bits long.
    const first = lens(282, {
      97: 1,
      256: 2,
      276: 3,
      277: 4,
      278: 5,
      279: 6,
      280: 7,
      281: 8,
      272: 9,
      273: 10,
      274: 11,
      275: 11,
    });
    // Block 2: 260 literal/length and 12 distance codes, codes of up to 11 bits in both (the distance code lengths
    // follow the literal/length ones: the first 12 share 16 bytes with the last literal/length ones, and the byte
    // after them is where block 1 had its 272nd length).
    const second = lens(260, {
      97: 1,
      98: 2,
      99: 3,
      100: 4,
      101: 5,
      102: 6,
      103: 7,
      257: 8,
      259: 9,
      256: 10,
      104: 11,
      105: 11,
    });
    const dist = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 11];
    const abc = Array.from({ length: 54 }, (_, i) => 97 + (i % 9));
    const tokens: Token[] = [...abc, { len: 5, dist: 49 }, { len: 3, dist: 33 }, 256];
    const text = abc.map((c) => String.fromCharCode(c)).join('');
    const expected = text + text.slice(5, 10) + (text + text.slice(5, 10)).slice(-33, -30);
    expectVerdict(zlibOf(new BitWriter().dynamic(second, dist, tokens, true)), 'ok', 'one block', expected);
    expectVerdict(
      zlibOf(new BitWriter().dynamic(first, DIST4, [97, 256], false).dynamic(second, dist, tokens, true)),
      'ok',
      'after a larger block',
      'a' + expected,
    );
  });

  it('follows zlib on the code-length sequence (counts, repeats)', () => {
    // 286 literal/length and 30 distance codes are the most; one more of either is refused.
    const lit286 = lens(286, { 97: 1, 256: 2, 285: 2 });
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lit286, DIST4, [97, 256], true)),
      'ok',
      '286 literal/length codes',
      'a',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lens(287, { 97: 1, 256: 2, 285: 2 }), DIST4, [97, 256], true)),
      'bad',
      '287 literal/length codes',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lens(288, { 97: 1, 256: 2, 285: 2 }), DIST4, [97, 256], true)),
      'bad',
      '288 literal/length codes',
    );
    const dist30 = lens(30, { 0: 2, 1: 2, 28: 2, 29: 2 });
    expectVerdict(zlibOf(new BitWriter().dynamic(lit286, dist30, [97, 256], true)), 'ok', '30 distance codes', 'a');
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lit286, lens(31, { 0: 2, 1: 2, 28: 2, 29: 2 }), [97, 256], true)),
      'bad',
      '31 distance codes',
    );
    expectVerdict(
      zlibOf(new BitWriter().dynamic(lit286, lens(32, { 0: 2, 1: 2, 28: 2, 29: 2 }), [97, 256], true)),
      'bad',
      '32 distance codes',
    );

    // ABLIT with repeats: 97 zeros, 3 (97), 3 (98), 3 (99), 156 zeros, 3 × 5 (256..260), then the distances: 2 × 4.
    const seq = (...s: Array<[number, number]>): Array<[number, number]> => s;
    const head = seq([18, 86], [3, 0], [3, 0], [3, 0], [18, 127], [18, 7], [3, 0]);
    const good = seq(...head, [16, 1], [2, 0], [16, 0]);
    expectVerdict(
      zlibOf(new BitWriter().dynamic(ABLIT, DIST4, [97, 99, { len: 4, dist: 1 }, 256], true, undefined, good)),
      'ok',
      'repeats',
      'accccc',
    );
    // Repeats of the length 3 run on from the literal/length lengths (257..260) into 8 distance lengths.
    const across = seq(...head, [16, 3], [16, 3]);
    expectVerdict(
      zlibOf(
        new BitWriter().dynamic(
          ABLIT,
          new Array<number>(8).fill(3),
          [98, { len: 3, dist: 1 }, 256],
          true,
          undefined,
          across,
        ),
      ),
      'ok',
      'a repeat across into the distance lengths',
      'bbbb',
    );
    // A repeat first, in place of three of the leading zeros.
    const repeatFirst = seq([16, 0], [18, 83], ...head.slice(1), [16, 1], [2, 0], [16, 0]);
    expectVerdict(
      zlibOf(new BitWriter().dynamic(ABLIT, DIST4, [97, 256], true, undefined, repeatFirst)),
      'bad',
      'a repeat first',
    );
    const over = seq(...head, [16, 1], [2, 0], [16, 1]);
    expectVerdict(
      zlibOf(new BitWriter().dynamic(ABLIT, DIST4, [97, 256], true, undefined, over)),
      'bad',
      'a repeat past the last length',
    );
    const zerosOver = seq(...head, [16, 1], [2, 0], [2, 0], [2, 0], [17, 0]);
    expectVerdict(
      zlibOf(new BitWriter().dynamic(ABLIT, DIST4, [97, 256], true, undefined, zerosOver)),
      'bad',
      'a zero run past the last length',
    );
  });

  it('follows zlib on block types, stored blocks, padding and the trailer', () => {
    const hello = Buffer.from('hello');
    expectVerdict(zlibOf(new BitWriter().stored(hello, true)), 'ok', 'one stored block', 'hello');
    expectVerdict(
      zlibOf(new BitWriter().stored(Buffer.alloc(0), false).stored(hello, false).stored(Buffer.alloc(0), true)),
      'ok',
      'empty stored blocks',
      'hello',
    );
    expectVerdict(
      zlibOf(new BitWriter().fixed([97, 256], false).stored(hello, true, 1)),
      'ok',
      'padding bits set before a stored block',
      'ahello',
    );
    expectVerdict(
      zlibOf(new BitWriter().fixed([97, 256], true).align(1)),
      'ok',
      'padding bits set before the trailer',
      'a',
    );
    const mismatch = zlibOf(new BitWriter().stored(hello, true));
    mismatch[5] ^= 1; // NLEN
    expectVerdict(mismatch, 'bad', 'LEN and NLEN disagree');
    const longer = zlibOf(new BitWriter().stored(hello, true));
    longer.writeUInt16LE(6, 3);
    longer.writeUInt16LE(~6 & 0xffff, 5);
    expectVerdict(longer, 'bad', 'stored block longer than the input (its LEN eats the trailer)');
    expectVerdict(zlibOf(new BitWriter().put(1, 1).put(3, 2)), 'bad', 'block type 3');
    expectVerdict(zlibOf(new BitWriter().fixed([97, 256], false)), 'bad', 'no final block');
    const good = zlibOf(new BitWriter().fixed([97, 98, 99, 256], true));
    for (let i = 0; i < 4; i++) {
      const wrong = Buffer.from(good);
      wrong[good.length - 1 - i] ^= 0x10;
      expectVerdict(wrong, 'bad', `Adler-32 byte ${i} wrong`);
    }
    for (let n = 0; n < good.length; n++) expectVerdict(good.subarray(0, n), 'bad', `cut at ${n}`);
  });

  it('refuses every truncation of real streams', () => {
    const streams = [
      deflateSync(rrwebJson(3000, 1)),
      deflateSync(rrwebJson(3000, 2), { strategy: constants.Z_FIXED }),
      deflateSync(randomBytes(600, 2), { level: 0 }),
      ...packedEvents().slice(0, 3),
    ];
    for (const z of streams) {
      for (let n = 0; n < z.length; n++)
        expectSame(z.subarray(0, n), `cut at ${n} of ${z.length}`, n % 2 === 0 ? 'src-first' : 'src-at-end');
    }
  });
});

describe('WebAssembly zlib inflater: mutation fuzz against node', () => {
  it('agrees with node on 30,000 mutated streams', () => {
    const r = prng(20240611);
    const bases: Buffer[] = [];
    for (let i = 0; i < 24; i++) {
      const payload =
        i % 3 === 0
          ? Buffer.from(JSON.stringify(events.slice(i * 3, i * 3 + 1 + (i % 5))))
          : rrwebJson(200 + i * 97, i);
      bases.push(
        deflateSync(payload, {
          level: i % 10,
          strategy: STRATEGIES[i % STRATEGIES.length],
          windowBits: 9 + (i % 7),
          memLevel: 1 + (i % 9),
        }),
      );
    }
    bases.push(...packedEvents().slice(0, 20));
    bases.push(
      ...sampleStreams()
        .filter((z) => z.length < 4000)
        .slice(0, 20),
    );
    bases.push(
      zlibOf(
        new BitWriter().dynamic(
          lens(258, { 97: 2, 98: 2, 256: 2, 257: 2 }),
          [1],
          [97, 98, { len: 3, dist: 1 }, 98, 256],
          true,
        ),
      ),
    );
    bases.push(
      zlibOf(
        new BitWriter()
          .dynamic(ABLIT, DIST4, [97, 98, 99, { len: 6, dist: 3 }, 256], false)
          .stored(Buffer.from('xyz'), false)
          .fixed([120, { len: 9, dist: 4 }, 256], true),
      ),
    );
    bases.push(zlibOf(new BitWriter().stored(randomBytes(300, 1), true)));

    const mutate = (b: Buffer): Buffer => {
      const pos = Math.floor(r() * (b.length + 1));
      switch (Math.floor(r() * 7)) {
        case 0:
        case 1: {
          if (b.length === 0) return b;
          const c = Buffer.from(b);
          const p = Math.min(pos, b.length - 1);
          c[p] ^= 1 << Math.floor(r() * 8);
          return c;
        }
        case 2: {
          if (b.length === 0) return b;
          const c = Buffer.from(b);
          c[Math.min(pos, b.length - 1)] = Math.floor(r() * 256);
          return c;
        }
        case 3:
          return Buffer.concat([b.subarray(0, pos), Buffer.of(Math.floor(r() * 256)), b.subarray(pos)]);
        case 4:
          return Buffer.concat([b.subarray(0, pos), b.subarray(Math.min(b.length, pos + 1 + Math.floor(r() * 3)))]);
        case 5:
          return b.subarray(0, pos);
        default:
          return Buffer.concat([b, randomBytes(1 + Math.floor(r() * 8), pos)]);
      }
    };
    /** Rewrites the trailer to the Adler-32 of what the (raw) deflate data inflates to, so that it passes. */
    const fixTrailer = (b: Buffer): Buffer => {
      if (b.length < 3) return b;
      try {
        const raw = inflateRawSync(b.subarray(2), { info: true }) as unknown as {
          buffer: Buffer;
          engine: { bytesWritten: number };
        };
        const end = 2 + raw.engine.bytesWritten;
        return Buffer.concat([b.subarray(0, end), be32(adler32(raw.buffer)), b.subarray(Math.min(b.length, end + 4))]);
      } catch {
        return b;
      }
    };

    const baseOut = bases.map((b) => nodeInflate(b));
    expect(baseOut.every((b) => b.ok)).toBe(true);
    const failures: string[] = [];
    let accepted = 0;
    let changedOutput = 0;
    const CASES = 30000;
    for (let c = 0; c < CASES; c++) {
      const base = bases[c % bases.length];
      let m = base;
      const k = 1 + Math.floor(r() * 3);
      for (let j = 0; j < k; j++) m = mutate(m);
      if (c % 2 === 1) m = fixTrailer(m);
      const { diff, ok, ref: now } = differ(shared, m, c % 3 === 0 ? 'src-at-end' : 'src-first');
      if (diff !== '' && failures.length < 20)
        failures.push(`case ${c} (${m.toString('hex').slice(0, 120)}…): ${diff}`);
      if (ok) {
        accepted++;
        const ref = baseOut[c % bases.length];
        if (ref.ok && now.ok && !ref.out.equals(now.out)) changedOutput++;
      }
    }
    expect(failures).toEqual([]);
    // Both verdicts are well represented, and some accepted mutants inflate to something new.
    expect(accepted).toBeGreaterThan(CASES * 0.1);
    expect(accepted).toBeLessThan(CASES * 0.9);
    expect(changedOutput).toBeGreaterThan(CASES * 0.05);
  });
});

describe('WebAssembly zlib inflater: memory', () => {
  it('touches nothing but the source, the destination and [65536, 131072)', () => {
    const inf = new Inflater();
    const cases: Buffer[] = [
      ...packedEvents().slice(0, 30),
      deflateSync(Buffer.from('a'.repeat(300000))),
      deflateSync(randomBytes(100000, 9), { level: 0 }),
      deflateSync(rrwebJson(200000, 4), { level: 9 }),
      deflateSync(rrwebJson(5000, 4), { strategy: constants.Z_FIXED }),
    ];
    // Broken ones too: cut, bit-flipped, trailing bytes.
    const r = prng(5);
    for (const z of cases.slice(0, 34)) {
      cases.push(z.subarray(0, Math.floor(z.length / 2)));
      const f = Buffer.from(z);
      f[2 + Math.floor(r() * (z.length - 2))] ^= 1 << Math.floor(r() * 8);
      cases.push(f, Buffer.concat([z, Buffer.from('trailing')]));
    }
    const refs = cases.map((z) => nodeInflate(z));
    const capOf = (i: number): number => {
      const ref = refs[i];
      return ref.ok ? ref.out.length + (i % 2) * 1000 : 4096;
    };
    inf.ensure(Math.max(...cases.map((z, i) => SRC + z.length + capOf(i) + GUARD)));
    const memSize = inf.bytes.length;
    const pattern = randomBytes(memSize, 77);
    for (const [i, z] of cases.entries()) {
      const ref = refs[i];
      const cap = capOf(i);
      const dst = SRC + z.length;
      let mem = inf.bytes;
      mem.set(pattern.subarray(0, SCRATCH_START), 0);
      mem.set(pattern.subarray(SRC + z.length), SRC + z.length);
      mem.set(z, SRC);
      const status = inf.ex.zlibInflate(SRC, z.length, dst, cap);
      mem = inf.bytes;
      expect(mem.length, 'memory did not grow').toBe(memSize);
      expect(status === OK, `case ${i}: status ${status}`).toBe(ref.ok);
      expect(
        Buffer.compare(mem.subarray(0, SCRATCH_START), pattern.subarray(0, SCRATCH_START)),
        `case ${i}: below the scratch`,
      ).toBe(0);
      expect(Buffer.compare(mem.subarray(SRC, SRC + z.length), z), `case ${i}: the source`).toBe(0);
      expect(
        Buffer.compare(mem.subarray(dst + cap), pattern.subarray(dst + cap)),
        `case ${i}: past the destination`,
      ).toBe(0);
      if (ref.ok)
        expect(Buffer.from(mem.subarray(dst, dst + ref.out.length)).equals(ref.out), `case ${i}: output`).toBe(true);
    }
  });

  it('does not depend on what the scratch region held before a call', () => {
    const inf = new Inflater();
    const streams = [
      deflateSync(rrwebJson(4000, 1), { strategy: constants.Z_FIXED }),
      deflateSync(rrwebJson(4000, 2)),
      ...packedEvents().slice(0, 4),
    ];
    for (let round = 0; round < 6; round++) {
      for (const z of streams) {
        const ref = nodeInflate(z);
        if (!ref.ok) throw new Error('a base stream does not inflate');
        inf.ensure(SRC + z.length + ref.out.length + GUARD);
        // Zeros, random bytes, or what the previous call left.
        if (round === 1) inf.bytes.fill(0, SCRATCH_START, SRC);
        if (round >= 2 && round < 5) inf.bytes.set(randomBytes(SRC - SCRATCH_START, round), SCRATCH_START);
        const res = inf.run(z, ref.out.length);
        expect(res.status).toBe(OK);
        expect(res.out.equals(ref.out)).toBe(true);
      }
    }
  });
});
