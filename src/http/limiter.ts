/**
 * A concurrency cap per API family (one p-queue each). A slot is held for the whole life of a request,
 * including reading its body, so the cap counts what the server actually sees.
 */
import PQueue from 'p-queue';
import type { ApiFamily } from './options.js';

export type Release = () => void;

export class FamilyLimiter {
  readonly #queues = new Map<ApiFamily, PQueue>();
  readonly #concurrency: Readonly<Record<ApiFamily, number>>;

  constructor(concurrency: Readonly<Record<ApiFamily, number>>) {
    this.#concurrency = concurrency;
  }

  #queue(family: ApiFamily): PQueue {
    let q = this.#queues.get(family);
    if (!q) {
      const c = this.#concurrency[family];
      if (!c) throw new TypeError(`unknown API family ${JSON.stringify(family)}`);
      q = new PQueue({ concurrency: c });
      this.#queues.set(family, q);
    }
    return q;
  }

  /** Cap of a family. */
  limit(family: ApiFamily): number {
    return this.#concurrency[family];
  }

  /** Requests of a family holding a slot now. */
  active(family: ApiFamily): number {
    return this.#queues.get(family)?.pending ?? 0;
  }

  /** Requests of a family waiting for a slot. */
  waiting(family: ApiFamily): number {
    return this.#queues.get(family)?.size ?? 0;
  }

  /**
   * Waits for a slot and resolves with the function that gives it back (idempotent).
   * Aborting the signal while waiting removes the request from the queue and rejects with the signal's reason.
   */
  acquire(family: ApiFamily, signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const q = this.#queue(family);
    return new Promise<Release>((resolve, reject) => {
      let free!: () => void;
      const held = new Promise<void>((r) => (free = r));
      let released = false;
      const release: Release = () => {
        if (!released) {
          released = true;
          free();
        }
      };
      q.add(
        async () => {
          resolve(release);
          await held;
        },
        signal ? { signal } : {},
      ).catch((err: unknown) => reject(signal?.aborted ? signal.reason : err));
    });
  }

  /** Runs `fn` inside a slot of `family`. */
  async run<T>(family: ApiFamily, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(family, signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
