import { DecodeError } from '../../decoders/errors.js';
import { ApiError, AuthError, NetworkError, TimeoutError, UrlExpiredError, ValidationError } from '../http/errors.js';
import { stripUndefined } from '../http/options.js';
import type { ManifestError } from '../../sinks/sink.js';
import { categoryOf, ReplayExportError, type ErrorCode } from '../errors.js';

export { ConfigError } from '../errors.js';

/**
 * One replay could not be exported; names the replay and, when one file caused it, that file's key. Its category is
 * its cause's (a file that cannot be decoded is `data`, a refused download `remote`, a full disk `storage`).
 */
export class ReplayFailedError extends ReplayExportError {
  constructor(replayId: string, fileKey: string | undefined, cause: unknown) {
    const detail = describeError(cause);
    super(`replay ${replayId}${fileKey !== undefined ? ` file ${fileKey}` : ''}: ${detail.message}`, {
      code: detail.code,
      category: categoryOf(cause),
      replayId,
      fileKey,
      index: detail.index,
      status: detail.status,
      cause,
    });
  }

  toManifestError(): ManifestError {
    const context = stripUndefined({ file_key: this.fileKey, status: this.status, index: this.index });
    return { code: this.code, message: this.message, ...context };
  }
}

/** The file set of a replay changed under us in a way we cannot follow (e.g. a file vanished from the listing). */
export class FileListingError extends ReplayExportError {
  constructor(message: string) {
    super(message, { code: 'FILE_LISTING_CHANGED', category: 'remote' });
  }
}

/** A replay's files listing holds more files than the limit (`maxFilesPerReplay`): the replay fails. */
export class TooManyFilesError extends ReplayExportError {
  constructor(
    replayId: string,
    readonly limit: number,
  ) {
    super(`the files listing of replay ${replayId} holds more than ${limit} files (maxFilesPerReplay); refusing it`, {
      code: 'TOO_MANY_FILES',
      category: 'remote',
      replayId,
    });
  }
}

/**
 * Failures about the whole run, not one replay: credentials refused or missing (the API's or S3's). Every other
 * failure of a replay fails that replay alone.
 */
export function isFatal(err: unknown): boolean {
  return categoryOf(err) === 'auth';
}

/** What `describeError` says of anything thrown: a code of the table (`ErrorCode`), the message and context. */
export interface ErrorDescription {
  code: ErrorCode;
  message: string;
  status?: number;
  index?: number;
}

/**
 * The code, message and context of anything thrown. A `ReplayExportError` keeps its own code. Anything else (a stream
 * or socket error from Node or undici, a bug) is not one of ours: its code is its category's (`INTERRUPTED` for an
 * abort, `INTERNAL_ERROR` otherwise) and the code it came with (`ECONNRESET`, `UND_ERR_SOCKET`) is kept in the
 * message, as data, never as our code.
 */
export function describeError(err: unknown): ErrorDescription {
  if (err instanceof ReplayExportError) {
    return { code: err.code, message: err.message, ...stripUndefined({ status: err.status, index: err.index }) };
  }
  const code: ErrorCode = categoryOf(err) === 'interrupted' ? 'INTERRUPTED' : 'INTERNAL_ERROR';
  if (!(err instanceof Error)) return { code, message: String(err) };
  const own = (err as { code?: unknown }).code;
  const message = typeof own === 'string' && !err.message.includes(own) ? `${own}: ${err.message}` : err.message;
  return { code, message };
}

export function isExpiredUrl(err: unknown): boolean {
  return err instanceof UrlExpiredError;
}

/** Whether downloading the same file again may succeed (429, 5xx, resets, timeouts, truncated bodies, 404 once). */
export function isTransient(err: unknown): boolean {
  if (err instanceof AuthError || err instanceof ValidationError || err instanceof UrlExpiredError) return false;
  if (err instanceof NetworkError || err instanceof TimeoutError) return true;
  if (err instanceof ApiError)
    return err.status === 429 || err.status >= 500 || err.status === 404 || err.status === 408;
  if (err instanceof DecodeError) return false;
  // Errors straight from sockets / undici while a body streams.
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^(UND_ERR|ECONN)|^(EPIPE|ETIMEDOUT|ERR_STREAM_PREMATURE_CLOSE)$/.test(code);
}

/**
 * Whether an error that ended a file's bytes (not the decoder's verdict) is a transfer that broke off: an untyped
 * socket or stream error. The library's own errors (all `ReplayExportError`s: the transport's and the clients',
 * a DecodeError about the bytes themselves, a changed listing, missing credentials) are decided by `isTransient`.
 */
export function isBrokenTransfer(err: unknown): boolean {
  return !(err instanceof ReplayExportError);
}

/**
 * A listed replay id longer than a record may name (`MAX_REPLAY_ID_BYTES`): the replay fails at once, recorded under a
 * stand-in id (its start, length and SHA-256), with no request made for it.
 */
export class ReplayIdTooLongError extends ReplayExportError {
  constructor(replayId: string, bytes: number, limit: number) {
    super(`replay ${replayId}: its id takes ${bytes} bytes, over the ${limit} a replay id may take; not exported`, {
      code: 'REPLAY_ID_TOO_LONG',
      category: 'data',
      replayId,
    });
  }
}

/** The API does not know this replay id (the listing, asked for it by id, returns nothing). */
export class ReplayNotFoundError extends ReplayExportError {
  constructor(replayId: string) {
    super(`replay ${replayId} not found: the API lists no replay with this id (check the id, or whether it expired)`, {
      code: 'REPLAY_NOT_FOUND',
      category: 'data',
      replayId,
    });
  }
}
