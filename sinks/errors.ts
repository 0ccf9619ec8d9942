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
  | 'MANIFEST_CORRUPT'; // a manifest line or object that is not a manifest entry

export interface SinkErrorContext {
  target?: string;
  key?: string;
  replayId?: string;
  /** HTTP status of a failed S3 request. */
  status?: number;
  /** Index of an event within the replay, or a manifest line number (1-based). */
  index?: number;
  cause?: unknown;
}

/**
 * Every failure a sink reports. Carries the target (`/abs/dir` or `s3://bucket/prefix`), the key and the replay id;
 * never credentials or request signatures.
 */
export class SinkError extends Error {
  override readonly name = 'SinkError';
  readonly code: SinkErrorCode;
  readonly target?: string;
  readonly key?: string;
  readonly replayId?: string;
  readonly status?: number;
  readonly index?: number;

  constructor(code: SinkErrorCode, message: string, context: SinkErrorContext = {}) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.code = code;
    if (context.target !== undefined) this.target = context.target;
    if (context.key !== undefined) this.key = context.key;
    if (context.replayId !== undefined) this.replayId = context.replayId;
    if (context.status !== undefined) this.status = context.status;
    if (context.index !== undefined) this.index = context.index;
  }
}

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
