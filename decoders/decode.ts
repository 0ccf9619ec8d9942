/**
 * Replay file decoding: bytes of one file (gzip or inflated, version 2 or 3) → the exact JSON bytes of its events.
 */

import { isUtf8 } from 'node:buffer';
import { DecodeError } from './errors.js';
import { ConfigError } from '../src/errors.js';
import { inflatedChunks } from './gzip.js';
import { Utf8StreamValidator } from './utf8.js';
import { ArrayElementScanner, ElementSpans, type ScannedElement } from './json-scanner.js';
import { DecodeLimits, replayTooLarge, type ReplayBudget } from './limits.js';
import { objectElementBytes } from './packed.js';
import { batchEvents, singleRun, type EventBatch, type EventRun } from './runs.js';
import { decodeV2Spans } from './v2-batch.js';

export type FileVersion = 2 | 3;

export interface DecodeOptions {
  /**
   * Default `'auto'`: sniffed from the content. A string element means version 2 (reported as soon as the first one
   * is seen); a file of event objects only is version 3 (reported at its end). Objects decode identically in both.
   */
  version?: FileVersion | 'auto' | undefined;
  /** File key or name, carried into `DecodeError`. */
  file?: string | undefined;
  /** Called once, when the version is known (at once when forced; never for an auto-detected empty array). */
  onVersion?: ((v: FileVersion) => void) | undefined;
  signal?: AbortSignal | undefined;
  /**
   * The file's compressed size when known (a number, or a function asked when decoding starts, e.g. returning the
   * download's Content-Length): small files then inflate into small buffers instead of whole `INFLATE_CHUNK` ones.
   */
  compressedSize?: number | (() => number | undefined);
  /**
   * Default true: the WebAssembly fast paths where they apply (the scanner, version 2 elements). False decodes with
   * the TypeScript code alone — the same events and the same errors, slower (to compare, or to rule the fast paths
   * out). The decoders read no environment variable: the pipeline passes false when REPLAY_EXPORT_WASM=0.
   */
  fastPath?: boolean | undefined;
  /**
   * The largest event, and the largest array element, in bytes: default `DECODE_LIMITS.maxEventBytes` (256 MiB), at
   * most `MAX_EVENT_BYTES_CAP` (1 GiB). Checked while inflating and scanning: a larger one is `EVENT_TOO_LARGE`.
   */
  maxEventBytes?: number | undefined;
  /**
   * The inflated bytes the replay may still take, shared by the decoders of its files: this file's bytes after its
   * gzip layer, and each version 2 packed event's inflated payload, are taken from it as they are inflated; going
   * over is `REPLAY_TOO_LARGE`. Default: a budget of `DECODE_LIMITS.maxReplayBytes` (8 GiB) for this file alone.
   */
  replayBudget?: ReplayBudget | undefined;
}

/**
 * Fast path. Yields batches of events in file order; each Buffer is exactly one event's JSON text (valid JSON, valid
 * UTF-8, no raw CR/LF). Version 3 elements are the file's own bytes (validated, compacted only when they hold CR/LF
 * outside strings); version 2 elements are inflated with the packer's marker removed.
 */
export async function* decodeEventBytes(
  source: AsyncIterable<Uint8Array>,
  opts: DecodeOptions = {},
): AsyncGenerator<Buffer[]> {
  for await (const batch of decodeEventBatches(source, opts)) yield batchEvents(batch);
}

/**
 * The same events as `decodeEventBytes`, without a Buffer per event where the file does not need one: a compact
 * version 3 file's consecutive events come as runs (views into the inflated chunk, events joined by `,`); version 2
 * events come one Buffer each.
 */
