/**
 * `--capture-assets`: while a replay is exported, the URLs its events reference (collect.ts) are fetched from the
 * allowed origins (fetch.ts) and stored once per archive, content-addressed (`AssetStore.put`); stylesheets fetched are
 * scanned in turn (`@import`, `url()`), to `cssDepth` levels. The manifest entry records the replay's URL → SHA-256
 * map, each asset's content type, and why the others were not captured. The events are not changed.
 *
 * A run shares one `AssetCapture`: each URL is fetched and stored at most once per run (a capped cache of outcomes,
 * not of bytes), whatever the number of replays referencing it. A transient failure (fetch.ts) is remembered for
 * `failureMemoryMs` only: a replay exported after that tries the URL again, so that a host down for a while does not
 * cost every later replay of the run its assets.
 */
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { plainContentType } from '../../sinks/assets.js';
import type { AssetStore } from '../../sinks/archive.js';
import type { OkEntry } from '../../sinks/sink.js';
import type { EventBatch } from '../../decoders/index.js';
import { AssetUrlCollector, cssUrls, MAX_URL_BYTES, resolveAssetUrl, urlBase } from './collect.js';
import { AssetFetcher, type AssetFetchLimits } from './fetch.js';
import { systemClock, type Clock } from '../util/clock.js';
import { MORE_URLS_KEY } from './missing.js';

export interface AssetCaptureSettings extends AssetFetchLimits {
  /** Origins (`scheme://host[:port]`) whose URLs are fetched; any other URL is recorded `origin not allowed`. */
  origins: readonly string[];
  /** Most URLs captured per replay (its events' and its stylesheets'); later ones are recorded as not captured. */
  maxUrls: number;
  /** Levels of stylesheets fetched and scanned below the events (an `@import` in a fetched stylesheet is one more). */
  cssDepth: number;
  /** How long the run remembers a transient failure of a URL (ms; 0: a later replay always tries again). */
  failureMemoryMs: number;
}

/** What a replay's manifest entry records of its assets. */
export type AssetFields = Required<Pick<OkEntry, 'assets' | 'asset_types'>> &
  Pick<OkEntry, 'assets_missing' | 'assets_retry'>;

type Outcome = { digest: string; type: string; nested: string[] } | { reason: string; transient?: true };

/** Outcomes a run remembers (URL → digest or reason, never the bytes); beyond, it starts again from none. */
const RUN_CACHE = 50_000;

/** Fonts and the like served as octet-stream keep a usable type from their extension. */
const TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
  css: 'text/css',
  woff2: 'font/woff2',
  woff: 'font/woff',
  ttf: 'font/ttf',
  otf: 'font/otf',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
};

function typeOf(declared: string, url: string): string {
  const plain = plainContentType(declared);
  if (plain !== 'application/octet-stream' && plain !== 'text/plain') return plain;
  const ext = /\.([a-z0-9]+)$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  return (ext !== undefined ? TYPE_BY_EXTENSION[ext] : undefined) ?? plain;
}

/** The capture of one run: the fetcher, the archive's assets, and the outcomes of the URLs seen so far. */
export class AssetCapture {
  private readonly fetcher: AssetFetcher;
  /** URL → its outcome, and until when it holds (transient failures: `failureMemoryMs` after they settled). */
  private readonly outcomes = new Map<string, { outcome: Promise<Outcome>; until: number }>();

  /** Ends the fetches in flight when the capture is closed (the dispatcher may be shared and outlive it). */
  private readonly stop = new AbortController();
  private readonly signal: AbortSignal;
  /** The clock of the fetches' time limits and of `failureMemoryMs`. */
  private readonly clock: Clock;

  /**
   * `io.dispatcher`: the run's (its transport's connection pool); `io.signal`: the caller's, ending every fetch;
   * `io.clock`: the run's.
   */
  constructor(
    readonly settings: Readonly<AssetCaptureSettings>,
    private readonly store: AssetStore,
    io: { dispatcher?: Dispatcher | undefined; signal?: AbortSignal | undefined; clock?: Clock | undefined } = {},
  ) {
    this.clock = io.clock ?? systemClock;
    this.fetcher = new AssetFetcher(new Set(settings.origins), settings, io.dispatcher, this.clock);
    this.signal = io.signal === undefined ? this.stop.signal : AbortSignal.any([io.signal, this.stop.signal]);
  }

  /**
   * The outcome of `url`: fetched and stored once per run, claimed by `replayId` (the replay that first needs it) when
   * it was not stored yet. Rejects when the sink cannot store it or the run aborts.
   */
  outcome(url: string, replayId: string): Promise<Outcome> {
    const known = this.outcomes.get(url);
    if (known !== undefined && known.until > this.clock.now()) return known.outcome;
    const p = this.load(url, replayId);
    if (this.outcomes.size >= RUN_CACHE) this.outcomes.clear();
    const held = { outcome: p, until: Infinity };
    this.outcomes.set(url, held);
    p.then(
      (o) => {
        if ('transient' in o) held.until = this.clock.now() + this.settings.failureMemoryMs;
      },
      () => {
        if (this.outcomes.get(url) === held) this.outcomes.delete(url);
      },
    );
    return p;
  }

