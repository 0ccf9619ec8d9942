/**
 * Paged listings that go on without progress. A broken or hostile API can hand out a new page token on every page
 * while repeating the same records; a listing that yields no new record for a number of pages in a row is stopped
 * with ListingStalledError instead of paging forever.
 */
import { boundedKey } from '../util/bounded-key.js';
import { HttpClientError } from '../http/errors.js';
import { ConfigError } from '../errors.js';

/** Pages in a row without a new record after which a listing is stopped (default). */
export const DEFAULT_STALL_PAGES = 3;

/** A listing returned `pages` pages in a row, each with a next page token, without one new record. */
export class ListingStalledError extends HttpClientError {
  /** The listing's path (`/api/1/session-replays`, `/api/1/session-replays/files`). */
  readonly listing: string;
  /** Pages in a row without a new record. */
  readonly pages: number;
  constructor(listing: string, pages: number, what: string) {
    super(
      `${listing}${what ? ` ${what}` : ''}: ${pages} pages in a row brought no new record, each with a new next_page_token; ` +
        'stopping instead of paging forever',
      'LISTING_STALLED',
    );
    this.listing = listing;
    this.pages = pages;
  }
}

/** Checks a stall limit (a positive integer). */
export function validateStallPages(value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`stallPages must be a positive integer (got ${value})`);
  return value;
}

/** Counts the pages of one listing that brought no record not seen before. */
export class ListingProgress {
  readonly #seen = new Set<string>();
  #stalled = 0;

  /**
   * @param listing the listing's path, for the error
   * @param what which listing it is beyond the path (e.g. `for replay <id>`), for the error
   * @param limit pages in a row without a new record that stop the listing
   */
  constructor(
    private readonly listing: string,
    private readonly what: string,
    private readonly limit: number,
  ) {}

  /** Records the keys of a page that announced a next page; throws ListingStalledError at the limit. */
  pageWithMore(keys: Iterable<string>): void {
    const before = this.#seen.size;
    for (const k of keys) this.#seen.add(boundedKey(k));
    this.#stalled = this.#seen.size > before ? 0 : this.#stalled + 1;
    if (this.#stalled >= this.limit) throw new ListingStalledError(this.listing, this.#stalled, this.what);
  }
}
