import { ReplayExportError, type ErrorContext } from '../errors.js';

export type VerifyErrorCode = 'VERIFY_BAD_OBJECT' | 'VERIFY_UNSUPPORTED_ARCHIVE';

/**
 * `VERIFY_UNSUPPORTED_ARCHIVE`: the archive given to `verifyArchive` is neither a folder nor `s3://bucket/prefix`
 * (usage). `VERIFY_BAD_OBJECT`: a stored object is not in the layout of its format (data); `verifyArchive` reports it
 * as an `undecodable` problem, it does not stop.
 */
export class VerifyError extends ReplayExportError {
  declare readonly code: VerifyErrorCode;
  constructor(code: VerifyErrorCode, message: string, context: ErrorContext = {}) {
    super(message, { ...context, code, category: code === 'VERIFY_UNSUPPORTED_ARCHIVE' ? 'usage' : 'data' });
  }
}
