import { ReplayExportError, type ErrorContext } from '../errors.js';

export type ViewErrorCode = 'VIEW_BAD_OBJECT' | 'VIEW_UNSAFE_KEY' | 'VIEW_UNSUPPORTED_ARCHIVE';

/** A stored replay `view` cannot serve: a malformed object, a key outside the layout, or an archive it cannot read. */
export class ViewError extends ReplayExportError {
  constructor(code: ViewErrorCode, message: string, context: ErrorContext = {}) {
    super(message, { ...context, code, category: code === 'VIEW_UNSUPPORTED_ARCHIVE' ? 'usage' : code === 'VIEW_BAD_OBJECT' ? 'data' : 'storage' });
  }
}
