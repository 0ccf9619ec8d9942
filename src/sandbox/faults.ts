/**
 * Fault switches of the sandbox: all off by default, all deterministic ("every Nth request"), so that a test that
 * sets a switch knows exactly which request fails.
 */

import { ReplayExportError } from '../errors.js';
import { flagPairs } from './flag-pairs.js';

/** How the storage route serves a file's bytes (object storage can do any of these). */
export type FileEncoding = 'gzip' | 'content-encoding-gzip' | 'inflated';
/** How a file listed in `corruptFiles` is damaged. */
export type CorruptKind = 'truncated-gzip' | 'garbage-json';
/** Which requests `serverErrorEvery` counts and fails. */
export type ServerErrorScope = 'api' | 'storage' | 'both';
/** Which listings `endlessPages` affects. */
export type ListingScope = 'none' | 'list' | 'files' | 'both';

export interface Faults {
  /** Milliseconds added before answering every API and storage request (not control routes). */
  latencyMs: number;
  /** Every Nth authenticated API request answers 429 with `Retry-After`. 0 = off. */
  rateLimitEvery: number;
  /** Seconds sent in `Retry-After` with a 429. */
  retryAfterSeconds: number;
  /** Every Nth request (counted separately for API and storage) answers `serverErrorStatus`. 0 = off. */
  serverErrorEvery: number;
  serverErrorStatus: 500 | 502 | 503;
  serverErrorScope: ServerErrorScope;
  /** Every Nth storage download sends the headers and half of the body, then destroys the socket. 0 = off. */
  resetEvery: number;
  /** Every Nth storage download answers `302 Found` with `Location` pointing back at the same URL. 0 = off. */
  redirectEvery: number;
  /**
   * Bodies sent slowly: the headers at once (with the full Content-Length), then one byte of the body every
   * `slowBodyMs` ms, for the requests of `slowBodyScope`. 0 = off.
   */
  slowBodyMs: number;
  slowBodyScope: ServerErrorScope;
  /** `reversed`: each files page lists its files in reverse key order (paging itself is unchanged). */
  filesOrder: 'key' | 'reversed';
  /** Each files page lists its first file twice (two fresh URLs of the same key). */
  duplicateFiles: boolean;
  /**
   * Listings that never end: every page of the chosen listing(s) holds the same records as the first page and a
   * new `next_page_token` (a broken or hostile API). `none` = off.
   */
  endlessPages: ListingScope;
  /**
   * Setting this to true expires every file URL issued so far (403 "Request has expired"); URLs from files requests
   * made afterwards work. Setting it to true again expires everything issued up to then again.
   */
  expireUrls: boolean;
  /** Replay ids whose middle file (index floor(n/2) of each version's full file list) is always served corrupt. */
  corruptFiles: string[];
  corruptKind: CorruptKind;
  /** `gzip`: application/octet-stream gzip bytes; `content-encoding-gzip`: the same bytes with
   *  `Content-Encoding: gzip`; `inflated`: the inflated JSON text. */
  fileEncoding: FileEncoding;
}

export const DEFAULT_FAULTS: Readonly<Faults> = Object.freeze({
  latencyMs: 0,
  rateLimitEvery: 0,
  retryAfterSeconds: 1,
  serverErrorEvery: 0,
  serverErrorStatus: 503,
  serverErrorScope: 'both',
  resetEvery: 0,
  redirectEvery: 0,
  slowBodyMs: 0,
  slowBodyScope: 'both',
  endlessPages: 'none',
  filesOrder: 'key',
  duplicateFiles: false,
  expireUrls: false,
  corruptFiles: Object.freeze([]) as unknown as string[],
  corruptKind: 'truncated-gzip',
  fileEncoding: 'gzip',
});

export class FaultsError extends ReplayExportError {
  constructor(message: string) {
    super(message, { code: 'BAD_FAULTS', category: 'usage' });
  }
}

