import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, type Gzip } from 'node:zlib';
import { SinkError } from './errors.js';
import { escapeForScript, playerPage, type PlayerPage } from './player-page.js';
import type { OutputSpec } from './sink.js';

/** Where encoded bytes go; `write` resolves when the destination can take more (backpressure). */
export interface ByteTarget {
  write(chunk: Buffer): Promise<void>;
}

export interface EncodedSummary {
  /** Bytes handed to the target (after gzip). */
  bytes: number;
  /** Hex SHA-256 of those bytes. */
  sha256: string;
  eventCount: number;
}

export interface EncoderContext {
  replayId?: string;
  key?: string;
  target?: string;
}

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

/**
 * Frames events (one Buffer of compact JSON per event) as a JSON array or NDJSON, optionally gzips, and hands the
 * result to a `ByteTarget` while counting and hashing exactly the bytes handed over. Memory stays bounded: one
 * batch of framed events plus zlib's buffers; `write` waits for the target.
 */
export class ReplayEncoder {
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;
  private events = 0;
  private readonly gzip: Gzip | undefined;
  private readonly gzipDone: Promise<void> | undefined;
  private failure: unknown;
  private finished = false;
  /** The player page around the events array, for the `html` format. */
  private readonly page: PlayerPage | undefined;

  constructor(
    private readonly output: OutputSpec,
    private readonly target: ByteTarget,
    private readonly context: EncoderContext = {},
  ) {
    if (output.format === 'html') this.page = playerPage(context.replayId ?? context.key ?? 'replay');
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
    this.hash.update(chunk);
    this.bytes += chunk.length;
    await this.target.write(chunk);
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
      } else {
        parts.push(this.events + i === 0 ? OPEN : COMMA, event);
      }
    }
    this.events += events.length;
    await this.emit(Buffer.concat(parts));
  }

  /** Writes the closing bytes, flushes gzip, and reports what was stored. */
  async finish(): Promise<EncodedSummary> {
    if (this.finished) throw new SinkError('SINK_STATE', 'replay output finished twice', this.context);
    if (this.page !== undefined) {
      await this.emit(Buffer.concat(this.events === 0 ? [this.page.head, EMPTY_ARRAY, this.page.tail] : [CLOSE, this.page.tail]));
    } else if (this.output.format === 'json') {
      await this.emit(this.events === 0 ? EMPTY_ARRAY : CLOSE);
    }
    this.finished = true;
    if (this.gzip !== undefined) {
      this.gzip.end();
      await this.gzipDone;
    }
    if (this.failure !== undefined) throw this.failure;
    return { bytes: this.bytes, sha256: this.hash.digest('hex'), eventCount: this.events };
  }

  /** Stops everything; later calls fail. */
  destroy(reason?: unknown): void {
    this.failure ??= reason ?? new SinkError('SINK_STATE', 'replay output aborted', this.context);
    this.finished = true;
    this.gzip?.destroy();
  }
}
