import { withThrownCode } from './error-codes.js';
import { SinkError } from './errors.js';
import type { ManifestEntry } from './sink.js';

/** Every serialised entry starts with exactly these bytes (`replay_id` is always the first key). */
const ENTRY_START = '{"replay_id":';

/**
 * The largest manifest record, in bytes (a local line without its `\n`, an S3 log object, a snapshot line): the one
 * limit every writer and reader of the manifest shares. A writer refuses to write a record over it, so that whatever
 * it writes reads back; a reader refuses one over it (a hand-made or hostile manifest), holding no more in memory.
 */
export const MAX_MANIFEST_RECORD_BYTES = 16 * 1024 * 1024;

/**
 * One manifest line: compact JSON with `replay_id` first, then `\n`. An entry over {@link MAX_MANIFEST_RECORD_BYTES}
 * is refused (`MANIFEST_TOO_LARGE`) and nothing is written: no reader would take it back.
 */
export function serializeManifestEntry(entry: ManifestEntry): Buffer {
  if (typeof entry.replay_id !== 'string') {
    throw new SinkError('MANIFEST_CORRUPT', 'manifest entry without a string replay_id');
  }
  const { replay_id, ...rest } = entry;
  const line = Buffer.from(JSON.stringify({ replay_id, ...rest }) + '\n', 'utf8');
  if (line.length - 1 > MAX_MANIFEST_RECORD_BYTES) {
    throw new SinkError(
      'MANIFEST_TOO_LARGE',
      `the manifest entry of ${replay_id.slice(0, 200)} takes ${line.length - 1} bytes, over the ${MAX_MANIFEST_RECORD_BYTES} a manifest record may take`,
      {
        replayId: replay_id,
      },
    );
  }
  return line;
}

function isEntry(value: unknown): value is ManifestEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v['replay_id'] === 'string' && typeof v['status'] === 'string';
}

/**
 * Parses one complete manifest line. Returns `undefined` for an empty line or for the remains of a torn write (a
 * process killed in the middle of its `write`, whose fragment another process's line may follow on the same line:
 * the complete entry at the end is then recovered). Throws `MANIFEST_CORRUPT` for anything else.
 */
export function parseManifestLine(line: string, lineNumber: number, target?: string): ManifestEntry | undefined {
  if (line.trim().length === 0) return undefined;
  const direct = tryParse(line);
  if (direct !== undefined) return direct;
  if (line.startsWith(ENTRY_START)) {
    // A JSON string cannot contain the unescaped sequence `{"replay_id":`, so the last one starts an entry.
    const start = line.lastIndexOf(ENTRY_START);
    if (start > 0) return tryParse(line.slice(start));
    return undefined; // a torn fragment alone
  }
  throw new SinkError('MANIFEST_CORRUPT', `manifest line ${lineNumber} is not a manifest entry`, {
    index: lineNumber,
    target,
  });
}

function tryParse(text: string): ManifestEntry | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isEntry(value) ? withThrownCode(value) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Splits a byte stream into manifest entries. A final line without `\n` is an append that did not finish (a kill
 * mid-write) and is ignored. A line longer than {@link MAX_MANIFEST_RECORD_BYTES} is refused (`MANIFEST_CORRUPT`).
 */
export async function* parseManifestStream(
  chunks: AsyncIterable<Buffer | Uint8Array>,
  target?: string,
): AsyncIterable<ManifestEntry> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNumber = 0;
  for await (const raw of chunks) {
    let chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    let nl = chunk.indexOf(0x0a);
    while (nl !== -1) {
      pending.push(chunk.subarray(0, nl));
      const bytes = pendingBytes + nl;
      lineNumber++;
      if (bytes > MAX_MANIFEST_RECORD_BYTES) throw lineTooLong(lineNumber, target);
      const line = Buffer.concat(pending, bytes).toString('utf8');
      pending = [];
      pendingBytes = 0;
      const entry = parseManifestLine(line, lineNumber, target);
      if (entry !== undefined) yield entry;
      chunk = chunk.subarray(nl + 1);
      nl = chunk.indexOf(0x0a);
    }
    if (chunk.length > 0) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes > MAX_MANIFEST_RECORD_BYTES) throw lineTooLong(lineNumber + 1, target);
    }
  }
}

function lineTooLong(lineNumber: number, target: string | undefined): SinkError {
  return new SinkError(
    'MANIFEST_CORRUPT',
    `manifest line ${lineNumber} is longer than ${MAX_MANIFEST_RECORD_BYTES} bytes`,
    {
      index: lineNumber,
      target,
    },
  );
}