const COUNT_KEYS = [
  'latencyMs',
  'rateLimitEvery',
  'retryAfterSeconds',
  'serverErrorEvery',
  'resetEvery',
  'redirectEvery',
  'slowBodyMs',
] as const;

/** The switches that take one of a few values, and those values. */
const CHOICES: Readonly<Record<string, readonly unknown[]>> = {
  serverErrorStatus: [500, 502, 503],
  serverErrorScope: ['api', 'storage', 'both'],
  slowBodyScope: ['api', 'storage', 'both'],
  endlessPages: ['none', 'list', 'files', 'both'],
  filesOrder: ['key', 'reversed'],
  corruptKind: ['truncated-gzip', 'garbage-json'],
  fileEncoding: ['gzip', 'content-encoding-gzip', 'inflated'],
};

/** `500, 502 or 503`, `'key' or 'reversed'`: a switch's values as its error names them. */
function choicesText(values: readonly unknown[]): string {
  const shown = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  return `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
}

/** Checks an untrusted (e.g. JSON from the control route) partial fault set; throws FaultsError saying why. */
export function validateFaults(input: unknown): Partial<Faults> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new FaultsError('faults must be a JSON object');
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(input)) {
    const choices = Object.hasOwn(CHOICES, key) ? CHOICES[key] : undefined;
    if ((COUNT_KEYS as readonly string[]).includes(key)) {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
        throw new FaultsError(`${key} must be a non-negative integer`);
      }
    } else if (choices !== undefined) {
      if (!choices.includes(v)) throw new FaultsError(`${key} must be ${choicesText(choices)}`);
    } else if (key === 'duplicateFiles' || key === 'expireUrls') {
      if (typeof v !== 'boolean') throw new FaultsError(`${key} must be a boolean`);
    } else if (key === 'corruptFiles') {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
        throw new FaultsError('corruptFiles must be an array of replay ids');
      }
      out[key] = [...v];
      continue;
    } else {
      throw new FaultsError(`unknown fault switch: ${key.slice(0, 60)}`);
    }
    out[key] = v;
  }
  return out as Partial<Faults>;
}

export type ApiFault = { kind: 'rate-limit'; retryAfterSeconds: number } | { kind: 'server-error'; status: number };
export type StorageFault = { kind: 'server-error'; status: number } | { kind: 'redirect' } | { kind: 'reset' };

/**
 * The current switches plus their counters. A counter restarts at 0 whenever its switch is set, so "every Nth"
 * counts from the moment the switch was (re)set.
 */
export class FaultState {
  private current: Faults = { ...DEFAULT_FAULTS, corruptFiles: [] };
  /** Requests counted toward each "every Nth" switch since it was (re)set. */
  private readonly counts = { apiRate: 0, apiError: 0, storageError: 0, storageReset: 0, storageRedirect: 0 };
  private endlessCount = 0;
  /** URLs signed with an epoch lower than this are expired while `expireUrls` is on. */
  private expiredBeforeEpoch = 0;
  private epoch = 0;

  constructor(initial?: Partial<Faults>) {
    if (initial) this.set(initial);
  }

  get(): Faults {
    return { ...this.current, corruptFiles: [...this.current.corruptFiles] };
  }

  set(partial: Partial<Faults>): void {
    const checked = validateFaults(partial);
    this.current = { ...this.current, ...checked };
    const counts = this.counts;
    if ('rateLimitEvery' in checked) counts.apiRate = 0;
    if ('serverErrorEvery' in checked || 'serverErrorScope' in checked) counts.apiError = counts.storageError = 0;
    if ('resetEvery' in checked) counts.storageReset = 0;
    if ('redirectEvery' in checked) counts.storageRedirect = 0;
    if (checked.expireUrls === true) {
      this.epoch += 1;
      this.expiredBeforeEpoch = this.epoch;
    }
  }

  /**
   * When `endlessPages` covers this listing: a number that makes the next page token new (the page itself starts
   * from the beginning again). Otherwise null.
   */
  endlessToken(listing: 'list' | 'files'): number | null {
    const scope = this.current.endlessPages;
    if (scope !== 'both' && scope !== listing) return null;
    this.endlessCount += 1;
    return this.endlessCount;
  }

  /** Epoch written into newly signed URLs. */
  urlEpoch(): number {
    return this.epoch;
  }

  isEpochExpired(epoch: number): boolean {
    return this.current.expireUrls && epoch < this.expiredBeforeEpoch;
  }

  latencyMs(): number {
    return this.current.latencyMs;
  }

  /** Milliseconds between two bytes of a body of this kind of request (0: sent at once). */
  slowBodyMs(kind: 'api' | 'storage'): number {
    const f = this.current;
    return f.slowBodyScope === 'both' || f.slowBodyScope === kind ? f.slowBodyMs : 0;
  }

  /** Counts one request toward a switch that is on (`every` > 0); whether it is the Nth. */
  private due(counter: keyof FaultState['counts'], every: number): boolean {
    return every > 0 && ++this.counts[counter] % every === 0;
  }

  /** Called once per authenticated API request; says which fault (if any) this request gets. */
  nextApi(): ApiFault | null {
    const f = this.current;
    const rateLimited = this.due('apiRate', f.rateLimitEvery);
    const failed = f.serverErrorScope !== 'storage' && this.due('apiError', f.serverErrorEvery);
    if (rateLimited) return { kind: 'rate-limit', retryAfterSeconds: f.retryAfterSeconds };
    return failed ? { kind: 'server-error', status: f.serverErrorStatus } : null;
  }

  /** Called once per storage download whose URL verified; says which fault (if any) it gets (every switch counts it). */
  nextStorage(): StorageFault | null {
    const f = this.current;
    const failed = f.serverErrorScope !== 'api' && this.due('storageError', f.serverErrorEvery);
    const redirected = this.due('storageRedirect', f.redirectEvery);
    const reset = this.due('storageReset', f.resetEvery);
    if (failed) return { kind: 'server-error', status: f.serverErrorStatus };
    return redirected ? { kind: 'redirect' } : reset ? { kind: 'reset' } : null;
  }

  isCorrupt(replayId: string): boolean {
    return this.current.corruptFiles.includes(replayId);
  }

  corruptKind(): CorruptKind {
    return this.current.corruptKind;
  }

  /** How a files page lists its files: reversed and/or with its first file twice. */
  filesListing(): { reversed: boolean; duplicate: boolean } {
    return { reversed: this.current.filesOrder === 'reversed', duplicate: this.current.duplicateFiles };
  }

  fileEncoding(): FileEncoding {
    return this.current.fileEncoding;
  }
}

/**
 * Fault switches as a command-line value (`sandbox --faults`): a JSON object (as the control route takes), or
 * `key=value` pairs separated by commas, e.g. `rateLimitEvery=5,latencyMs=20,expireUrls=true`; numbers and
 * `true`/`false` are read as such, and `corruptFiles` takes replay ids separated by `|`. Checked by `validateFaults`.
 */
export function parseFaultsFlag(text: string): Partial<Faults> {
  const value = text.trim();
  if (value.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new FaultsError('--faults: not a valid JSON object');
    }
    return validateFaults(parsed);
  }
  const out: Record<string, unknown> = {};
  for (const [key, raw] of flagPairs(
    value,
    (item) => new FaultsError(`--faults: ${JSON.stringify(item)} is not key=value`),
  )) {
    out[key] =
      key === 'corruptFiles'
        ? raw.split('|').filter((id) => id !== '')
        : /^\d+$/.test(raw)
          ? Number(raw)
          : raw === 'true'
            ? true
            : raw === 'false'
              ? false
              : raw;
  }
  return validateFaults(out);
}
