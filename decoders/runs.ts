/**
 * Runs of events: consecutive events held in one buffer, joined by single `,` bytes — exactly the inside of a JSON
 * array of them. A compact version 3 file holds its events this way, so a run is a view into the inflated chunk:
 * no per-event Buffer is needed to check, frame or write them.
 */

import { InternalError } from '../src/errors.js';

/** Consecutive events joined by single `,` bytes (each event compact JSON, valid UTF-8, no raw CR/LF). */
export interface EventRun {
  /** The events' bytes joined by `,`. */
  readonly bytes: Buffer;
  /**
   * Exclusive end offset of each event in `bytes` (one entry per event): event k spans
   * `[k === 0 ? 0 : ends[k - 1] + 1, ends[k])`, and `bytes[ends[k]]` is the `,` before event k + 1.
   */
  readonly ends: Int32Array;
  /**
   * Optional, per event: the value of its trailing `"timestamp":<digits>` member when the decoder read it on the way
   * (NaN where it did not: readers then look themselves). Only a hint for checks; the bytes are the events.
   */
  readonly timestamps?: Float64Array;
}

/**
 * One batch of decoded events, in order: runs (version 3, and anything already joined) or one Buffer per event
 * (version 2, whose events are inflated one by one).
 */
export type EventBatch =
  | { readonly runs: readonly EventRun[]; readonly events?: undefined }
  | { readonly events: readonly Buffer[]; readonly runs?: undefined };

const COMMA = 0x2c;

/** A run of one event. Its length must fit the run's 32-bit ends (the event size limit keeps every event far below). */
export function singleRun(event: Buffer): EventRun {
  if (event.length > 0x7fffffff)
    throw new InternalError(`an event of ${event.length} bytes does not fit a run (at most 2^31 - 1)`);
  return { bytes: event, ends: Int32Array.of(event.length) };
}

/** Start offset of event k of a run. */
export function runEventStart(run: EventRun, k: number): number {
  return k === 0 ? 0 : run.ends[k - 1]! + 1;
}

/** Number of events in a batch. */
export function batchCount(batch: EventBatch): number {
  if (batch.events !== undefined) return batch.events.length;
  let n = 0;
  for (const run of batch.runs) n += run.ends.length;
  return n;
}

/** The batch's events, one Buffer each (views into the runs' bytes). */
export function batchEvents(batch: EventBatch): Buffer[] {
  if (batch.events !== undefined) return batch.events as Buffer[];
  const out = new Array<Buffer>(batchCount(batch));
  let o = 0;
  for (const run of batch.runs) {
    const { bytes, ends } = run;
    let from = 0;
    for (let k = 0; k < ends.length; k++) {
      const end = ends[k]!;
      out[o++] = bytes.subarray(from, end);
      from = end + 1;
    }
  }
  return out;
}

/** The batch without its first `skip` events (`undefined` when none are left). */
export function dropEvents(batch: EventBatch, skip: number): EventBatch | undefined {
  if (skip <= 0) return batch;
  if (batch.events !== undefined) return skip >= batch.events.length ? undefined : { events: batch.events.slice(skip) };
  const runs: EventRun[] = [];
  let left = skip;
  for (const run of batch.runs) {
    const count = run.ends.length;
    if (left >= count) {
      left -= count;
      continue;
    }
    if (left === 0) runs.push(run);
    else {
      const from = run.ends[left - 1]! + 1;
      const ends = run.ends.slice(left);
      for (let k = 0; k < ends.length; k++) ends[k]! -= from;
      const rest = { bytes: run.bytes.subarray(from), ends };
      runs.push(run.timestamps !== undefined ? { ...rest, timestamps: run.timestamps.subarray(left) } : rest);
      left = 0;
    }
  }
  return runs.length === 0 ? undefined : { runs };
}

/** Whether `run` is well formed: ascending ends within `bytes`, a `,` after every event but the last. */
export function isWellFormedRun(run: EventRun): boolean {
  const { bytes, ends } = run;
  const n = ends.length;
  if (n === 0 || ends[n - 1] !== bytes.length) return false;
  let from = 0;
  for (let k = 0; k < n - 1; k++) {
    const end = ends[k]!;
    if (end < from || bytes[end] !== COMMA) return false;
    from = end + 1;
  }
  return ends[n - 1]! >= from;
}
