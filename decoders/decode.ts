/**
 * Replay file decoding: bytes of one file (gzip or inflated, version 2 or 3) → the exact JSON bytes of its events.
 */

import { isUtf8 } from 'node:buffer';
import { DecodeError } from './errors.js';
import { inflatedChunks } from './gzip.js';
import { Utf8StreamValidator } from './utf8.js';
import { ArrayElementScanner, KIND_STRING, type ScannedElement } from './json-scanner.js';
import { objectElementBytes } from './packed.js';
import { decodeV2Elements } from './v2-batch.js';

export type FileVersion = 2 | 3;

export interface DecodeOptions {
  /**
   * Default `'auto'`: sniffed from the content. A string element means version 2 (reported as soon as the first one
   * is seen); a file of event objects only is version 3 (reported at its end). Objects decode identically in both.
   */
  version?: FileVersion | 'auto';
  /** File key or name, carried into `DecodeError`. */
  file?: string;
  /** Called once, when the version is known (at once when forced; never for an auto-detected empty array). */
  onVersion?: (v: FileVersion) => void;
  signal?: AbortSignal;
}

/**
 * Fast path. Yields batches of events in file order; each Buffer is exactly one event's JSON text (valid JSON, valid
 * UTF-8, no raw CR/LF). Version 3 elements are the file's own bytes (validated, compacted only when they hold CR/LF
 * outside strings); version 2 elements are inflated with the packer's marker removed.
 */
export async function* decodeEventBytes(source: AsyncIterable<Uint8Array>, opts: DecodeOptions = {}): AsyncGenerator<Buffer[]> {
  const { file, signal } = opts;
  const forced = opts.version ?? 'auto';
  if (forced !== 'auto' && forced !== 2 && forced !== 3) {
    throw new TypeError(`DecodeOptions.version must be 2, 3 or 'auto', got ${String(forced)}`);
  }
  let version: FileVersion | undefined;
  if (forced !== 'auto') {
    version = forced;
    opts.onVersion?.(forced);
  }
  const scanner = new ArrayElementScanner(file);
  const elements: ScannedElement[] = [];
  // UTF-8 is checked per chunk (one native call); after a failure, per element, to name the element.
  const utf8 = new Utf8StreamValidator();
  let checkEach = false;
  // Version 2 chunks are pipelined: chunk k's payloads inflate (worker thread) while chunk k+1 is scanned.
  // Problems are always reported for the first bad element in file order: a syntax error found by the scanner comes
  // after the elements completed before it (whose own errors, and events, come first).
  let pending: Promise<Buffer[][]> | undefined;
  for await (const chunk of inflatedChunks(source, { ...(file !== undefined ? { file } : {}), ...(signal ? { signal } : {}) })) {
    if (!checkEach && !utf8.check(chunk)) checkEach = true;
    let scanError: { error: unknown } | undefined;
    try {
      scanner.push(chunk, elements);
    } catch (error) {
      scanError = { error };
    }
    if (scanError !== undefined || checkEach) {
      if (pending !== undefined) {
        const earlier = pending;
        pending = undefined;
        for (const batch of await earlier) yield batch;
      }
      if (checkEach) for (const el of elements) checkUtf8(el, file);
    }
    if (elements.length > 0) {
      if (version === undefined && elements.some((el) => el.kind === KIND_STRING)) {
        // A packed string settles it. Objects before it decode the same either way (version 2 shape 4).
        version = 2;
        opts.onVersion?.(version);
      }
      if (version === 2) {
        const job = decodeV2Elements(elements, file);
        job.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
        if (pending !== undefined) for (const batch of await pending) yield batch;
        pending = job;
      } else yield v3Batch(elements, file);
      elements.length = 0;
    }
    if (scanError !== undefined) {
      if (pending !== undefined) for (const batch of await pending) yield batch;
      throw scanError.error;
    }
    signal?.throwIfAborted();
  }
  if (pending !== undefined) for (const batch of await pending) yield batch;
  scanner.end();
  if (checkEach || !utf8.end()) {
    // Invalid bytes always lie inside some element, which the per-element check has refused; kept as a guard.
    throw new DecodeError('BAD_UTF8', 'the file is not valid UTF-8', file !== undefined ? { file } : {});
  }
  if (version === undefined && scanner.count > 0) opts.onVersion?.(3);
}

function v3Batch(elements: ScannedElement[], file: string | undefined): Buffer[] {
  const batch = new Array<Buffer>(elements.length);
  for (let k = 0; k < elements.length; k++) {
    const el = elements[k]!;
    if (el.kind === KIND_STRING) {
      throw new DecodeError('VERSION_MISMATCH', 'a string element (a version 2 packed event) in a version 3 file', ctxOf(el, file));
    }
    batch[k] = objectElementBytes(el.bytes, el.hasNewline);
  }
  return batch;
}

function checkUtf8(el: ScannedElement, file: string | undefined): void {
  if (!isUtf8(el.bytes)) throw new DecodeError('BAD_UTF8', 'the element is not valid UTF-8', ctxOf(el, file));
}

function ctxOf(el: ScannedElement, file: string | undefined) {
  return { ...(file !== undefined ? { file } : {}), index: el.index, offset: el.offset };
}

/** Object path: the same events as `decodeEventBytes`, parsed, in file order. */
export async function* decodeEvents(source: AsyncIterable<Uint8Array>, opts: DecodeOptions = {}): AsyncGenerator<unknown> {
  for await (const batch of decodeEventBytes(source, opts)) {
    for (const event of batch) yield JSON.parse(event.toString('utf8')) as unknown;
  }
}
