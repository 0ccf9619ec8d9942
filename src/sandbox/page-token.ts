import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a list page token remembers: sort order, filters, and the last replay of the page (keyset paging). */
export interface ListTokenState {
  k: 'list';
  sort: 'asc' | 'desc';
  /** amplitude_id filter as a canonical integer string, or null. */
  pid: string | null;
  /** start_time / end_time filters in ms, or null. */
  from: number | null;
  to: number | null;
  lastStartMs: number;
  lastId: string;
  /** Set by the `endlessPages` fault: makes each token new although the page starts over. */
  n?: number;
}

/** What a files page token remembers: the replay, the version and the last key of the page. */
interface FilesTokenState {
  k: 'files';
  replayId: string;
  version: 2 | 3;
  lastKey: string;
  /** Set by the `endlessPages` fault (see ListTokenState). */
  n?: number;
}

export type TokenState = ListTokenState | FilesTokenState;

/**
 * Opaque page tokens: base64url(JSON) + '.' + base64url(HMAC-SHA256 truncated to 16 bytes). They cannot be forged
 * or edited without the sandbox's secret.
 */
export class PageTokens {
  constructor(private readonly secret: Buffer) {}

  private mac(body: string): Buffer {
    return createHmac('sha256', this.secret).update('page-token\n').update(body).digest().subarray(0, 16);
  }

  encode(state: TokenState): string {
    const body = Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The state, or null when the token is malformed or its MAC does not match. */
  decode(token: string): TokenState | null {
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > 8192) return null;
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const want = this.mac(body);
    if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
    try {
      const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TokenState;
      return state.k === 'list' || state.k === 'files' ? state : null;
    } catch {
      return null;
    }
  }
}
