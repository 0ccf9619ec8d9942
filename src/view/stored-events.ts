/**
 * The events of a stored replay object, one Buffer (compact JSON) each, read as a stream: a `json` object is split
 * at the top-level commas of its array, an `ndjson` one at its newlines, an `html` page's blocks as one array, `.gz`
 * inflated on the way. Memory holds one
 * event at a time (at most `maxEventBytes`), whatever the replay's size.
 */
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { pageEventsArray } from '../../sinks/page-events.js';
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

/** One event being gathered from chunks, refused beyond `max` bytes. */
class Gather {
  private parts: Buffer[] = [];
  private length = 0;
  constructor(private readonly max: number) {}
  add(part: Buffer): void {
    if (part.length === 0) return;
    this.length += part.length;
    if (this.length > this.max) throw new ViewError('VIEW_BAD_OBJECT', `an event of the stored replay is over ${this.max} bytes`);
    this.parts.push(part);
  }
  take(): Buffer {
    const out = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.length);
    this.parts = [];
    this.length = 0;
    return out;
  }
  get empty(): boolean {
    return this.length === 0;
  }
}

async function* jsonArrayEvents(source: AsyncIterable<Buffer>, max: number): AsyncGenerator<Buffer> {
  const event = new Gather(max);
  let started = false;
  let ended = false;
  let depth = 0; // nesting inside the current event
  let inString = false;
  let escaped = false;
  for await (const chunk of source) {
    let from = 0;
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
        from = i + 1;
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) inString = false;
        continue;
      }
      if (b === QUOTE) inString = true;
      else if (b === LBRACE || b === LBRACKET) depth++;
      else if (depth > 0 && (b === RBRACE || b === RBRACKET)) depth--;
      else if (depth === 0 && (b === COMMA || b === RBRACKET)) {
        event.add(chunk.subarray(from, i));
        from = i + 1;
        const one = event.take();
        const trimmed = one.toString('latin1').trim();
        if (trimmed.length > 0) yield one;
        else if (b === COMMA) throw new ViewError('VIEW_BAD_OBJECT', 'an empty element in the stored events array');
        if (b === RBRACKET) ended = true;
      }
    }
    if (started && !ended) event.add(chunk.subarray(from));
  }
  if (!ended) throw new ViewError('VIEW_BAD_OBJECT', 'the stored events array is cut short');
}

async function* ndjsonEvents(source: AsyncIterable<Buffer>, max: number): AsyncGenerator<Buffer> {
  const line = new Gather(max);
  for await (const chunk of source) {
    let from = 0;
    for (let at = chunk.indexOf(LF); at >= 0; at = chunk.indexOf(LF, from)) {
      line.add(chunk.subarray(from, at));
      from = at + 1;
      if (!line.empty) yield line.take();
    }
    line.add(chunk.subarray(from));
  }
  if (!line.empty) yield line.take();
}

const badPage = (message: string): ViewError => new ViewError('VIEW_BAD_OBJECT', message);

/**
 * The events of the stored object `body` (`gzip`: inflate first): a `json` array, `ndjson` lines, or the blocks of an
 * `html` page (sinks/page-events.ts). Destroys `body` when the caller stops early.
 */
export async function* storedEvents(body: Readable, format: OutputFormat, gzip: boolean, maxEventBytes: number): AsyncGenerator<Buffer> {
  const source: Readable = gzip ? body.pipe(createGunzip()) : body;
  if (gzip) body.on('error', (err) => source.destroy(err));
  try {
    if (format === 'ndjson') yield* ndjsonEvents(source, maxEventBytes);
    else yield* jsonArrayEvents(format === 'json' ? source : pageEventsArray(source, badPage), maxEventBytes);
  } finally {
    source.destroy();
    body.destroy();
  }
}
