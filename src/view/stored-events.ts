/**
 * The events of a stored replay object read as a stream: a `json` object is split at the top-level commas of its
 * array, an `ndjson` one at its newlines, an `html` page's blocks as one array, `.gz` inflated on the way.
 * - `storedNdjson`: the events as NDJSON bytes, passed through chunk by chunk without ever gathering an event, and
 *   the inflated bytes capped: memory holds a few chunks whatever the events' sizes (what `view` serves).
 * - `storedEvents`: one Buffer per event, read by the decoders through the framing `verify` uses
 *   (sinks/stored-array.ts); memory holds one event at a time (at most `maxEventBytes`) — for readers that need whole
 *   events (the video export).
 */
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { decodeEventBytes } from '../../decoders/index.js';
import { pageEventsArray } from '../../sinks/page-events.js';
import { storedEventsArray } from '../../sinks/stored-array.js';
import type { OutputFormat } from '../../sinks/sink.js';
import { ViewError } from './errors.js';

const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LF = 0x0a;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

const badPage = (message: string): ViewError => new ViewError('VIEW_BAD_OBJECT', message);

const eventTooLarge = (max: number): ViewError =>
  new ViewError('VIEW_BAD_OBJECT', `an event of the stored replay is over ${max} bytes`);

/**
 * A JSON array's elements as NDJSON, byte for byte but for the whitespace between tokens (dropped, so that a
 * pretty-printed array gives one line per element): the brackets go, each top-level comma becomes a newline. Only
 * counters are kept (the current element's length, its nesting): no element is ever gathered.
 */
async function* jsonArrayNdjson(source: AsyncIterable<Buffer>, max: number): AsyncGenerator<Buffer> {
  let started = false;
  let ended = false;
  let afterComma = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let length = 0; // bytes of the current element so far
  for await (const chunk of source) {
    const out = Buffer.allocUnsafe(chunk.length);
    let o = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (ended) {
        if (!isSpace(b)) throw new ViewError('VIEW_BAD_OBJECT', 'bytes after the end of the stored events array');
        continue;
      }
      if (!started) {
        if (isSpace(b)) continue;
        if (b !== LBRACKET) throw new ViewError('VIEW_BAD_OBJECT', 'the stored replay is not a JSON array');
        started = true;
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) inString = false;
      } else if (isSpace(b)) {
        continue;
      } else if (b === QUOTE) {
        inString = true;
      } else if (b === LBRACE || b === LBRACKET) {
        depth++;
      } else if (depth > 0 && (b === RBRACE || b === RBRACKET)) {
        depth--;
      } else if (depth === 0 && (b === COMMA || b === RBRACKET)) {
        if (length === 0 && (b === COMMA || afterComma))
          throw new ViewError('VIEW_BAD_OBJECT', 'an empty element in the stored events array');
        if (length > 0) out[o++] = LF;
        length = 0;
        afterComma = b === COMMA;
        ended = b === RBRACKET;
        continue;
      }
      if (++length > max) throw eventTooLarge(max);
      out[o++] = b;
    }
    if (o > 0) yield out.subarray(0, o);
  }
  if (!ended) throw new ViewError('VIEW_BAD_OBJECT', 'the stored events array is cut short');
}

/** NDJSON passed through as it comes, each line's length checked (a counter, not a buffer). */
async function* ndjsonLines(source: AsyncIterable<Buffer>, max: number): AsyncGenerator<Buffer> {
  let length = 0;
  for await (const chunk of source) {
    let from = 0;
    for (let at = chunk.indexOf(LF); at >= 0; at = chunk.indexOf(LF, from)) {
      if (length + at - from > max) throw eventTooLarge(max);
      length = 0;
      from = at + 1;
    }
    length += chunk.length - from;
    if (length > max) throw eventTooLarge(max);
    yield chunk;
  }
}

/** `source`'s bytes, refused with `VIEW_TOO_LARGE` (naming `key`) once they add up to more than `max`. */
async function* capped(source: AsyncIterable<Buffer>, max: number, key: string, gzip: boolean): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    if (total > max) {
      throw new ViewError(
        'VIEW_TOO_LARGE',
        `${key} holds more than ${max} bytes${gzip ? ' once inflated' : ''}: over the limit of what view serves`,
        { fileKey: key },
      );
    }
    yield chunk;
  }
}

export interface NdjsonLimits {
  /** The largest event, in bytes (a counter: no event is gathered). */
  maxEventBytes: number;
  /** The most bytes the object may hold after its gzip layer. */
  maxReplayBytes: number;
}

/**
 * The events of the stored object `body` (named `key` in errors) as NDJSON bytes, streamed: memory holds a few chunks
 * whatever the object inflates to. Over a limit: `ViewError` (`VIEW_TOO_LARGE` for the object, `VIEW_BAD_OBJECT` for
 * an event). Destroys `body` when done or stopped early.
 */
export async function* storedNdjson(
  body: Readable,
  format: OutputFormat,
  gzip: boolean,
  key: string,
  limits: NdjsonLimits,
): AsyncGenerator<Buffer> {
  const source: Readable = gzip ? body.pipe(createGunzip()) : body;
  if (gzip) body.on('error', (err) => source.destroy(err));
  try {
    const bytes = capped(source, limits.maxReplayBytes, key, gzip);
    if (format === 'ndjson') yield* ndjsonLines(bytes, limits.maxEventBytes);
    else yield* jsonArrayNdjson(format === 'json' ? bytes : pageEventsArray(bytes, badPage), limits.maxEventBytes);
  } finally {
    source.destroy();
    body.destroy();
  }
}

/**
 * The events of the stored object `body`, one Buffer of JSON each, read by the decoders as `verify` reads them (every
 * event valid JSON and at most `maxEventBytes`; the object's inflated bytes at most `DECODE_LIMITS.maxReplayBytes`):
 * a `DecodeError` names what is wrong and where. A gzip layer is found by its bytes (the third argument, how the
 * manifest says it is stored, is not needed for that). Destroys `body` when done or stopped early.
 */
export async function* storedEvents(
  body: Readable,
  format: OutputFormat,
  _gzip: boolean,
  maxEventBytes: number,
): AsyncGenerator<Buffer> {
  const key = 'the stored replay';
  try {
    for await (const events of decodeEventBytes(storedEventsArray(body, format, key, badPage), {
      version: 3,
      file: key,
      maxEventBytes,
    }))
      yield* events;
  } finally {
    body.destroy();
  }
}
