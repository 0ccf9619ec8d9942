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
import type { DecodeLimits } from './limits.js';
import {
  checkEventSize,
  eventFromInflated,
  inflatePayload,
  MARK_BYTES,
  objectElementBytes,
  payloadBound,
  preparePackedString,
  type ElementContext,
} from './packed.js';
import type { EventBatch, EventRun } from './runs.js';
import { releaseIfLarge, V2_DONE, V2_FULL, WASM_KEEP_BYTES, wasmChunkScanner, type V2Step } from './wasm-instance.js';

const CARRIED_START = Int32Array.of(0);

/**
 * The events of the elements in `spans` (found in `chunk`), in order, as batches: runs from the WebAssembly path
 * where it applies (`fast`: the chunk passed its UTF-8 check), one Buffer per event from the TypeScript path
 * otherwise. Throws for the first bad element, after every event before it (whichever path, whatever the chunks).
 * Payloads are inflated within `limits` (the same bound on both paths) and their bytes taken from its budget.
 */
export async function* decodeV2Spans(
  chunk: Buffer,
  spans: ElementSpans,
  file: string | undefined,
  fast: boolean,
  limits: DecodeLimits,
): AsyncGenerator<EventBatch> {
  const n = spans.length;
  let wasm = fast ? wasmChunkScanner() : null;
  if (wasm === null) {
    yield* typescriptPath(chunk, spans, 0, n, file, limits);
    return;
  }
  const budget = limits.budget;
  let k = 0;
  try {
    while (k < n) {
      const from = k;
      // No payload inflates past this in the module: one that would is left to the TypeScript path, which names it.
      const bound = payloadBound(limits);
      let step: V2Step;
      if (k === 0 && spans.start[0]! < 0) {
        // The element begun in an earlier chunk: its bytes are a copy of their own, loaded alone.
        const carried = spans.carried!;
        wasm.load(carried, CARRIED_START, Int32Array.of(carried.length), spans.flags, 1);
        step = wasm.v2(0, 1, bound);
      } else {
        // The module holds the chunk scanned last; between our yields other decoders may have used it.
        if (wasm.generation !== spans.wasmGeneration)
          spans.wasmGeneration = wasm.load(chunk, spans.start, spans.end, spans.flags, n);
        step = wasm.v2(k, n, bound);
      }
      let at = step.at;
      if (step.events > 0) {
        let run: EventRun = wasm.v2Run(step.events);
        // Each payload was within the bound, but together they may pass what the replay has left: the events that
        // fit go out, and the TypeScript path names the first one that does not.
        const fit = eventsWithin(run, budget.left);
        if (fit < step.events) {
          run = firstEvents(run, fit);
          at = from + fit;
        }
        if (fit > 0) {
          if (isUtf8(run.bytes)) {
            budget.take(inflatedBytes(run));
            yield { runs: [run] };
          }
          // An inflated event that is not UTF-8: the TypeScript path names it.
          else yield* typescriptPath(chunk, spans, from, at, file, limits);
        }
      }
      k = at;
      if (at === step.at) {
        if (step.status === V2_DONE) continue;
        // An element that did not fit the output: a new call for it, or a larger output unless the bound made it so.
        if (step.status === V2_FULL && (step.events > 0 || (wasm.v2Room < bound && wasm.growV2Output()))) continue;
      }
      // This element is not one the module takes as it is (or it is over the bound, or would outgrow the module).
      if (step.status === V2_FULL && wasm.memoryBytes > WASM_KEEP_BYTES) {
        // The module grew for this element alone and holds nothing still needed: its memory goes before the
        // TypeScript path inflates the element (up to the bound), so that the two never add up.
        releaseIfLarge(wasm);
        wasm = null;
      }
      yield* typescriptPath(chunk, spans, k, k + 1, file, limits);
      k++;
      // A fresh instance after one was let go (or, should none be had, the TypeScript path for the rest).
      wasm ??= wasmChunkScanner();
      if (wasm === null) {
        yield* typescriptPath(chunk, spans, k, n, file, limits);
        return;
      }
    }
  } finally {
    // An event of tens of MB grew the module's memory: give it back rather than keep it for the rest of the run.
    if (wasm !== null) releaseIfLarge(wasm);
  }
}

