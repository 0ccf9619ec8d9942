/**
 * The embedded database under the catalogue: SQLite through `libsql` (an optional peer dependency, left out of a
 * default install like the video packages: `view` and `find` name the command that installs it; its prebuilt binary
 * comes from the npm registry as a package of its own, one per platform, over Node-API: the same on Node 20, 22 and 24).
 * Loaded on first use, so that the commands that do not use the catalogue never load it.
 */
import { createRequire } from 'node:module';
import { installCommand } from '../util/peer-packages.js';
import { CatalogueError } from './errors.js';

/** The part of the binding's statement the catalogue uses. */
export interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  raw(toggle?: boolean): Statement;
}

/** The part of the binding's database the catalogue uses. */
export interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  close(): void;
}

type DatabaseClass = new (path: string, options?: { readonly?: boolean; fileMustExist?: boolean }) => Database;

let loaded: DatabaseClass | undefined;

/** The binding's Database class; `CatalogueError` `CATALOGUE_UNAVAILABLE` when the package is not installed. */
function databaseClass(): DatabaseClass {
  if (loaded !== undefined) return loaded;
  try {
    // A CommonJS package with a native addon: required, not imported (no top-level await on the way).
    loaded = createRequire(import.meta.url)('libsql') as DatabaseClass;
  } catch (err) {
    throw new CatalogueError(
      'CATALOGUE_UNAVAILABLE',
      `the catalogue (view, find) needs libsql, which is not installed (an optional peer dependency, left out of a default install): ${installCommand(['libsql'])}`,
      { cause: err },
    );
  }
  return loaded;
}

/** Opens (or creates) the database file at `path`. */
export function openDatabase(path: string, options: { readonly?: boolean } = {}): Database {
  const Class = databaseClass();
  try {
    return new Class(path, options.readonly === true ? { readonly: true, fileMustExist: true } : {});
  } catch (err) {
    throw new CatalogueError('CATALOGUE_IO', `cannot open the catalogue ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
