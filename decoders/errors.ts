import { ReplayExportError } from '../src/errors.js';

/**
 * Typed decoding errors. Every corrupt or unexpected input ends in a `DecodeError`; nothing is dropped silently.
 */

export type DecodeErrorCode =
  /** The gzip layer is corrupt or truncated. */
  | 'BAD_GZIP'
  /** The (inflated) file is not well-formed JSON at `offset`. */
  | 'BAD_JSON'
  /** The file ended inside the array, an element, a string or an escape. */
  | 'TRUNCATED'
  /** The file (inflated) holds no bytes, or only whitespace. */
  | 'EMPTY'
  /** The top-level value is not an array. */
  | 'NOT_AN_ARRAY'
  /** Something other than whitespace follows the top-level array. */
  | 'TRAILING_DATA'
  /** An array element is neither an event object nor a packed string. */
  | 'NOT_AN_EVENT'
  /** The bytes are not valid UTF-8. */
  | 'BAD_UTF8'
  /** The content does not match the version the caller forced (e.g. a packed string in a version 3 file). */
  | 'VERSION_MISMATCH'
  /** A version 2 element's string could not be unwrapped into a packed payload or event text. */
  | 'BAD_PACKED'
  /** A version 2 element's zlib payload is corrupt, truncated or followed by stray bytes. */
  | 'BAD_ZLIB'
  /** A version 2 element's inflated payload is not a JSON event object. */
  | 'BAD_INNER_JSON'
  /** A version 2 element was packed with a packer marker other than `v1` (or with none). */
  | 'UNKNOWN_PACKER'
  /** An event (or an array element) is larger than the event size limit (`maxEventBytes`). */
  | 'EVENT_TOO_LARGE'
  /** The replay's inflated bytes (all its files) went over the replay size limit (`replayBudget`). */
  | 'REPLAY_TOO_LARGE';

export interface DecodeErrorContext {
  /** File key or name, as given in `DecodeOptions.file`. */
  file?: string | undefined;
  /** Zero-based index of the array element (= event) concerned. */
  index?: number | undefined;
  /** Byte offset in the inflated file (after gunzip) where the problem was seen. */
  offset?: number | undefined;
  cause?: unknown | undefined;
}

/** A replay file that cannot be decoded, or is over a size limit (category `data`). */
export class DecodeError extends ReplayExportError {
  declare readonly code: DecodeErrorCode;
  /** File key or name, as given in `DecodeOptions.file` (also `fileKey`). */
  readonly file: string | undefined;
  readonly offset: number | undefined;

  constructor(code: DecodeErrorCode, detail: string, ctx: DecodeErrorContext = {}) {
    super(formatMessage(code, detail, ctx), {
      code,
      category: 'data',
      fileKey: ctx.file,
      index: ctx.index,
      cause: ctx.cause,
    });
    this.file = ctx.file;
    this.offset = ctx.offset;
  }
}

function formatMessage(code: DecodeErrorCode, detail: string, ctx: DecodeErrorContext): string {
  const where: string[] = [];
  if (ctx.file !== undefined) where.push(`file ${ctx.file}`);
  if (ctx.index !== undefined) where.push(`element ${ctx.index}`);
  if (ctx.offset !== undefined) where.push(`byte ${ctx.offset}`);
  return `${code}: ${detail}${where.length > 0 ? ` (${where.join(', ')})` : ''}`;
}
