/**
 * The embedded database under the catalogue: SQLite through Node's own `node:sqlite` (`DatabaseSync`; unflagged from
 * Node 22.13, with FTS5): nothing to install, nothing added to the package. Loaded on first use, so that the commands
 * that do not use the catalogue never load it (on Node 22 loading it prints an `ExperimentalWarning` once; the CLI
 * filters exactly that one, a library user sees it; Node 24 prints none).
 */
import type * as sqlite from 'node:sqlite';
import { CatalogueError } from './errors.js';

/** A value bound to a statement's parameter. */
export type SqlValue = sqlite.SQLInputValue;

/** The part of a prepared statement the catalogue uses (rows come back as column name → value). */
export interface Statement {
  run(...params: SqlValue[]): unknown;
  get(...params: SqlValue[]): Record<string, unknown> | undefined;
  all(...params: SqlValue[]): Record<string, unknown>[];
  iterate(...params: SqlValue[]): Iterable<Record<string, unknown>>;
}

/** The part of a database connection the catalogue uses. */
export interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  /** A SQL function of this connection, written in JavaScript. */
  function(name: string, options: sqlite.FunctionOptions, fn: (...args: SqlValue[]) => SqlValue): void;
  close(): void;
}

let loaded: typeof sqlite.DatabaseSync | undefined;

/** `node:sqlite`'s DatabaseSync; `CatalogueError` `CATALOGUE_UNAVAILABLE` on a Node without it (before 22.13). */
function databaseClass(): typeof sqlite.DatabaseSync {
  if (loaded !== undefined) return loaded;
  let module: typeof sqlite | undefined;
  try {
    module = process.getBuiltinModule('node:sqlite');
  } catch {
    module = undefined;
  }
  if (module?.DatabaseSync === undefined) {
    throw new CatalogueError(
      'CATALOGUE_UNAVAILABLE',
      `the catalogue (view, find) needs Node.js 22.13 or later (node:sqlite); this is Node.js ${process.versions.node}`,
    );
  }
  loaded = module.DatabaseSync;
  return loaded;
}

/** Opens (or creates) the database file at `path`; read-only opens an existing file only. */
export function openDatabase(path: string, options: { readonly?: boolean } = {}): Database {
  const DatabaseSync = databaseClass();
  try {
    return new DatabaseSync(path, { readOnly: options.readonly === true });
  } catch (err) {
    throw new CatalogueError('CATALOGUE_IO', `cannot open the catalogue ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
