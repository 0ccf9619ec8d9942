import { constants } from 'node:os';
import type { ManifestEntry } from './sink.js';

/**
 * One spelling per error code. A manifest entry's `error.code` is the code as thrown (`BAD_GZIP`, `SINK_IO`,
 * `REPLAY_NOT_FOUND`, `rate_limited`, `ECONNRESET`). Manifests written before spelled a `DecodeError`'s code as
 * `decode_` and its code in lower case (`decode_bad_gzip`), and every other code in lower case (`sink_io`,
 * `replay_not_found`, `econnreset`). Every manifest reader gets entries through {@link withThrownCode}, so no reader
 * sees the old spellings (and a folded manifest is written with the thrown ones).
 */
export function thrownCode(code: string): string {
  if (code.startsWith(OLD_DECODE_PREFIX)) return code.slice(OLD_DECODE_PREFIX.length).toUpperCase();
  const upper = code.toUpperCase();
  if (upper === code) return code;
  return UPPER_CASE_CODES.has(upper) || UPPER_CASE_FAMILIES.test(upper) || Object.hasOwn(constants.errno, upper)
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

/** Upper-case codes of replay-export's own errors that are in none of the families below. */
const UPPER_CASE_CODES: ReadonlySet<string> = new Set(['MANIFEST_CORRUPT', 'MANIFEST_TOO_LARGE', 'REPLAY_NOT_FOUND']);

/**
 * Families of upper-case codes: the sinks' (`SINK_IO`), undici's (`UND_ERR_SOCKET`), Node's (`ERR_STREAM_PREMATURE_CLOSE`)
 * and the resolver's (`EAI_AGAIN`); system errors (`ECONNRESET`, `ENOSPC`) are Node's errno names.
 */
const UPPER_CASE_FAMILIES = /^(?:SINK|UND_ERR|ERR|EAI)_/;
