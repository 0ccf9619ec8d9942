import type { Catalog } from './catalog.js';
import type { FaultState } from './faults.js';
import type { ResolvedSandboxOptions } from './options.js';
import type { PageTokens } from './page-token.js';
import type { UrlSigner } from './presign.js';
import type { SandboxStats } from './stats.js';

/** What every route handler of one sandbox shares. */
export interface SandboxContext {
  opts: ResolvedSandboxOptions;
  catalog: Catalog;
  faults: FaultState;
  stats: SandboxStats;
  tokens: PageTokens;
  signer: UrlSigner;
}

/** A 400 (or other client error) of the API, with its machine code and a message saying why. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** With status 405: the methods the path takes (the `Allow` header). */
    readonly allow?: string,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

export function badRequest(code: string, message: string): ApiRequestError {
  return new ApiRequestError(400, code, message);
}

/** The single value of a query parameter, or null; a repeated parameter is a 400. */
export function singleParam(query: URLSearchParams, name: string): string | null {
  const all = query.getAll(name);
  if (all.length > 1) throw badRequest('duplicate_parameter', `${name} was given ${all.length} times; give it once`);
  return all.length === 0 ? null : all[0]!;
}

/**
 * page_size: a positive decimal integer, the default when absent. The spec states no maximum, so none is applied: a
 * page holds as many as asked for (up to the 9 digits read).
 */
export function pageSizeParam(query: URLSearchParams, def: number): number {
  const raw = singleParam(query, 'page_size');
  if (raw === null) return def;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
    throw badRequest('invalid_page_size', `page_size must be a positive integer`);
  }
  return Number(raw);
}
