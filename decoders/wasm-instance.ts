/**
 * The decoders' WebAssembly fast paths (decoders/wasm/): one shared instance of the module, its memory laid out for
 * one chunk at a time. `scan` is the fast path of `ArrayElementScanner`; `v2` decodes the version 2 elements of the
 * chunk scanned last. Both are synchronous, so one instance serves every decoder of the process in turn.
 *
 * Memory (the areas and slots of decoders/wasm/layout.ts, which the module's source imports too): the state and
 * result slots, the container stack, the inflater's scratch, then the chunk (followed by 16 zero bytes that stop the
 * module's 16-byte loads), the element tables (timestamp f64, start i32, end i32, flags u8 per element), the version 2
 * event tables (timestamp f64, end i32), the stage (one element's payload) and the version 2 output.
 */

import { Area, Slot } from './wasm/layout.js';
import { WASM_MODULE_BASE64 } from './wasm-module.js';

export const STACK_OFFSET = Area.stack;
const INPUT_OFFSET = Area.input;
/** Nesting the module's stack area holds; deeper input is scanned by the TypeScript scanner. */
export const WASM_MAX_DEPTH = Area.stackEnd - Area.stack;
const PAGE = 65536;

/** Statuses of `scan`. */
export const SCAN_OK = 0;
/** Statuses of `v2` (1: the element needs the TypeScript path). */
export const V2_DONE = 0;
export const V2_FULL = 2;

/** Version 2 output per call at first (a run of events); doubled for an event that does not fit alone. */
const V2_OUT_BYTES = 256 << 10;
/** Output bytes an element needs beyond its inflated payload: the `,` after it and the 16 zero bytes the scan reads. */
const V2_OUT_SLACK = 17;
/** Beyond this, one event is left to the TypeScript path rather than grow the module's memory further. */
const V2_OUT_MAX = 256 << 20;
/**
 * A module whose memory grew past this (a version 2 event of tens of MB) is dropped once the decoder that grew it is
 * done with it (`releaseIfLarge`): WebAssembly memory cannot shrink, and a long archive run must not keep the largest
 * event it ever met. Below it (a 512 KiB chunk's tables are ~9 MiB, mostly never touched) the memory is kept and reused.
 */
export const WASM_KEEP_BYTES = 64 << 20;

/** Scan numbers, unique across instances: tables recorded by a dropped instance never match a new one. */
let lastGeneration = 0;

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
  scan(input: number, n: number, starts: number, ends: number, flags: number, stamps: number, limit: number): number;
  v2Decode(
    input: number,
    k: number,
    count: number,
    starts: number,
    ends: number,
    flags: number,
    stage: number,
    out: number,
    outCap: number,
    outEnds: number,
    outStamps: number,
  ): number;
}

/** What one `v2` call did. */
export interface V2Step {
  status: number;
  /** The element it stopped at (the count when done). */
  at: number;
  /** Events decoded (in `v2Run`). */
  events: number;
}

export class WasmChunkScanner {
  private capacity = 0;
  private startsAt = 0;
  private endsAt = 0;
  private flagsAt = 0;
  private stampsAt = 0;
  private maxElements = 0;
  private v2StampsAt = 0;
  private v2EndsAt = 0;
  private stageAt = 0;
  private outAt = 0;
  private outCap = V2_OUT_BYTES;
  /**
   * The number of the last `scan` or `load`: the tables (and the chunk) in memory belong to it. Unique in the process
   * (a replaced instance never reuses one).
   */
  generation = 0;
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

  /**
   * Makes room for a chunk of `n` bytes, tables for `elements` elements (by default what a scan of it can find: one
   * per 2 bytes, plus one) and the version 2 output. Before `scan`, the caller then fills `state` and the stack (in
   * `bytes`): the views may be renewed here, never during `scan`.
   */
  prepare(n: number, elements = (n >>> 1) + 1): void {
    if (n <= this.capacity && elements <= this.maxElements) return;
    n = Math.max(n, this.capacity);
    const maxElements = Math.max(elements, this.maxElements);
    this.stampsAt = (INPUT_OFFSET + n + 16 + 7) & ~7;
    this.startsAt = this.stampsAt + maxElements * 8;
    this.endsAt = this.startsAt + maxElements * 4;
    this.flagsAt = this.endsAt + maxElements * 4;
    this.v2StampsAt = (this.flagsAt + maxElements + 7) & ~7;
    this.v2EndsAt = this.v2StampsAt + maxElements * 8;
    this.stageAt = this.v2EndsAt + maxElements * 4;
    this.outAt = (this.stageAt + n + 16 + 7) & ~7;
    this.capacity = n;
    this.maxElements = maxElements;
    this.fit(this.outAt + this.outCap);
  }

  private fit(needed: number): void {
    const have = this.exports.memory.buffer.byteLength;
    if (needed > have) this.exports.memory.grow(Math.ceil((needed - have) / PAGE));
    this.views();
  }

  /** Scans `chunk` from the state in `state`; returns `SCAN_OK` or a status for which nothing was changed. */
  scan(chunk: Uint8Array): number {
    this.place(chunk);
    this.generation = ++lastGeneration;
    return this.exports.scan(
      INPUT_OFFSET,
      chunk.length,
      this.startsAt,
      this.endsAt,
      this.flagsAt,
      this.stampsAt,
      this.maxElements,
    );
  }

