/**
 * Fetching captured assets: only URLs of the allowed origins (redirects too), a few at a time, each within a time
 * limit and a size cap. Requests carry no cookie, no credential and no referrer: only `accept` and `user-agent`.
 * A transient failure (408, 429, 5xx, a connection reset or refused) is tried again after a full-jitter backoff, as
 * long as the asset's time limit leaves room; what still fails is marked `transient`, so that the run does not
 * remember it for long (capture.ts).
 */
import PQueue from 'p-queue';
import { backoffDelay, isRetryableNetworkError, isRetryableStatus } from '../http/retry.js';
import type { Dispatcher } from 'undici';
import { Agent, request } from '../http/undici-parts.js';
import { resolveAssetUrl } from './collect.js';
import { systemClock, type Clock } from '../util/clock.js';

export interface AssetFetchLimits {
  /** Requests in flight at once, for the whole run. */
  concurrency: number;
  /** Largest asset in bytes; a larger one is not captured (`too large`). */
  maxBytes: number;
  /** Longest time one asset may take (headers and body, redirects included). */
  timeoutMs: number;
  /** Redirects followed, each within the allowed origins. */
  maxRedirects: number;
  /** Attempts after the first for a transient failure, within `timeoutMs`. */
  retries: number;
  /** First backoff ceiling, ms: the n-th retry waits a random time below `retryBaseMs · 2^n`. */
  retryBaseMs: number;
}

/** A failure is `transient` when another try later may succeed (a timeout, 408, 429, 5xx, a network error). */
export type FetchOutcome = { ok: true; body: Buffer; type: string } | { ok: false; reason: string; transient?: true };

/** The origin of an allow-list entry (`https://cdn.example.com`, a trailing `/` or path ignored); undefined when not http(s). */
export function originOf(text: string): string | undefined {
  try {
    const url = new URL(text.trim());
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '')
      return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * Stops reading a body: undici's body emits an `AbortError` when destroyed unread, which nothing would handle (an
 * uncaught exception that ends the process); it is ignored here.
 */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => undefined);
  body.destroy();
}

export class AssetFetcher {
  private readonly agent: Dispatcher;
  /** Whether the agent is this fetcher's own (closed with it) rather than the run's transport's. */
  private readonly ownsAgent: boolean;
  private readonly queue: PQueue;

  /**
   * `dispatcher`: the run's (its transport's keep-alive Agent); without one, the fetcher makes its own. `clock`: the
   * one each asset's time limit and retry waits run on.
   */
  constructor(
    private readonly allowed: ReadonlySet<string>,
    private readonly limits: AssetFetchLimits,
    dispatcher?: Dispatcher,
    private readonly clock: Clock = systemClock,
  ) {
    this.ownsAgent = dispatcher === undefined;
    this.agent = dispatcher ?? new Agent({ connections: limits.concurrency });
    this.queue = new PQueue({ concurrency: limits.concurrency });
  }

  /** Whether `url`'s origin is in the allow-list. */
  allows(url: string): boolean {
    try {
      return this.allowed.has(new URL(url).origin);
    } catch {
      return false;
    }
  }

  /** Fetches `url` (it is not fetched when its origin is not allowed); throws only when `signal` aborts. */
  fetch(url: string, signal: AbortSignal | undefined): Promise<FetchOutcome> {
    if (!this.allows(url)) return Promise.resolve({ ok: false, reason: 'origin not allowed' });
    return this.queue.add(() => this.get(url, signal)) as Promise<FetchOutcome>;
  }

  /** Tries `url` until it is fetched, fails for good, runs out of retries or of its time limit. */
  private async get(url: string, outer: AbortSignal | undefined): Promise<FetchOutcome> {
    outer?.throwIfAborted();
    const expiry = new AbortController();
    const cancel = this.clock.after(this.limits.timeoutMs, () => expiry.abort());
    try {
      return await this.tries(url, outer, expiry.signal);
    } finally {
      cancel();
    }
  }

  /** The attempts of `get`, until `timeout` (the asset's time limit) aborts. */
  private async tries(url: string, outer: AbortSignal | undefined, timeout: AbortSignal): Promise<FetchOutcome> {
    const signal = outer === undefined ? timeout : AbortSignal.any([outer, timeout]);
    const deadline = this.clock.now() + this.limits.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(url, signal, outer, timeout);
      if (outcome.ok || outcome.transient !== true || timeout.aborted) return outcome;
      const wait = backoffDelay(attempt, {
        baseDelayMs: this.limits.retryBaseMs,
        maxDelayMs: this.limits.timeoutMs,
        random: Math.random,
      });
      if (attempt >= this.limits.retries || this.clock.now() + wait >= deadline) {
        return attempt === 0 ? outcome : { ...outcome, reason: `${outcome.reason} (${attempt + 1} attempts)` };
      }
      try {
        await this.clock.sleep(wait, signal);
      } catch {
        if (outer?.aborted) throw outer.reason;
        return { ok: false, reason: `timed out after ${this.limits.timeoutMs} ms`, transient: true };
      }
    }
  }

  private async attempt(
    url: string,
    signal: AbortSignal,
    outer: AbortSignal | undefined,
    timeout: AbortSignal,
  ): Promise<FetchOutcome> {
    let current = url;
    try {
      for (let hop = 0; ; hop++) {
        const response = await request(new URL(current), {
          dispatcher: this.agent,
          headersTimeout: this.limits.timeoutMs,
          bodyTimeout: this.limits.timeoutMs,
          method: 'GET',
          headers: { accept: '*/*', 'user-agent': 'replay-export (asset capture)' },
          signal,
        });
        const { statusCode, headers, body } = response;
        if (statusCode >= 300 && statusCode < 400 && typeof headers.location === 'string') {
          await body.dump();
          const next = resolveAssetUrl(headers.location, current);
          if (next === undefined) return { ok: false, reason: 'redirected to a URL that is not http(s)' };
          if (!this.allows(next))
            return { ok: false, reason: `redirected to an origin not allowed (${new URL(next).origin})` };
          if (hop >= this.limits.maxRedirects) return { ok: false, reason: 'too many redirects' };
          current = next;
          continue;
        }
        if (statusCode !== 200) {
          await body.dump();
          return statusCode === 408 || isRetryableStatus(statusCode)
            ? { ok: false, reason: `HTTP ${statusCode}`, transient: true }
            : { ok: false, reason: `HTTP ${statusCode}` };
        }
        const declared = Number(headers['content-length']);
        if (Number.isFinite(declared) && declared > this.limits.maxBytes) {
          discard(body);
          return { ok: false, reason: `too large (${declared} bytes)` };
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of body as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > this.limits.maxBytes) {
            discard(body);
            return { ok: false, reason: `too large (more than ${this.limits.maxBytes} bytes)` };
          }
          chunks.push(chunk);
        }
        const type = headers['content-type'];
        return { ok: true, body: Buffer.concat(chunks, size), type: typeof type === 'string' ? type : '' };
      }
    } catch (err) {
      if (outer?.aborted) throw outer.reason;
      if (timeout.aborted) return { ok: false, reason: `timed out after ${this.limits.timeoutMs} ms`, transient: true };
      const code = (err as { code?: unknown }).code;
      const reason = `fetch failed: ${typeof code === 'string' ? code : (err as Error).message}`;
      return isRetryableNetworkError(err) ? { ok: false, reason, transient: true } : { ok: false, reason };
    }
  }

  async close(): Promise<void> {
    this.queue.clear();
    if (this.ownsAgent) await this.agent.close();
  }
}
