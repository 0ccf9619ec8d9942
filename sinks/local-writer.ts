/**
 * One replay being written to a local target: framed by the encoder into a temporary file (target/temp-file.ts),
 * hashed on the way (or by the hashing worker, output-hash.ts), flushed and renamed into place on commit.
 */
import type { Readable } from 'node:stream';
import { pageAssetParts, type CommitOptions } from './assets.js';
import { ReplayEncoder } from './encode.js';
import { describeCause, SinkError } from './errors.js';
import { HashWorkerError } from './hash-worker.js';
import { OutputHash, type HashWorkerSettings } from './output-hash.js';
import type { CommitResult, EventRun, OutputSpec, ReplayWriter } from './sink.js';
import type { TempFile } from './target/temp-file.js';

type WriterState = 'open' | 'committing' | 'committed' | 'aborted';

export class LocalReplayWriter implements ReplayWriter {
  private state: WriterState = 'open';
  private readonly encoder: ReplayEncoder;
  private readonly hash: OutputHash;
  private released = false;

  /** `release` is called once, when the writer ends, with whether an output was committed. */
  constructor(
    readonly key: string,
    private readonly context: { target: string; key: string; replayId: string },
    private readonly file: TempFile,
    output: OutputSpec,
    hashWorker: HashWorkerSettings,
    private readonly release: (committed: boolean) => Promise<void>,
    private readonly readAsset: (digest: string) => Promise<Readable | undefined>,
  ) {
    const hash = new OutputHash(() => file.readBack(), hashWorker);
    this.hash = hash;
    file.onWritten = (bytes) => hash.written(bytes);
    const target = {
      write: (chunk: Buffer) => {
        hash.update([chunk]);
        return file.out.write(chunk);
      },
      writev: (chunks: readonly Buffer[]) => {
        hash.update(chunks);
        return file.out.writev(chunks);
      },
    };
    this.encoder = new ReplayEncoder(output, target, context, { hash: false });
  }

  write(events: readonly Buffer[]): Promise<void> {
    return this.feed(() => this.encoder.write(events));
  }

  writeRuns(runs: readonly EventRun[]): Promise<void> {
    return this.feed(() => this.encoder.writeRuns(runs));
  }

  /** Hands events to the encoder while open; any failure aborts the output (temporary file removed). */
  private async feed(encode: () => Promise<void>): Promise<void> {
    if (this.state !== 'open') throw new SinkError('SINK_STATE', `write after ${this.state}`, this.context);
    try {
      await encode();
    } catch (err) {
      await this.abort(err);
      throw this.wrap(err, 'cannot write the temporary file');
    }
  }

  async commit(options: CommitOptions = {}): Promise<CommitResult> {
    if (this.state !== 'open') throw new SinkError('SINK_STATE', `commit after ${this.state}`, this.context);
    this.state = 'committing';
    try {
      const assets = options.assets;
      const summary = await this.encoder.finish(assets && pageAssetParts(assets, this.readAsset, this.context.target));
      await this.file.drain();
      // The worker finishes hashing while the file is flushed; both are waited for before anything else happens.
      const [hashed, synced] = await Promise.allSettled([this.hash.digest(summary.bytes), this.file.sync()]);
      if (synced.status === 'rejected') throw synced.reason;
      if (hashed.status === 'rejected') throw hashed.reason;
      const sha256 = hashed.value;
      await this.file.install();
      this.state = 'committed';
      await this.end(true);
      return { key: this.key, bytes: summary.bytes, sha256, eventCount: summary.eventCount };
    } catch (err) {
      if (this.file.installed) {
        // Renamed into place; only flushing its folder failed.
        this.state = 'committed';
        await this.end(true);
      } else {
        this.state = 'open';
        await this.abort(err);
      }
      throw this.wrap(err, 'cannot commit the replay');
    }
  }

  async abort(reason?: unknown): Promise<void> {
    if (this.state === 'aborted' || this.state === 'committed') return;
    this.state = 'aborted';
    this.encoder.destroy(reason);
    this.hash.cancel();
    await this.file.discard();
    await this.end(false);
  }

  private async end(committed: boolean): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.release(committed);
  }

  private wrap(err: unknown, what: string): SinkError {
    if (err instanceof SinkError) return err;
    if (err instanceof HashWorkerError && err.kind === 'size') {
      return new SinkError('SINK_INTEGRITY', `${what}: the temporary file is not what was written (${err.message})`, {
        ...this.context,
        cause: err,
      });
    }
    return new SinkError('SINK_IO', `${what}: ${describeCause(err)}`, { ...this.context, cause: err });
  }
}
