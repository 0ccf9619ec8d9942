/**
 * Version 2: decodes the elements found in one inflated chunk into batches of event bytes.
 *
 * Pass 1 (this thread) unwraps every element; the zlib payloads are then inflated by the shared worker thread when
 * there are enough of them (inline otherwise, or when the worker is unavailable), and pass 2 validates each inflated
 * payload and removes the packer marker. Errors are raised for the first bad element in file order.
 */

import { inflateWorker, type InflateResult } from './inflate-worker.js';
import { KIND_STRING, type ScannedElement } from './json-scanner.js';
import { badZlib, eventFromInflated, inflatePayload, objectElementBytes, preparePackedString, type ElementContext } from './packed.js';

/** Version 2 batches are cut when their events reach this many bytes (inflated events are ~5–10× the input). */
const MAX_BATCH_BYTES = 4 << 20;
/** Fewer payloads than this are inflated inline: not worth a round trip to the worker. */
export const WORKER_MIN_PAYLOADS = 32;

interface Pass1 {
  events: Buffer[];
  payloads: Buffer[];
  /** Element position (in `events`) and context of each payload. */
  slots: number[];
  contexts: ElementContext[];
  /** The first error of pass 1, raised after the payloads before it. */
  error?: { value: unknown };
}

/** Decodes the elements of one chunk; resolves to batches of events in order. */
export async function decodeV2Elements(elements: readonly ScannedElement[], file: string | undefined, useWorker = true): Promise<Buffer[][]> {
  const pass = unwrap(elements, file);
  let job: Promise<InflateResult> | undefined;
  if (useWorker && pass.payloads.length >= WORKER_MIN_PAYLOADS) job = inflateWorker.submit(pass.payloads);
  if (job !== undefined) {
    let result: InflateResult | undefined;
    try {
      result = await job;
    } catch {
      result = undefined; // the worker died: inflate here instead
    }
    if (result !== undefined) {
      const { data, offsets, errors } = result;
      for (let j = 0; j < pass.payloads.length; j++) {
        const ctx = pass.contexts[j]!;
        const message = errors?.[j];
        if (message != null) throw badZlib(message, ctx);
        pass.events[pass.slots[j]!] = eventFromInflated(data.subarray(offsets[j]!, offsets[j + 1]!), ctx);
      }
      return finish(pass);
    }
  }
  for (let j = 0; j < pass.payloads.length; j++) {
    const ctx = pass.contexts[j]!;
    pass.events[pass.slots[j]!] = eventFromInflated(inflatePayload(pass.payloads[j]!, ctx), ctx);
  }
  return finish(pass);
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

function finish(pass: Pass1): Buffer[][] {
  if (pass.error !== undefined) throw pass.error.value;
  const batches: Buffer[][] = [];
  let batch: Buffer[] = [];
  let bytes = 0;
  for (const event of pass.events) {
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
