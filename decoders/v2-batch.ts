/**
 * Version 2: decodes the elements found in one inflated chunk into batches of event bytes.
 *
 * Fast path (`decodeV2Spans`): the WebAssembly module decodes the chunk's packed strings in its own memory (string
 * unescaping, inflating, the one-object check, the marker cut) into runs, as version 3 files give them: no object
 * per event, nothing for the garbage collector. Any element it does not take goes through the TypeScript path below,
 * which gives the exact error when there is one.
 *
 * TypeScript path (`decodeV2Elements`): pass 1 unwraps every element; pass 2 inflates each zlib payload (node's
 * `inflateSync`), validates it and removes the packer marker. Errors are raised for the first bad element in file
 * order.
 *
 * (A worker thread that inflated the payloads beside the main thread's scanning was measured and dropped: about 10%
 * faster, for about 125 MB more peak memory.)
 */

import { isUtf8 } from 'node:buffer';
import { KIND_STRING, type ElementSpans, type ScannedElement } from './json-scanner.js';
import { eventFromInflated, inflatePayload, objectElementBytes, preparePackedString, type ElementContext } from './packed.js';
import type { EventBatch } from './runs.js';
import { releaseIfLarge, V2_DONE, V2_FULL, wasmChunkScanner, type V2Step, type WasmChunkScanner } from './wasm-scan.js';

const CARRIED_START = Int32Array.of(0);

/**
 * The events of the elements in `spans` (found in `chunk`), in order, as batches: runs from the WebAssembly path
 * where it applies (`fast`: the chunk passed its UTF-8 check), one Buffer per event from the TypeScript path
 * otherwise. Throws for the first bad element, after every event before it (whichever path, whatever the chunks).
 */
export async function* decodeV2Spans(chunk: Buffer, spans: ElementSpans, file: string | undefined, fast: boolean): AsyncGenerator<EventBatch> {
  const n = spans.length;
  const wasm = fast ? wasmChunkScanner() : null;
  if (wasm === null) {
    yield* typescriptPath(chunk, spans, 0, n, file);
    return;
  }
  try {
    yield* wasmPath(wasm, chunk, spans, file);
  } finally {
    // An event of tens of MB grew the module's memory: give it back rather than keep it for the rest of the run.
    releaseIfLarge(wasm);
  }
}

async function* wasmPath(wasm: WasmChunkScanner, chunk: Buffer, spans: ElementSpans, file: string | undefined): AsyncGenerator<EventBatch> {
  const n = spans.length;
  let k = 0;
  while (k < n) {
    const from = k;
    let step: V2Step;
    if (k === 0 && spans.start[0]! < 0) {
      // The element begun in an earlier chunk: its bytes are a copy of their own, loaded alone.
      const carried = spans.carried!;
      wasm.load(carried, CARRIED_START, Int32Array.of(carried.length), spans.flags, 1);
      step = wasm.v2(0, 1);
    } else {
      // The module holds the chunk scanned last; between our yields other decoders may have used it.
      if (wasm.generation !== spans.wasmGeneration) spans.wasmGeneration = wasm.load(chunk, spans.start, spans.end, spans.flags, n);
      step = wasm.v2(k, n);
    }
    if (step.events > 0) {
      const run = wasm.v2Run(step.events);
      if (isUtf8(run.bytes)) yield { runs: [run] };
      // An inflated event that is not UTF-8: the TypeScript path names it.
      else yield* typescriptPath(chunk, spans, from, step.at, file);
    }
    k = step.at;
    if (step.status === V2_DONE) continue;
    if (step.status === V2_FULL && (step.events > 0 || wasm.growV2Output())) continue;
    // This element is not one the module takes as it is (or it would outgrow the module's memory).
    yield* typescriptPath(chunk, spans, k, k + 1, file);
    k++;
  }
}

async function* typescriptPath(chunk: Buffer, spans: ElementSpans, from: number, to: number, file: string | undefined): AsyncGenerator<EventBatch> {
  const elements = new Array<ScannedElement>(to - from);
  for (let k = from; k < to; k++) elements[k - from] = spans.element(chunk, k);
  const { batches, error } = decodeV2Prefix(elements, file);
  for (const events of batches) yield { events };
  if (error !== undefined) throw error.value;
}

/** Version 2 batches are cut when their events reach this many bytes (inflated events are ~5–10× the input). */
const MAX_BATCH_BYTES = 4 << 20;

interface Pass1 {
  events: Buffer[];
  payloads: Buffer[];
  /** Element position (in `events`) and context of each payload. */
  slots: number[];
  contexts: ElementContext[];
  /** The first error of pass 1, raised after the payloads before it (`events` then ends before that element). */
  error?: { value: unknown };
}

/** Decodes the elements of one chunk; resolves to batches of events in order (throws for the first bad element). */
export async function decodeV2Elements(elements: readonly ScannedElement[], file: string | undefined): Promise<Buffer[][]> {
  const { batches, error } = decodeV2Prefix(elements, file);
  if (error !== undefined) throw error.value;
  return batches;
}

/**
 * Decodes the elements in order up to the first bad one: the events before it as batches, and its error. (Pass 1
 * unwraps up to the first element it refuses; pass 2 inflates the payloads before that one, and stops at the first
 * that fails — whichever bad element comes first in file order is the one reported.)
 */
export function decodeV2Prefix(elements: readonly ScannedElement[], file: string | undefined): { batches: Buffer[][]; error?: { value: unknown } } {
  const pass = unwrap(elements, file);
  let good = pass.events.length;
  let error = pass.error;
  for (let j = 0; j < pass.payloads.length; j++) {
    const ctx = pass.contexts[j]!;
    try {
      pass.events[pass.slots[j]!] = eventFromInflated(inflatePayload(pass.payloads[j]!, ctx), ctx);
    } catch (err) {
      good = pass.slots[j]!;
      error = { value: err };
      break;
    }
  }
  const batches = toBatches(pass.events, good);
  return error !== undefined ? { batches, error } : { batches };
}

function unwrap(elements: readonly ScannedElement[], file: string | undefined): Pass1 {
  const pass: Pass1 = { events: [], payloads: [], slots: [], contexts: [] };
  for (const el of elements) {
    if (el.kind !== KIND_STRING) {
      pass.events.push(objectElementBytes(el.bytes, el.hasNewline));
      continue;
    }
    const ctx: ElementContext = { ...(file !== undefined ? { file } : {}), index: el.index, offset: el.offset };
    try {
      const prepared = preparePackedString(el.bytes, ctx);
      if (prepared.event !== undefined) pass.events.push(prepared.event);
      else {
        pass.slots.push(pass.events.length);
        pass.events.push(prepared.packed); // replaced by the event in pass 2
        pass.payloads.push(prepared.packed);
        pass.contexts.push(ctx);
      }
    } catch (err) {
      pass.error = { value: err };
      break;
    }
  }
  return pass;
}

/** The first `count` events in batches of about `MAX_BATCH_BYTES`. */
function toBatches(events: readonly Buffer[], count: number): Buffer[][] {
  const batches: Buffer[][] = [];
  let batch: Buffer[] = [];
  let bytes = 0;
  for (let k = 0; k < count; k++) {
    const event = events[k]!;
    batch.push(event);
    bytes += event.length;
    if (bytes >= MAX_BATCH_BYTES) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
