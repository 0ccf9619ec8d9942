/**
 * The one error base of replay-export. Every error the library throws derives from `ReplayExportError`: a stable
 * `code` for programs, a `category` saying what kind of failure it is (and so the CLI's exit code, from one table),
 * and the context that exists (replay id, file key, element index, HTTP status). A wrapped error keeps `cause`.
 *
 * This module imports only the table of codes (./error-codes.ts, which imports nothing), so that every floor —
 * decoders/ and sinks/ included — can derive from it.
 */
import type { ErrorCode } from './error-codes.js';

export { ERROR_CODES, type ErrorCode } from './error-codes.js';

/**
 * What kind of failure an error is.
 * - `usage`: a bad flag, option, id or parameter, found before anything was sent or written.
 * - `auth`: credentials refused or missing (the API's or S3's): every request would fail the same way.
 * - `remote`: the API or object storage failed or answered something unusable (status, timeout, malformed body).
 * - `data`: a replay file that cannot be decoded, or is over a size limit.
 * - `storage`: the output target failed (file system, S3, integrity, a path that would leave the target).
 * - `interrupted`: the run was stopped (Ctrl-C, SIGTERM, an abort signal).
 * - `internal`: a bug or an unexpected state.
 */
export type ErrorCategory = 'usage' | 'auth' | 'remote' | 'data' | 'storage' | 'interrupted' | 'internal';

/** The CLI's exit code for each category: 2 usage, 3 authentication, 130 interrupted, 1 anything else. */
export const EXIT_CODES: Readonly<Record<ErrorCategory, number>> = Object.freeze({
  usage: 2,
  auth: 3,
  remote: 1,
  data: 1,
  storage: 1,
  interrupted: 130,
  internal: 1,
});

/** What an error can say about where it happened; every field is optional. */
export interface ErrorContext {
  replayId?: string | undefined;
  fileKey?: string | undefined;
  /** Zero-based element (event) index in a file, or a manifest line number, as the subclass documents. */
  index?: number | undefined;
  /** HTTP status of the answer concerned. */
  status?: number | undefined;
  cause?: unknown;
}

export interface ErrorInit extends ErrorContext {
  code: ErrorCode;
  category: ErrorCategory;
}

/** Base of every error replay-export throws. Never holds a secret: messages are redacted before they get here. */
export class ReplayExportError extends Error {
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  readonly replayId: string | undefined;
  readonly fileKey: string | undefined;
  readonly index: number | undefined;
  readonly status: number | undefined;

  constructor(message: string, init: ErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code;
    this.category = init.category;
    this.replayId = init.replayId;
    this.fileKey = init.fileKey;
    this.index = init.index;
    this.status = init.status;
  }
}

/**
 * What a `ConfigError` says about the options it names, so that a caller can say it in its own words: the CLI names
 * its flags (`--max-event-size`) and shows values in the flags' units (`256MiB`, `5m`).
 */
export interface OptionProblem {
  /** The option, by its library name (`maxEventBytes`; a nested one dotted: `sinkOptions.s3.partSize`). */
  readonly option: string;
  /**
   * The message with each option named by `name` (the library's message: the option's own name) and, with
   * `units`, sizes and durations shown in units (`256MiB`, `5m`) instead of bytes and milliseconds.
   */
  say(name: (option: string) => string, units: boolean): string;
}

/** A bad option or value given to the library or the CLI, found before any request (CLI exit 2). */
export class ConfigError extends ReplayExportError {
  /** The option concerned, when the error is about one (`problem.option`). */
  readonly problem: OptionProblem | undefined;

  constructor(message: string, code: ErrorCode = 'CONFIG_ERROR', problem?: OptionProblem) {
    super(message, { code, category: 'usage' });
    this.problem = problem;
  }

  /** A `ConfigError` about an option, its message the problem said with the options' own names. */
  static of(problem: OptionProblem, code?: ErrorCode): ConfigError {
    return new ConfigError(
      problem.say((option) => option, false),
      code,
      problem,
    );
  }
}

/** The run was stopped (Ctrl-C, SIGTERM): what was complete is kept; the same command resumes. */
export class InterruptedError extends ReplayExportError {
  constructor(message = 'interrupted') {
    super(message, { code: 'INTERRUPTED', category: 'interrupted' });
  }
}

/** A broken invariant of replay-export itself (a bug, never the input's fault): category `internal`. */
export class InternalError extends ReplayExportError {
  constructor(message: string) {
    super(message, { code: 'INTERNAL_ERROR', category: 'internal' });
  }
}

/**
 * The category of anything thrown: a `ReplayExportError`'s own; an abort (`AbortError`, or an `AbortSignal.timeout`
 * reason) is `interrupted`; anything else `internal`.
 */
export function categoryOf(err: unknown): ErrorCategory {
  if (err instanceof ReplayExportError) return err.category;
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return 'interrupted';
  return 'internal';
}

/** The CLI's exit code for anything thrown (see `EXIT_CODES`). */
export function exitCodeOf(err: unknown): number {
  return EXIT_CODES[categoryOf(err)];
}