  /** Copies `chunk` to the input area, followed by the 16 zero bytes the module's loads past the chunk rely on. */
  private place(chunk: Uint8Array): void {
    this.bytes.set(chunk, INPUT_OFFSET);
    this.bytes.fill(0, INPUT_OFFSET + chunk.length, INPUT_OFFSET + chunk.length + 16);
  }

  /**
   * Puts a chunk and its element offsets back in memory (after other scans took its place, or when the TypeScript
   * loop scanned it), for `v2`; returns the new `generation`.
   */
  load(chunk: Uint8Array, starts: Int32Array, ends: Int32Array, flags: Uint8Array, count: number): number {
    // Tables for the elements given only: one element carried over from earlier chunks can be many MB long.
    this.prepare(chunk.length, count);
    this.place(chunk);
    const buffer = this.exports.memory.buffer;
    new Int32Array(buffer, this.startsAt, count).set(starts.subarray(0, count));
    new Int32Array(buffer, this.endsAt, count).set(ends.subarray(0, count));
    new Uint8Array(buffer, this.flagsAt, count).set(flags.subarray(0, count));
    this.generation = ++lastGeneration;
    return this.generation;
  }

  /**
   * Decodes version 2 elements [k, count) of the chunk scanned (or loaded) last (its tables still in memory: check
   * `generation`) into one run, as far as it can: see decoders/wasm/v2.ts. No payload inflates past `maxPayload`
   * bytes (nor past `v2Room`): one that would stops the call with `V2_FULL`. Read the run with `v2Run` before the
   * next call.
   */
  v2(k: number, count: number, maxPayload: number): V2Step {
    // The module checks each payload against the output left: capped so, the first one of a call gets at most
    // `maxPayload` bytes, and later ones less.
    const outCap = Math.min(this.outCap, Math.max(0, maxPayload) + V2_OUT_SLACK);
    const status = this.exports.v2Decode(
      INPUT_OFFSET,
      k,
      count,
      this.startsAt,
      this.endsAt,
      this.flagsAt,
      this.stageAt,
      this.outAt,
      outCap,
      this.v2EndsAt,
      this.v2StampsAt,
    );
    const state = this.state;
    return { status, at: state[Slot.v2At]!, events: state[Slot.v2Events]! };
  }

  /** The events of the last `v2` call, copied out: their bytes joined by `,`, their ends and timestamps. */
  v2Run(events: number): { bytes: Buffer; ends: Int32Array; timestamps: Float64Array } {
    const buffer = this.exports.memory.buffer;
    const size = this.state[Slot.v2Bytes]!;
    return {
      bytes: Buffer.from(new Uint8Array(buffer, this.outAt, size)),
      ends: new Int32Array(buffer, this.v2EndsAt, events).slice(),
      timestamps: new Float64Array(buffer, this.v2StampsAt, events).slice(),
    };
  }

  /** The largest payload the version 2 output holds now (the first of a call). */
  get v2Room(): number {
    return this.outCap - V2_OUT_SLACK;
  }

  /**
   * Doubles the version 2 output, for an event that did not fit alone; false when it is already at its largest (the
   * event is then left to the TypeScript path). The tables and the chunk stay where they are.
   */
  growV2Output(): boolean {
    if (this.outCap >= V2_OUT_MAX) return false;
    this.outCap *= 2;
    this.fit(this.outAt + this.outCap);
    return true;
  }

  /** Bytes of memory the module holds now. */
  get memoryBytes(): number {
    return this.exports.memory.buffer.byteLength;
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
let compiled: object | undefined;

/**
 * The shared fast-path scanner, or `null` where WebAssembly SIMD is not available (the TypeScript scanner then does
 * all the work). To turn the fast path off, decode with `fastPath: false` (the pipeline does when its settings say
 * so, e.g. from REPLAY_EXPORT_WASM=0; no environment variable is read here).
 */
export function wasmChunkScanner(): WasmChunkScanner | null {
  if (shared !== undefined) return shared;
  shared = null;
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined) return shared;
  try {
    if (compiled === undefined) {
      const bytes = Buffer.from(WASM_MODULE_BASE64, 'base64');
      if (!wasm.validate(bytes)) return shared;
      compiled = new wasm.Module(bytes);
    }
    const instance = new wasm.Instance(compiled, {});
    shared = new WasmChunkScanner(instance.exports as unknown as ScannerExports);
  } catch {
    shared = null;
  }
  return shared;
}

/**
 * Drops `scanner` as the shared instance when its memory grew past `WASM_KEEP_BYTES`: the next `wasmChunkScanner()`
 * makes a fresh one, and the old memory goes with the last decoder still holding it. Decoders call this when they are
 * done with a chunk; one that still holds the old instance goes on with it safely (generations never repeat).
 */
export function releaseIfLarge(scanner: WasmChunkScanner): void {
  if (shared === scanner && scanner.memoryBytes > WASM_KEEP_BYTES) shared = undefined;
}
