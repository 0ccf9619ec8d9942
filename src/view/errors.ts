import { ReplayExportError, type ErrorContext } from '../errors.js';

export type ViewErrorCode = 'VIEW_BAD_OBJECT' | 'VIEW_TOO_LARGE' | 'VIEW_UNSAFE_KEY' | 'VIEW_UNSUPPORTED_ARCHIVE';

/**
 * A stored replay `view` cannot serve: a malformed object, one over the size limit, a key outside the layout, or an
 * archive it cannot read.
 */
export class ViewError extends ReplayExportError {
  constructor(code: ViewErrorCode, message: string, context: ErrorContext = {}) {
    super(message, {
      ...context,
      code,
      category:
        code === 'VIEW_UNSUPPORTED_ARCHIVE'
          ? 'usage'
          : code === 'VIEW_BAD_OBJECT' || code === 'VIEW_TOO_LARGE'
            ? 'data'
            : 'storage',
    });
  }
}
