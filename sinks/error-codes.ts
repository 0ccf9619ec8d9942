import { constants } from 'node:os';
import { ERROR_CODES, renamedCode } from '../src/error-codes.js';
import type { ManifestEntry } from './sink.js';

/**
 * One spelling per error code: UPPER_SNAKE, the table of src/error-codes.ts. A manifest entry's `error.code` is the code
 * as thrown (`BAD_GZIP`, `SINK_IO`, `RATE_LIMITED`). Manifests written before spelled codes otherwise: a
 * `DecodeError`'s as `decode_` and its code in lower case (`decode_bad_gzip`); the sinks' and a few others in lower
 * case (`sink_io`, `replay_not_found`, `econnreset`); and about thirty codes were thrown in lower case (`rate_limited`,
 * `too_many_files`, `bad_json`: see `RENAMED_CODES`). Every manifest reader gets entries through
 * {@link withThrownCode}, so no reader sees an old spelling (and a folded manifest is written with the thrown ones).
 * A code that is not ours (`ECONNRESET`, `UND_ERR_SOCKET`: what Node or undici said, as old runs recorded it) keeps
 * its own upper-case spelling.
 */
export function thrownCode(code: string): string {
  if (code.startsWith(OLD_DECODE_PREFIX)) return code.slice(OLD_DECODE_PREFIX.length).toUpperCase();
  const renamed = renamedCode(code);
  if (renamed !== undefined) return renamed;
  const upper = code.toUpperCase();
  if (upper === code) return code;
  return OUR_CODES.has(upper) || UPPER_CASE_FAMILIES.test(upper) || Object.hasOwn(constants.errno, upper)
    ? upper
    : code;
}

/** `entry` with its error's code in the thrown spelling (the same object, changed in place when it was not). */
export function withThrownCode(entry: ManifestEntry): ManifestEntry {
  // Any line may carry an error as read (a manifest is input): only `failed` and `not_found` lines should.
  const error = 'error' in entry ? (entry.error as { code?: unknown } | null | undefined) : undefined;
  if (error !== null && typeof error === 'object' && typeof error.code === 'string')
    error.code = thrownCode(error.code);
  return entry;
}

const OLD_DECODE_PREFIX = 'decode_';

/** Every code replay-export throws. */
const OUR_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/**
 * Families of upper-case codes that are not ours: undici's (`UND_ERR_SOCKET`), Node's (`ERR_STREAM_PREMATURE_CLOSE`)
 * and the resolver's (`EAI_AGAIN`); system errors (`ECONNRESET`, `ENOSPC`) are Node's errno names.
 */
const UPPER_CASE_FAMILIES = /^(?:UND_ERR|ERR|EAI)_/;