export async function* decodeEventBatches(
  source: AsyncIterable<Uint8Array>,
  opts: DecodeOptions = {},
): AsyncGenerator<EventBatch> {
  const { file, signal } = opts;
  const forced = opts.version ?? 'auto';
  if (forced !== 'auto' && forced !== 2 && forced !== 3) {
    throw new ConfigError(`DecodeOptions.version must be 2, 3 or 'auto', got ${String(forced)}`);
  }
  let version: FileVersion | undefined;
  if (forced !== 'auto') {
    version = forced;
    opts.onVersion?.(forced);
  }
  const fast = opts.fastPath !== false;
  const limits = DecodeLimits.of(opts);
  const budget = limits.budget;
  const scanner = new ArrayElementScanner(file, {
    maxElementBytes: limits.maxEventBytes,
    wasmMinBytes: fast ? undefined : Infinity,
  });
  const spans = new ElementSpans();
  // UTF-8 is checked per chunk (one native call); after a failure, per element, to name the element.
  const utf8 = new Utf8StreamValidator();
  let checkEach = false;
  // Problems are always reported for the first bad element in file order: a syntax error found by the scanner comes
  // after the elements completed before it (whose own errors, and events, come first).
  const size = opts.compressedSize;
  const compressedSize = typeof size === 'function' ? size : size !== undefined ? () => size : undefined;
  const inflateOptions = { file, signal, compressedSize };
  for await (const chunk of inflatedChunks(source, inflateOptions)) {
    // The replay's budget, before anything of the chunk is used: the error names the first element not handed out.
    if (chunk.length > budget.left) {
      throw replayTooLarge(budget.limit, {
        file,
        index: scanner.count,
        offset: scanner.position + budget.left,
      });
    }
    budget.take(chunk.length);
    if (!checkEach && !utf8.check(chunk)) checkEach = true;
    let scanError: { error: unknown } | undefined;
    try {
      scanner.pushSpans(chunk, spans);
    } catch (error) {
      scanError = { error };
    }
    if (checkEach) for (let k = 0; k < spans.length; k++) checkUtf8(spans.element(chunk, k), file);
    if (spans.length > 0) {
      if (version === undefined && hasString(spans)) {
        // A packed string settles it. Objects before it decode the same either way (version 2 shape 4).
        version = 2;
        opts.onVersion?.(version);
      }
      if (version === 2) yield* decodeV2Spans(chunk, spans, file, fast && !checkEach, limits);
      else yield { runs: v3Runs(chunk, spans, file) };
    }
    if (scanError !== undefined) throw scanError.error;
    signal?.throwIfAborted();
  }
  scanner.end();
  if (checkEach || !utf8.end()) {
    // Invalid bytes always lie inside some element, which the per-element check has refused; kept as a guard.
    throw new DecodeError('BAD_UTF8', 'the file is not valid UTF-8', { file });
  }
  if (version === undefined && scanner.count > 0) opts.onVersion?.(3);
}

function hasString(spans: ElementSpans): boolean {
  const flags = spans.flags;
  for (let k = 0; k < spans.length; k++) if (flags[k]! & 1) return true;
  return false;
}

/**
 * Version 3 elements of one chunk as runs: consecutive elements separated by exactly one `,` and free of CR/LF
 * share one run (a view into the chunk); an element carried over from the previous chunk, or one that needs
 * compacting, is a run of its own.
 */
function v3Runs(chunk: Buffer, spans: ElementSpans, file: string | undefined): EventRun[] {
  const { start, end, flags } = spans;
  const n = spans.length;
  const runs: EventRun[] = [];
  let k = 0;
  while (k < n) {
    const f = flags[k]!;
    if (f & 1) {
      throw new DecodeError(
        'VERSION_MISMATCH',
        'a string element (a version 2 packed event) in a version 3 file',
        ctxOf(spans.element(chunk, k), file),
      );
    }
    const s0 = start[k]!;
    if (s0 < 0 || f !== 0) {
      const el = spans.element(chunk, k);
      runs.push(singleRun(objectElementBytes(el.bytes, el.hasNewline)));
      k++;
      continue;
    }
    let j = k + 1;
    while (j < n && flags[j] === 0 && start[j] === end[j - 1]! + 1) j++;
    const ends = new Int32Array(j - k);
    for (let m = 0; m < ends.length; m++) ends[m] = end[k + m]! - s0;
    const bytes = chunk.subarray(s0, end[j - 1]!);
    runs.push(spans.stamped ? { bytes, ends, timestamps: spans.stamps.slice(k, j) } : { bytes, ends });
    k = j;
  }
  return runs;
}

function checkUtf8(el: ScannedElement, file: string | undefined): void {
  if (!isUtf8(el.bytes)) throw new DecodeError('BAD_UTF8', 'the element is not valid UTF-8', ctxOf(el, file));
}

function ctxOf(el: ScannedElement, file: string | undefined) {
  return { file, index: el.index, offset: el.offset };
}

/** Object path: the same events as `decodeEventBytes`, parsed, in file order. */
export async function* decodeEvents(
  source: AsyncIterable<Uint8Array>,
  opts: DecodeOptions = {},
): AsyncGenerator<unknown> {
  for await (const batch of decodeEventBytes(source, opts)) {
    for (const event of batch) yield JSON.parse(event.toString('utf8')) as unknown;
  }
}
