/**
 * The WebAssembly fast path of `ArrayElementScanner`: one shared instance of the module built from
 * decoders/wasm/scanner.ts, its memory laid out for one chunk at a time. Scanning is synchronous, so one instance
 * serves every scanner of the process in turn.
 *
 * Memory: [0, 256) the state slots, [256, 65536) the container stack, [65536, 131072) the inflater's scratch, then
 * the chunk (followed by 16 zero bytes that stop the module's 16-byte loads) and the element tables (start i32, end
 * i32, timestamp f64, flags u8 per element).
 */

import { SCANNER_WASM_BASE64 } from './scanner-wasm.js';

/** State slots (i32 indexes); the same layout as decoders/wasm/scanner.ts. */
export const SLOT = {
  st: 0,
  depth: 1,
  strKey: 2,
  uniLeft: 3,
  lit: 4,
  litPos: 5,
  inElem: 6,
  elemStart: 7,
  elemKind: 8,
  elemNewline: 9,
  count: 10,
} as const;

export const STACK_OFFSET = 256;
const INPUT_OFFSET = 131072;
/** Nesting the module's stack area holds; deeper input is scanned by the TypeScript scanner. */
export const WASM_MAX_DEPTH = 65536 - STACK_OFFSET;
const PAGE = 65536;

/** Statuses of `scan`. */
export const SCAN_OK = 0;

/** The parts of the WebAssembly API used here (this project compiles without the DOM's type library). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

interface ScannerExports {
  memory: WasmMemory;
  scan(input: number, n: number, starts: number, ends: number, flags: number, stamps: number): number;
}

export class WasmChunkScanner {
  private capacity = 0;
  private startsAt = 0;
  private endsAt = 0;
  private flagsAt = 0;
  private stampsAt = 0;
  /** Views over the module's memory, renewed whenever it grows. */
  state!: Int32Array;
  bytes!: Uint8Array;

  constructor(private readonly exports: ScannerExports) {
    const have = exports.memory.buffer.byteLength;
    if (have < INPUT_OFFSET) exports.memory.grow(Math.ceil((INPUT_OFFSET - have) / PAGE));
    this.views();
  }

  private views(): void {
    const buffer = this.exports.memory.buffer;
    this.state = new Int32Array(buffer, 0, 16);
    this.bytes = new Uint8Array(buffer);
  }

  /** Makes room for a chunk of `n` bytes and its element tables (at most one element per 2 bytes, plus one). */
  private reserve(n: number): void {
    if (n <= this.capacity) return;
    const maxElements = (n >>> 1) + 1;
    const stampsAt = (INPUT_OFFSET + n + 16 + 7) & ~7;
    const startsAt = stampsAt + maxElements * 8;
    const endsAt = startsAt + maxElements * 4;
    const flagsAt = endsAt + maxElements * 4;
    const needed = flagsAt + maxElements;
    const have = this.exports.memory.buffer.byteLength;
    if (needed > have) this.exports.memory.grow(Math.ceil((needed - have) / PAGE));
    this.capacity = n;
    this.startsAt = startsAt;
    this.endsAt = endsAt;
    this.flagsAt = flagsAt;
    this.stampsAt = stampsAt;
    this.views();
  }

  /**
   * Makes the memory ready for a chunk of `n` bytes; the caller then fills `state` and the stack (in `bytes`) and
   * calls `scan`. The views may be renewed here, never during `scan`.
   */
  prepare(n: number): void {
    this.reserve(n);
  }

  /** Scans `chunk` from the state in `state`; returns `SCAN_OK` or a status for which nothing was changed. */
  scan(chunk: Uint8Array): number {
    const n = chunk.length;
    this.bytes.set(chunk, INPUT_OFFSET);
    // The module reads up to 16 bytes past the chunk and relies on them being zero.
    this.bytes.fill(0, INPUT_OFFSET + n, INPUT_OFFSET + n + 16);
    return this.exports.scan(INPUT_OFFSET, n, this.startsAt, this.endsAt, this.flagsAt, this.stampsAt);
  }

  /** The element tables of the last successful `scan` (views: read them before the next call). */
  tables(count: number): { starts: Int32Array; ends: Int32Array; flags: Uint8Array; stamps: Float64Array } {
    const buffer = this.exports.memory.buffer;
    return {
      starts: new Int32Array(buffer, this.startsAt, count),
      ends: new Int32Array(buffer, this.endsAt, count),
      flags: new Uint8Array(buffer, this.flagsAt, count),
      stamps: new Float64Array(buffer, this.stampsAt, count),
    };
  }
}

let shared: WasmChunkScanner | null | undefined;

/**
 * The shared fast-path scanner, or `null` where WebAssembly SIMD is not available (the TypeScript scanner then does
 * all the work). Set REPLAY_EXPORT_WASM=0 to turn the fast path off (to compare, or to rule it out).
 */
export function wasmChunkScanner(): WasmChunkScanner | null {
  if (shared !== undefined) return shared;
  shared = null;
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (process.env['REPLAY_EXPORT_WASM'] === '0' || wasm === undefined) return shared;
  try {
    const bytes = Buffer.from(SCANNER_WASM_BASE64, 'base64');
    if (!wasm.validate(bytes)) return shared;
    const instance = new wasm.Instance(new wasm.Module(bytes), {});
    shared = new WasmChunkScanner(instance.exports as unknown as ScannerExports);
  } catch {
    shared = null;
  }
  return shared;
}
