/** The catalogue of an archive (docs/VIEW.md "The catalogue"): a SQLite file derived from the manifest, and its query. */
export {
  Catalogue,
  type CatalogueOptions,
  type CataloguePage,
  catalogueFile,
  catalogueIn,
  COUNT_CAP,
  openCatalogue,
  refreshCatalogue,
} from './catalogue.js';
export { CatalogueError, type CatalogueErrorCode } from './errors.js';
export { type CatalogueQuery, DEFAULT_SORT, parseSort } from './query.js';
export type { CatalogueRow } from './rows.js';
export { SORTABLE } from './schema.js';
