import { Notifier } from './signal.js';

/** An unbounded queue between producers (pushing) and one async-iterating consumer. */
export class Channel<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private closed = false;
  private failure: { error: unknown } | undefined;
  private readonly changed = new Notifier();

  push(item: T): void {
    if (this.closed) return;
    this.items.push(item);
    this.changed.notify();
  }

  close(): void {
    this.closed = true;
    this.changed.notify();
  }

  fail(error: unknown): void {
    if (!this.failure) this.failure = { error };
    this.closed = true;
    this.changed.notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.failure) throw this.failure.error;
      if (this.closed) return;
      await this.changed.wait();
    }
  }
}
