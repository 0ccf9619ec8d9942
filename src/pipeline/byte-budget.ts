import { Notifier } from './signal.js';
import { ConfigError } from '../errors.js';

/**
 * Compressed bytes held in memory by downloads running ahead of the file being written. Shared by every replay of a
 * run so that memory stays bounded whatever the number and size of replays. The current file of a replay never
 * waits for it (it streams straight into the sink); a download ahead starts only when its size fits.
 */
export class ByteBudget {
  private used = 0;
  private readonly releases = new Notifier();

  constructor(readonly limit: number) {
    if (!(limit > 0)) throw new ConfigError(`prefetchBytes must be positive, got ${String(limit)}`);
  }

  get inUse(): number {
    return this.used;
  }

  get exhausted(): boolean {
    return this.used >= this.limit;
  }

  /** Takes `bytes` if they fit under the limit. */
  tryTake(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  take(bytes: number): void {
    this.used += bytes;
  }

  release(bytes: number): void {
    if (bytes <= 0) return;
    this.used = Math.max(0, this.used - bytes);
    this.wake();
  }

  /** Resolves at the next release or wake-up; callers re-check their own condition. */
  changed(): Promise<void> {
    return this.releases.wait();
  }

  /** Wakes every waiter (e.g. because one of them became the current file and must no longer wait). */
  wake(): void {
    this.releases.notify();
  }
}
