import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, type Gzip } from 'node:zlib';
import { SinkError, type SinkErrorContext } from './errors.js';
import { escapeForScript, PAGE_BLOCK_BYTES, playerPage, type PlayerPage } from './player-page.js';
import type { CommitResult, EventRun, OutputSpec } from './sink.js';

/** Where encoded bytes go; `write` resolves when the destination can take more (backpressure). */
export interface ByteTarget {
  write(chunk: Buffer): Promise<void>;
  /** Optional: several chunks at once, in order (e.g. one `writev`), instead of `write` of their concatenation. */
  writev?(chunks: readonly Buffer[]): Promise<void>;
}

/** Bytes handed to the target (after gzip), their SHA-256 (`''` from an encoder with `hash: false`), events. */
export type EncodedSummary = Omit<CommitResult, 'key'>;

export interface EncoderOptions {
  /** Hash the bytes handed to the target (default true); `false` for a caller that hashes them itself. */
  hash?: boolean;
}

export type EncoderContext = Pick<SinkErrorContext, 'replayId' | 'key' | 'target'>;

const CONTENT_TYPES = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  html: 'text/html; charset=utf-8',
} as const;

/** MIME type of an output: `application/json`, `application/x-ndjson` or `text/html; charset=utf-8`. */
export function contentTypeFor(output: OutputSpec): string {
  return CONTENT_TYPES[output.format];
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const EMPTY_ARRAY = Buffer.from('[]');
const NEWLINE = Buffer.from('\n');
const COMMA_BYTE = 0x2c;

/** A run's events one a line: a copy of its bytes with the separating commas turned into newlines, plus a final one. */
function ndjsonLines(run: EventRun): Buffer {
  const { bytes, ends } = run;
  const out = Buffer.allocUnsafe(bytes.length + 1);
  bytes.copy(out, 0);
  for (let k = 0; k < ends.length - 1; k++) out[ends[k]!] = 0x0a;
  out[bytes.length] = 0x0a;
  return out;
}

/**
 * Frames events (one Buffer of compact JSON per event) as a JSON array or NDJSON, optionally gzips, and hands the
 * result to a `ByteTarget` while counting and hashing exactly the bytes handed over. Memory stays bounded: one
 * batch of framed events plus zlib's buffers; `write` waits for the target.
 */
export class ReplayEncoder {
  private readonly hash: Hash | undefined;
  private bytes = 0;
  private events = 0;
  private readonly gzip: Gzip | undefined;
  private readonly gzipDone: Promise<void> | undefined;
  private failure: unknown;
  private finished = false;
  /** The player page around the events array, for the `html` format. */
  private readonly page: PlayerPage | undefined;
  /** html: event bytes in the page's current block (a new block starts before the event that would pass the size). */
  private blockBytes = 0;

  constructor(
    private readonly output: OutputSpec,
    private readonly target: ByteTarget,
    private readonly context: EncoderContext = {},
    options: EncoderOptions = {},
  ) {
    if (options.hash !== false) this.hash = createHash('sha256');
    if (output.format === 'html') this.page = playerPage(context.replayId ?? context.key ?? 'replay', output.player);
    if (output.gzip) {
      const gzip = createGzip();
      const store = this.store.bind(this);
      const out = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          store(chunk).then(() => callback(), callback);
        },
      });
      this.gzip = gzip;
      this.gzipDone = pipeline(gzip, out);
      this.gzipDone.catch((err: unknown) => {
        this.failure ??= err;
      });
    }
  }

  private async store(chunk: Buffer): Promise<void> {
    this.hash?.update(chunk);
    this.bytes += chunk.length;
    await this.target.write(chunk);
  }

  /** Passes on several chunks in order; the target gets them without a copy when it takes `writev`. */
  private async emitParts(parts: readonly Buffer[]): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (this.gzip === undefined && this.target.writev !== undefined) {
      for (const part of parts) {
        this.hash?.update(part);
        this.bytes += part.length;
      }
      await this.target.writev(parts);
      return;
    }
    await this.emit(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
  }

  private async emit(chunk: Buffer): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (this.gzip === undefined) return this.store(chunk);
    if (!this.gzip.write(chunk)) {
      // `once` rejects when the gzip stream errors (pipeline destroys it on any failure downstream).
      await Promise.race([once(this.gzip, 'drain'), this.gzipDone]);
    }
    if (this.failure !== undefined) throw this.failure;
  }

  /** Frames and passes on a batch of events, in order. */
  async write(events: readonly Buffer[]): Promise<void> {
    if (this.finished) throw new SinkError('SINK_STATE', 'write after the replay output was finished', this.context);
    if (events.length === 0) return;
    const parts: Buffer[] = [];
    const ndjson = this.output.format === 'ndjson';
    if (this.page !== undefined && this.events === 0) parts.push(this.page.head);
    const page = this.page;
    for (let i = 0; i < events.length; i++) {
      const event = this.page === undefined ? events[i]! : escapeForScript(events[i]!);
      if (event.indexOf(0x0a) !== -1 || event.indexOf(0x0d) !== -1) {
        throw new SinkError('SINK_BAD_EVENT', `event ${this.events + i} contains a raw line break`, {
          ...this.context,
          index: this.events + i,
        });
      }
      if (ndjson) {
        parts.push(event, NEWLINE);
      } else if (page !== undefined) {
        // Blocks are measured in the events' bytes before escaping, as in `pageParts`.
        const size = events[i]!.length;
        parts.push(this.events + i === 0 ? OPEN : this.blockBreak(size) ? page.between : COMMA, event);
        this.blockBytes += size + 1;
      } else {
        parts.push(this.events + i === 0 ? OPEN : COMMA, event);
      }
    }
    this.events += events.length;
    await this.emit(Buffer.concat(parts));
  }

  /**
   * Frames and passes on runs of events (see `EventRun` in sink.ts), with the same output as `write` of their events.
   * JSON and html take each run as one slice; ndjson gets a copy with the separating commas turned into newlines.
   */
  async writeRuns(runs: readonly EventRun[]): Promise<void> {
    if (this.finished) throw new SinkError('SINK_STATE', 'write after the replay output was finished', this.context);
    const parts: Buffer[] = [];
    const ndjson = this.output.format === 'ndjson';
    let count = 0;
    for (const run of runs) {
      const n = run.ends.length;
      if (n === 0) continue;
      this.checkRun(run, this.events + count);
      if (ndjson) parts.push(ndjsonLines(run));
      else if (this.page !== undefined) this.pageParts(this.page, run, this.events + count === 0, parts);
      else parts.push(this.events + count === 0 ? OPEN : COMMA, run.bytes);
      count += n;
    }
    if (count === 0) return;
    this.events += count;
    await this.emitParts(parts);
  }

  /** html: whether the page's current block is full, so that an event of `size` bytes starts the next one. */
  private blockBreak(size: number): boolean {
    if (this.blockBytes === 0 || this.blockBytes + size <= PAGE_BLOCK_BYTES) return false;
    this.blockBytes = 0;
    return true;
  }

  /** html: a run's parts, escaped for the page and cut into blocks between its events (the run is well formed). */
  private pageParts(page: PlayerPage, run: EventRun, first: boolean, parts: Buffer[]): void {
    const { bytes, ends } = run;
    if (first) parts.push(page.head);
    let piece = 0; // where the part not yet handed over starts
    let from = 0; // where event k starts
    for (let k = 0; k < ends.length; k++) {
      const end = ends[k]!;
      const size = end - from;
      if (k === 0) parts.push(first ? OPEN : this.blockBreak(size) ? page.between : COMMA);
      else if (this.blockBreak(size)) {
        parts.push(escapeForScript(bytes.subarray(piece, from - 1)), page.between);
        piece = from;
      }
      this.blockBytes += size + 1;
      from = end + 1;
    }
    parts.push(escapeForScript(bytes.subarray(piece)));
  }

  /** Refuses a run that is not well formed or that holds a raw line break (one native search per byte value). */
  private checkRun(run: EventRun, first: number): void {
    const { bytes, ends } = run;
    const n = ends.length;
    let from = 0;
    for (let k = 0; k < n; k++) {
      const end = ends[k]!;
      const last = k === n - 1;
      if (end < from || (last ? end !== bytes.length : end >= bytes.length || bytes[end] !== COMMA_BYTE)) {
        throw new SinkError('SINK_BAD_EVENT', `event ${first + k} is not a well-formed part of its run`, {
          ...this.context,
          index: first + k,
        });
      }
      from = end + 1;
    }
    let at = bytes.indexOf(0x0a);
    const cr = bytes.indexOf(0x0d);
    if (cr !== -1 && (at === -1 || cr < at)) at = cr;
    if (at !== -1) {
      let k = 0;
      while (ends[k]! < at) k++;
      throw new SinkError('SINK_BAD_EVENT', `event ${first + k} contains a raw line break`, {
        ...this.context,
        index: first + k,
      });
    }
  }

  /**
   * Writes the closing bytes, flushes gzip, and reports what was stored. `pageExtra` (html only; other formats ignore
   * it): parts written into the page after the events, before its end (the captured assets' blocks).
   */
  async finish(pageExtra?: AsyncIterable<Buffer>): Promise<EncodedSummary> {
    if (this.finished) throw new SinkError('SINK_STATE', 'replay output finished twice', this.context);
    if (this.page !== undefined) {
      const opening = this.events === 0 ? [this.page.head, EMPTY_ARRAY] : [CLOSE];
      if (pageExtra === undefined) {
        await this.emit(Buffer.concat([...opening, this.page.tail]));
      } else {
        await this.emit(Buffer.concat([...opening, this.page.close]));
        for await (const part of pageExtra) await this.emit(part);
        await this.emit(this.page.end);
      }
    } else if (this.output.format === 'json') {
      await this.emit(this.events === 0 ? EMPTY_ARRAY : CLOSE);
    }
    this.finished = true;
    if (this.gzip !== undefined) {
      this.gzip.end();
      await this.gzipDone;
    }
    if (this.failure !== undefined) throw this.failure;
    return { bytes: this.bytes, sha256: this.hash?.digest('hex') ?? '', eventCount: this.events };
  }

  /** Stops everything; later calls fail. */
  destroy(reason?: unknown): void {
    this.failure ??= reason ?? new SinkError('SINK_STATE', 'replay output aborted', this.context);
    this.finished = true;
    this.gzip?.destroy();
  }
}
