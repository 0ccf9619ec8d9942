import { ReplayExportError, type ErrorContext } from '../errors.js';

export type CatalogueErrorCode = 'CATALOGUE_UNAVAILABLE' | 'CATALOGUE_IO' | 'CATALOGUE_QUERY';

/**
 * The catalogue cannot be used: this Node has no `node:sqlite` (before 22.13: `CATALOGUE_UNAVAILABLE`), its file cannot be
 * written or read (`CATALOGUE_IO`), or a query is not one (`CATALOGUE_QUERY`: the message starts with the filter's name).
 */
export class CatalogueError extends ReplayExportError {
  constructor(code: CatalogueErrorCode, message: string, context: ErrorContext = {}) {
    super(message, { ...context, code, category: code === 'CATALOGUE_IO' ? 'storage' : 'usage' });
  }
}
