import type { ManifestStore } from '../../sinks/archive.js';
import type { ManifestCompactionResult } from '../../sinks/sink.js';
import { inShard, type Shard } from './shard.js';

/** The snapshot layout of a shard: `all`, or `<index>-of-<count>`. */
function compactionLayout(shard: Readonly<Shard> | undefined): string {
  return shard === undefined || shard.count === 1 ? 'all' : `${shard.index}-of-${shard.count}`;
}

export interface ManifestCompactorOptions {
  shard: Readonly<Shard> | undefined;
  /** Entries appended between two folds during the run. */
  every: number;
  onResult(result: ManifestCompactionResult): void;
  /** A fold that failed: the manifest is as it was (the log still holds everything); the run goes on. */
  onError(error: unknown): void;
  /** After each fold that wrote a snapshot (what keeps the archive's catalogue current); its failure is its own. */
  afterFold?: () => Promise<void>;
  /** The run's interrupt: stops a fold under way (what it leaves reads the same), and `finish` then throws its reason. */
  signal?: AbortSignal | undefined;
}

/**
 * Folds a run's manifest into a snapshot once `every` entries were appended since the last fold (one fold at a time,
 * in the background: appends go on meanwhile), and once more at the end of the run.
 */
export class ManifestCompactor {
  #appended = 0;
  #running: Promise<void> | undefined;
  readonly #layout: string;
  readonly #keep: ((replayId: string) => boolean) | undefined;

  constructor(
    private readonly manifest: ManifestStore,
    private readonly options: ManifestCompactorOptions,
  ) {
    const { shard } = options;
    this.#layout = compactionLayout(shard);
    this.#keep = shard === undefined || shard.count === 1 ? undefined : (id) => inShard(id, shard);
  }

  /** One entry was appended. */
  noteAppend(): void {
    this.#appended++;
    if (this.#appended >= this.options.every && this.#running === undefined) this.#start();
  }

  #start(): void {
    this.#appended = 0;
    this.#running = this.#fold().finally(() => {
      this.#running = undefined;
    });
  }

  async #fold(): Promise<void> {
    try {
      const { signal } = this.options;
      const result = await this.manifest.compact({ layout: this.#layout, keep: this.#keep, signal });
      if (result.compacted) this.options.onResult(result);
    } catch (err) {
      // Stopped by the interrupt: not a failure of the fold.
      if (this.options.signal?.aborted !== true) this.options.onError(err);
      return;
    }
    if (this.options.signal?.aborted === true) return;
    await this.options.afterFold?.();
  }

  /**
   * Waits for a fold in progress, then folds what was appended since (or left unfolded by an earlier run); throws the
   * interrupt's reason when the run was interrupted meanwhile (the fold stopped, the manifest as it was).
   */
  async finish(): Promise<void> {
    const { signal } = this.options;
    await this.#running;
    signal?.throwIfAborted();
    this.#start();
    await this.#running;
    signal?.throwIfAborted();
  }

  /** Waits for a fold in progress (a run that stops early folds nothing more). */
  async settle(): Promise<void> {
    await this.#running;
  }
}
