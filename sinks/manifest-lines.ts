import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
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

/** One file (local) or object (S3) of a manifest as its NDJSON bytes, in order. */
export interface ManifestFile {
  /** Its key, relative to the target (what an error names). */
  readonly key: string;
  /**
   * Its bytes. Each chunk is the reader's once given: the file neither keeps nor reuses it, nor writes to its buffer
   * again (a chunk spanning the whole of its `ArrayBuffer` may be transferred to another thread).
   */
  readonly chunks: AsyncIterable<Uint8Array>;
  /** The chunks are the file gzipped (an S3 snapshot): {@link gunzipManifest} gives its bytes. */
  readonly gzip?: boolean;
}

/**
 * A manifest as the bytes of its files, in reading order: each file's lines, split by {@link ManifestLines} file by
 * file, are the entries `readManifest` gives. `newest` says which of a replay's entries is its state: `last`, the
 * last one read (local: the snapshot, folded files, the log); `recorded`, the one with the latest `recorded_at`, the
 * last read among equal ones (S3: its snapshots and log merged by time, as manifest-merge.ts orders them).
 */
export interface ManifestBytes {
  readonly newest: 'last' | 'recorded';
  readonly files: AsyncIterable<ManifestFile>;
}

/**
 * A gzipped manifest file's bytes (an S3 snapshot), inflated as they come: where `read` and a catalogue's build thread
 * alike gunzip it. Whatever fails but a `SinkError` (it does not gunzip, its source breaks off) is `MANIFEST_CORRUPT`
 * naming the file.
 */
export async function* gunzipManifest(
  chunks: AsyncIterable<Uint8Array>,
  key: string,
  target: string | undefined,
): AsyncIterable<Buffer> {
  const input = Readable.from(chunks, { objectMode: false });
  const gunzip = createGunzip();
  input.on('error', (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  try {
    yield* gunzip as AsyncIterable<Buffer>;
  } catch (err) {
    if (err instanceof SinkError) throw err;
    throw new SinkError('MANIFEST_CORRUPT', `manifest snapshot ${key} cannot be read: ${(err as Error).message}`, {
      target,
      key,
      cause: err,
    });
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

/**
 * Entries serialised again (`serializeManifestEntry`), one a line, in pieces of about 1 MiB: the bytes of a manifest
 * read as entries. One without a string `replay_id` (a caller's sink may give anything) is no replay's: left out.
 */
export async function* manifestLines(entries: AsyncIterable<ManifestEntry | undefined>): AsyncIterable<Buffer> {
  let lines: Buffer[] = [];
  let bytes = 0;
  for await (const entry of entries) {
    if (typeof entry?.replay_id !== 'string') continue;
    const line = serializeManifestEntry(entry);
    lines.push(line);
    bytes += line.length;
    if (bytes >= 1 << 20) {
      yield Buffer.concat(lines, bytes);
      lines = [];
      bytes = 0;
    }
  }
  if (bytes > 0) yield Buffer.concat(lines, bytes);
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
 * Splits the bytes of one manifest file, pushed in order, into entries: what {@link parseManifestStream} reads with,
 * and the catalogue's build thread. Lines are numbered from 1 in the file (for `MANIFEST_CORRUPT`). A final line
 * without `\n` is never parsed: an append that did not finish (a kill mid-write), dropped with the splitter. A line
 * longer than {@link MAX_MANIFEST_RECORD_BYTES} is refused (`MANIFEST_CORRUPT`).
 */
export class ManifestLines {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #lineNumber = 0;

  constructor(private readonly target?: string) {}

  /** The entries of the lines `raw` completes. */
  *push(raw: Buffer | Uint8Array): Generator<ManifestEntry> {
    let chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    let nl = chunk.indexOf(0x0a);
    while (nl !== -1) {
      this.#pending.push(chunk.subarray(0, nl));
      const bytes = this.#pendingBytes + nl;
      const lineNumber = ++this.#lineNumber;
      if (bytes > MAX_MANIFEST_RECORD_BYTES) throw lineTooLong(lineNumber, this.target);
      const line = Buffer.concat(this.#pending, bytes).toString('utf8');
      this.#pending = [];
      this.#pendingBytes = 0;
      const entry = parseManifestLine(line, lineNumber, this.target);
      if (entry !== undefined) yield entry;
      chunk = chunk.subarray(nl + 1);
      nl = chunk.indexOf(0x0a);
    }
    if (chunk.length > 0) {
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      if (this.#pendingBytes > MAX_MANIFEST_RECORD_BYTES) throw lineTooLong(this.#lineNumber + 1, this.target);
    }
  }
}

/** Splits a byte stream (one manifest file) into manifest entries, as {@link ManifestLines} does. */
export async function* parseManifestStream(
  chunks: AsyncIterable<Buffer | Uint8Array>,
  target?: string,
): AsyncIterable<ManifestEntry> {
  const lines = new ManifestLines(target);
  for await (const raw of chunks) yield* lines.push(raw);
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
