import { boundedKey } from '../util/bounded-key.js';
import { FileListingError } from './errors.js';
import type { Settings } from './settings.js';
import type { ListedFile, ReplayFilesApi } from './types.js';
import { systemClock, type Clock } from '../util/clock.js';

/** The settings URLs are kept fresh by: the listing's version and page size, the URLs' validity and margin. */
export type FileUrlsSettings = Pick<Settings, 'fileVersion' | 'filesPageSize' | 'urlTtlMs' | 'urlRefreshMarginMs'>;

export interface FileUrlsHooks {
  clock?: Clock | undefined;
  signal?: AbortSignal | undefined;
  /** Called for every files page requested to refresh URLs (logs, tests). */
  onRefresh?: (info: { replayId: string; key: string; reason: 'aged' | 'refused' }) => void;
}

type Known = Pick<ListedFile, 'url' | 'obtainedAt' | 'pageToken'>;

/**
 * The freshest presigned URL of each file of one replay. A URL older than its validity minus a margin is refreshed
 * before use, and a URL storage refused (403, expired) is replaced, by requesting again the page that listed the file
 * (its page token) and matching by key. When the page no longer holds the key (the listing shifted), the files are
 * listed again from the start. Concurrent refreshes of one page share one request.
 */
export class FileUrls {
  private readonly known = new Map<string, Known>();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly clock: Clock;

  constructor(
    private readonly api: ReplayFilesApi,
    readonly replayId: string,
    private readonly settings: FileUrlsSettings,
    private readonly options: FileUrlsHooks = {},
  ) {
    this.clock = options.clock ?? systemClock;
  }

  record(file: ListedFile): void {
    const prev = this.known.get(boundedKey(file.key));
    if (!prev || prev.obtainedAt <= file.obtainedAt) {
      this.known.set(boundedKey(file.key), { url: file.url, obtainedAt: file.obtainedAt, pageToken: file.pageToken });
    }
  }

  private isStale(k: Known): boolean {
    return this.clock.now() - k.obtainedAt > this.settings.urlTtlMs - this.settings.urlRefreshMarginMs;
  }

  /**
   * A URL for `file` that is fresh enough to use now. `refusedUrl`: the URL storage just refused; a newer one is
   * fetched unless another refresh already replaced it.
   */
  async urlFor(file: ListedFile, refusedUrl?: string): Promise<string> {
    let k = this.known.get(boundedKey(file.key));
    if (!k) {
      this.record(file);
      k = this.known.get(boundedKey(file.key))!;
    }
    const refused = refusedUrl !== undefined && k.url === refusedUrl;
    if (refused || this.isStale(k)) {
      this.options.onRefresh?.({ replayId: this.replayId, key: file.key, reason: refused ? 'refused' : 'aged' });
      await this.refresh(file.key, k.pageToken);
      k = this.known.get(boundedKey(file.key))!;
    }
    return k.url;
  }

  private refresh(key: string, pageToken: string | null): Promise<void> {
    const slot = pageToken === null ? '\u0000first' : boundedKey(pageToken);
    let p = this.inflight.get(slot);
    if (!p) {
      p = this.refreshPage(key, pageToken).finally(() => this.inflight.delete(slot));
      this.inflight.set(slot, p);
    }
    return p.then(async () => {
      // The shared request may have been for another key of the page; make sure ours was in it.
      const k = this.known.get(boundedKey(key));
      if (!k || this.isStale(k)) await this.relistUntil(key);
    });
  }

  private async refreshPage(key: string, pageToken: string | null): Promise<void> {
    const page = await this.api.getFilesPage(this.replayId, { ...this.query(), pageToken });
    for (const f of page.files) this.record(f);
    if (!page.files.some((f) => f.key === key)) await this.relistUntil(key);
  }

  private query(): { version: Settings['fileVersion']; pageSize: number | undefined; signal: AbortSignal | undefined } {
    return { version: this.settings.fileVersion, pageSize: this.settings.filesPageSize, signal: this.options.signal };
  }

  private async relistUntil(key: string): Promise<void> {
    for await (const f of this.api.listReplayFiles(this.replayId, this.query())) {
      this.record(f);
      if (f.key === key) return;
    }
    throw new FileListingError(`file ${key} of replay ${this.replayId} is no longer listed`);
  }
}
