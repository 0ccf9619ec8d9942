/**
 * A stored output read back as one JSON array of its events, whatever its format: `json` is that array already;
 * `ndjson` becomes it by turning its line ends into commas; an `html` page gives the arrays of its events blocks
 * joined (page-events.ts). The bytes given are after any gzip layer, except `json`'s (the decoders sniff gzip
 * themselves). What `verify` decodes and the video export reads; memory holds a chunk or two.
 */
import { inflatedChunks } from '../decoders/gzip.js';
import { pageEventsArray } from './page-events.js';
import type { OutputFormat } from './sink.js';

const LF = 0x0a;
const COMMA = Buffer.from(',');
const COMMA_BYTE = 0x2c;
const OPEN_ARRAY = Buffer.from('[');
const CLOSE_ARRAY = Buffer.from(']');

/**
 * The JSON array of the events of a stored object's bytes (`key` names it in decoding errors; `malformed` makes the
 * error of a page whose events blocks are broken), for `decodeEventBatches`.
 */
export function storedEventsArray(
  bytes: AsyncIterable<Buffer>,
  format: OutputFormat,
  key: string,
  malformed: (message: string) => Error,
): AsyncIterable<Buffer> {
  if (format === 'json') return bytes;
  const inflated = inflatedChunks(bytes, { file: key });
  return format === 'ndjson' ? ndjsonAsArray(inflated) : pageEventsArray(inflated, malformed);
}

/** NDJSON (one event a line, each line ended by `\n`) as the JSON array of the same events. */
async function* ndjsonAsArray(lines: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield OPEN_ARRAY;
  let lineEnded = false;
  for await (const chunk of lines) {
    if (chunk.length === 0) continue;
    // The line end before this chunk separates two events (a last one would have ended the array).
    if (lineEnded) yield COMMA;
    const ended = chunk[chunk.length - 1] === LF;
    // The decoders never hand a chunk out twice: it is ours to change.
    for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) chunk[at] = COMMA_BYTE;
    if (chunk.length > 1 || !ended) yield ended ? chunk.subarray(0, chunk.length - 1) : chunk;
    lineEnded = ended;
  }
  yield CLOSE_ARRAY;
}
