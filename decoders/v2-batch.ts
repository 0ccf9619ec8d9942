/**
 * Version 2: decodes the elements found in one inflated chunk into batches of event bytes.
 *
 * Pass 1 unwraps every element; pass 2 inflates each zlib payload (node's `inflateSync`, on this thread), validates
 * it and removes the packer marker. Errors are raised for the first bad element in file order.
 *
 * (A worker thread that inflated the payloads beside the main thread's scanning was measured and dropped: about 10%
 * faster, for about 125 MB more peak memory.)
 */

import { KIND_STRING, type ScannedElement } from './json-scanner.js';
import { eventFromInflated, inflatePayload, objectElementBytes, preparePackedString, type ElementContext } from './packed.js';

/** Version 2 batches are cut when their events reach this many bytes (inflated events are ~5–10× the input). */
const MAX_BATCH_BYTES = 4 << 20;

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
export async function decodeV2Elements(elements: readonly ScannedElement[], file: string | undefined): Promise<Buffer[][]> {
  const pass = unwrap(elements, file);
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