  private async load(url: string, replayId: string): Promise<Outcome> {
    const fetched = await this.fetcher.fetch(url, this.signal);
    if (!fetched.ok)
      return fetched.transient ? { reason: fetched.reason, transient: true } : { reason: fetched.reason };
    const digest = createHash('sha256').update(fetched.body).digest('hex');
    const type = typeOf(fetched.type, url);
    // Claimed by the replay before it is stored (write-ahead): a failed or killed export leaves it known to `forget`.
    await this.store.put(digest, type, fetched.body, replayId);
    const nested: string[] = [];
    if (type === 'text/css') {
      const base = urlBase(url);
      for (const raw of cssUrls(fetched.body.toString('utf8'))) {
        const resolved = resolveAssetUrl(raw, base);
        if (resolved !== undefined && nested.length < this.settings.maxUrls) nested.push(resolved);
      }
    }
    return { digest, type, nested };
  }

  /** Starts the capture of one replay. */
  replay(replayId: string): ReplayAssetCapture {
    return new ReplayAssetCapture(this, replayId);
  }

  close(): Promise<void> {
    this.stop.abort(new Error('asset capture closed'));
    return this.fetcher.close();
  }
}

/** One replay's capture: fed its events as they stream, finished once they all went by. */
export class ReplayAssetCapture {
  private readonly collector: AssetUrlCollector;
  private readonly seen = new Set<string>();
  private readonly urls: Record<string, string> = {};
  private readonly types: Record<string, string> = {};
  private readonly missing: Record<string, string> = {};
  /** Whether a URL of `missing` failed for a reason that may pass. */
  private transient = false;
  private pending: Promise<void>[] = [];
  private failure: { error: unknown } | undefined;
  private dropped = 0;

  constructor(
    private readonly run: AssetCapture,
    private readonly replayId: string,
  ) {
    this.collector = new AssetUrlCollector(run.settings.maxUrls, (url) => this.want(url, 0));
  }

  /** Scans a batch of events (their bytes are not kept). */
  observeBatch(batch: EventBatch): void {
    if (batch.events !== undefined) {
      for (const event of batch.events) this.collector.observe(event as Buffer);
      return;
    }
    for (const run of batch.runs) {
      let from = 0;
      for (const end of run.ends) {
        this.collector.observe(run.bytes.subarray(from, end));
        from = end + 1;
      }
    }
  }

  private want(url: string, depth: number): void {
    if (this.seen.has(url)) return;
    if (this.seen.size >= this.run.settings.maxUrls) {
      this.dropped++;
      return;
    }
    this.seen.add(url);
    const task = this.run.outcome(url, this.replayId).then(
      (outcome) => {
        if ('reason' in outcome) {
          this.missing[url] = outcome.reason;
          if (outcome.transient === true) this.transient = true;
          return;
        }
        this.urls[url] = outcome.digest;
        this.types[outcome.digest] = outcome.type;
        if (depth < this.run.settings.cssDepth) for (const next of outcome.nested) this.want(next, depth + 1);
      },
      (error: unknown) => {
        this.failure ??= { error };
      },
    );
    this.pending.push(task);
  }

  /**
   * Waits for every fetch started (stylesheets' own URLs included), whatever their outcome: a replay whose export
   * failed ends with its assets stored and claimed, none still being stored after its outcome is recorded.
   */
  async settle(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      await Promise.allSettled(batch);
    }
  }

  /** What `assets_missing` says of the URLs it does not list, if any. */
  private moreUrls(): string | undefined {
    const dropped = this.dropped + this.collector.dropped;
    const tooLong = this.collector.tooLong;
    const parts: string[] = [];
    if (dropped > 0) parts.push(`${dropped} more URL(s) beyond the limit of ${this.run.settings.maxUrls}`);
    if (tooLong > 0) parts.push(`${tooLong} URL(s) over ${MAX_URL_BYTES} bytes`);
    return parts.length > 0 ? parts.join('; ') : undefined;
  }

  /** Waits for every fetch (stylesheets' own URLs included) and returns the entry's fields; throws a sink's failure. */
  async finish(): Promise<AssetFields> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      await Promise.all(batch);
    }
    if (this.failure !== undefined) throw this.failure.error;
    const more = this.moreUrls();
    if (more !== undefined) this.missing[MORE_URLS_KEY] = more;
    const fields: AssetFields = { assets: this.urls, asset_types: this.types };
    if (Object.keys(this.missing).length > 0) fields.assets_missing = this.missing;
    if (this.transient) fields.assets_retry = true;
    return fields;
  }
}
