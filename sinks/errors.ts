import { ReplayExportError, type ErrorCategory } from '../src/errors.js';

/** Why a sink operation failed. Stable strings for programs; the message is for people. */
export type SinkErrorCode =
  | 'SINK_CONFIG' // a bad target or option
  | 'SINK_PATH_ESCAPE' // a key that would resolve outside the target
  | 'SINK_BAD_EVENT' // an event that cannot be framed (a raw newline in ndjson)
  | 'SINK_STATE' // write/commit after the writer ended, open after close
  | 'SINK_IO' // a local file system operation failed
  | 'SINK_S3' // an S3 request failed
  | 'SINK_AUTH' // S3 refused the credentials (or the SDK found none): every request would fail the same way
  | 'SINK_INTEGRITY' // the stored object is not what was written
  | 'MANIFEST_CORRUPT' // a manifest line or object that is not a manifest entry
  | 'MANIFEST_TOO_LARGE'; // an entry over the size a manifest record may take: not written

export interface SinkErrorContext {
  target?: string | undefined;
  key?: string | undefined;
  replayId?: string | undefined;
  /** HTTP status of a failed S3 request. */
  status?: number | undefined;
  /** Index of an event within the replay, or a manifest line number (1-based). */
  index?: number | undefined;
  cause?: unknown | undefined;
}

/**
 * Every failure a sink reports. Carries the target (`/abs/dir` or `s3://bucket/prefix`), the key and the replay id;
 * never credentials or request signatures.
 */
export class SinkError extends ReplayExportError {
  declare readonly code: SinkErrorCode;
  readonly target: string | undefined;
  /** The output key (or manifest object) concerned. */
  readonly key: string | undefined;

  constructor(code: SinkErrorCode, message: string, context: SinkErrorContext = {}) {
    super(message, {
      code,
      category: SINK_CATEGORIES[code],
      replayId: context.replayId,
      status: context.status,
      index: context.index,
      cause: context.cause,
    });
    this.target = context.target;
    this.key = context.key;
  }
}

/**
 * A target opened for reading (`openArchive` with `create: false`: what `forget`, `verify` and `view` do) that holds no
 * manifest: a mistyped folder or prefix, or an empty one. Nothing was created there. Category `storage` (CLI exit 1).
 */
export class ArchiveNotFoundError extends ReplayExportError {
  declare readonly code: 'ARCHIVE_NOT_FOUND';
  readonly target: string;

  constructor(target: string) {
    super(`no archive at ${target} (no manifest found)`, { code: 'ARCHIVE_NOT_FOUND', category: 'storage' });
    this.target = target;
  }
}

/** The error category of each sink code (the CLI's exit code follows from it). */
const SINK_CATEGORIES: Readonly<Record<SinkErrorCode, ErrorCategory>> = {
  SINK_CONFIG: 'usage',
  SINK_AUTH: 'auth',
  SINK_BAD_EVENT: 'data',
  SINK_STATE: 'internal',
  SINK_PATH_ESCAPE: 'storage',
  SINK_IO: 'storage',
  SINK_S3: 'storage',
  SINK_INTEGRITY: 'storage',
  MANIFEST_CORRUPT: 'storage',
  MANIFEST_TOO_LARGE: 'data',
};

/** Short description of an unknown thrown value, for messages (no stack, no request details). */
export function describeCause(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/**
 * A system error's code, text and call without the paths Node appends (`ENOSPC: no space left on device, write`), for
 * a message that names the file it means itself (e.g. a final name rather than the temporary file written first).
 */
export function describeSystemError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e instanceof Error && typeof e.syscall === 'string' && typeof e.path === 'string') {
    const at = e.message.indexOf(`, ${e.syscall} `);
    if (at !== -1) return e.message.slice(0, at + 2 + e.syscall.length);
  }
  return describeCause(err);
}