/** The payload bytes the events of a module run inflated from: each event plus the packer's marker. */
function inflatedBytes(run: EventRun): number {
  const count = run.ends.length;
  return run.bytes.length - (count - 1) + count * MARK_BYTES;
}

/** How many of the run's first events inflated from at most `left` bytes in all. */
function eventsWithin(run: EventRun, left: number): number {
  const count = run.ends.length;
  if (inflatedBytes(run) <= left) return count;
  let used = 0;
  let start = 0;
  for (let j = 0; j < count; j++) {
    const end = run.ends[j]!;
    used += end - start + MARK_BYTES;
    if (used > left) return j;
    start = end + 1;
  }
  return count;
}

/** The run's first `count` events (count > 0). */
function firstEvents(run: EventRun, count: number): EventRun {
  const bytes = run.bytes.subarray(0, run.ends[count - 1]!);
  const ends = run.ends.subarray(0, count);
  return run.timestamps !== undefined
    ? { bytes, ends, timestamps: run.timestamps.subarray(0, count) }
    : { bytes, ends };
}

async function* typescriptPath(
  chunk: Buffer,
  spans: ElementSpans,
  from: number,
  to: number,
  file: string | undefined,
  limits: DecodeLimits,
): AsyncGenerator<EventBatch> {
  const elements = new Array<ScannedElement>(to - from);
  for (let k = from; k < to; k++) elements[k - from] = spans.element(chunk, k);
  const { batches, error } = decodeV2Prefix(elements, file, limits);
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
export async function decodeV2Elements(
  elements: readonly ScannedElement[],
  file: string | undefined,
  limits: DecodeLimits,
): Promise<Buffer[][]> {
  const { batches, error } = decodeV2Prefix(elements, file, limits);
  if (error !== undefined) throw error.value;
  return batches;
}

/**
 * Decodes the elements in order up to the first bad one: the events before it as batches, and its error. (Pass 1
 * unwraps up to the first element it refuses; pass 2 inflates the payloads before that one, and stops at the first
 * that fails — whichever bad element comes first in file order is the one reported.)
 */
function decodeV2Prefix(
  elements: readonly ScannedElement[],
  file: string | undefined,
  limits: DecodeLimits,
): { batches: Buffer[][]; error?: { value: unknown } } {
  const pass = unwrap(elements, file, limits);
  let good = pass.events.length;
  let error = pass.error;
  for (let j = 0; j < pass.payloads.length; j++) {
    const ctx = pass.contexts[j]!;
    try {
      pass.events[pass.slots[j]!] = checkEventSize(
        eventFromInflated(inflatePayload(pass.payloads[j]!, ctx, limits), ctx),
        ctx,
        limits,
      );
    } catch (err) {
      good = pass.slots[j]!;
      error = { value: err };
      break;
    }
  }
  const batches = toBatches(pass.events, good);
  return error !== undefined ? { batches, error } : { batches };
}

function unwrap(elements: readonly ScannedElement[], file: string | undefined, limits: DecodeLimits): Pass1 {
  const pass: Pass1 = { events: [], payloads: [], slots: [], contexts: [] };
  for (const el of elements) {
    if (el.kind !== KIND_STRING) {
      pass.events.push(objectElementBytes(el.bytes, el.hasNewline));
      continue;
    }
    const ctx: ElementContext = { file, index: el.index, offset: el.offset };
    try {
      const prepared = preparePackedString(el.bytes, ctx);
      if (prepared.event !== undefined) pass.events.push(checkEventSize(prepared.event, ctx, limits));
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
