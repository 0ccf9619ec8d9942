/**
 * An archive's catalogue: a SQLite file derived from its manifest (never the source of truth), kept in a local cache
 * folder — for a local archive and an S3 one alike, so that nothing is ever written into the archive — under a name
 * made from the archive's target. Opening it compares the manifest's stamp with the one the rows were read at: the
 * same, the file is used as it is (a million replays open in milliseconds); another (an append, a fold, an archive
 * written by an older version), it is built again from the manifest first.
 */
import { createHash } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Archive } from '../../sinks/archive.js';
import { type BuildResult, buildCatalogue } from './build.js';
import { type Database, openDatabase, type Statement } from './database.js';
import { CatalogueError } from './errors.js';
import {
  type CatalogueQuery,
  type Expand,
  orderOf,
  parseSort,
  rangesOf,
  type Sort,
  type Where,
  walksFlags,
  whereOf,
} from './query.js';
import { type CatalogueRow, rowOf, storedId } from './rows.js';
import { EXPAND_TERMS } from './prefixes.js';
import { RowSets } from './row-sets.js';
import { SCHEMA_VERSION } from './schema.js';

/** A filtered count stops here (the page shows "10,000+"), or past the page asked for when that is further. */
export const COUNT_CAP = 10_000;

/**
 * The reading connection's page cache, in KiB. SQLite's default (2 MiB) does not hold the b-trees' inner pages of a
 * million rows, so a walk that reads table rows reads their pages again and again: at 1,000,000 replays, a device
 * substring by duration, page 150 (a walk of ~78,000 rows), 259–340 ms of CPU with 2 MiB, 91–114 with 32 MiB, 59–97
 * with 64 MiB (the process's RSS +31 and +50 MB); memory-mapping the file did as well as 64 MiB, its pages all
 * counted in RSS (242 MB).
 */
const READ_CACHE_KIB = 32 * 1024;

/**
 * A range of at most this many rows is found and sorted for a page, not walked past: ~3 µs a row sorted (at 1,000,000
 * replays, a week, 19,000 rows, by size: 13–38 ms sorted, 150–170 ms walked).
 */
const RANGE_SORT_ROWS = 40_000;

/**
 * The match count from which a page ending at row `end` of `size` rows walks the sort's index rather than sorting the
 * matches: the walk reads about `end × size / matches` rows, the sort `matches`, at about the same cost a row (at
 * 1,000,000 replays, 2.5 and 3.1 µs of CPU); both are `√(end × size)` here, the most either reads. A walk that tests
 * flags in the index (`walksFlags`) reads most of its rows there, at `IN_INDEX` of that cost: it walks from fewer
 * matches.
 */
export function walkFrom(end: number, size: number, flags = false): number {
  return Math.ceil(Math.sqrt((flags ? IN_INDEX : 1) * end * size));
}

/**
 * A row walked and tested in the sort's index against one sorted by number (0.37 against 3.1 µs of CPU at 1,000,000
 * replays; `errors` and a word in every row by `-status`, page 150: a walk 140 ms, the 76,924 matches sorted 400).
 */
const IN_INDEX = 0.12;

/** The row numbers of a page's rows: `where` in the order `sort`, from an offset (`LIMIT ? OFFSET ?`). */
function numbersOf(where: Where, sort: Sort, plan: { byIndex: boolean }): string {
  return `SELECT replays.n FROM ${where.from} ${where.sql} ${orderOf(sort, plan)} LIMIT ? OFFSET ?`;
}

/**
 * A table row read in a walk costs about as much as this many index entries scanned for a substring (at 1,000,000
 * replays, ~4 µs against ~0.13 µs of CPU).
 */
const SCANNED_PER_ROW = 30;

/** How a page is read (`Catalogue.page`): its conditions, order and plan, where it starts, its count. */
interface PageRead {
  where: Where;
  sort: Sort;
  plan: { byIndex: boolean };
  offset: number;
  total: number;
  more: boolean;
  answered: number;
}

export interface CatalogueOptions {
  /** The cache folder (default `~/.cache/replay-export/catalogues`). */
  dir?: string;
  /** Told when the catalogue is (re)built, with how long it took. */
  onBuild?: (result: BuildResult & { ms: number }) => void;
  /** `refreshCatalogue` only: build nothing unless the archive has a catalogue in the folder already. */
  onlyIfPresent?: boolean;
}

export interface CataloguePage {
  rows: CatalogueRow[];
  /** Rows matching the query: exact unless `more`, then at least this many. */
  total: number;
  more: boolean;
  /** The page answered (1-based): the last one when the one asked for is past the end. */
  page: number;
  pageSize: number;
}

/** `options` with their folder: the one they give, else `dir` (a run's `catalogueDir`), else the default. */
export function catalogueIn(options: CatalogueOptions, dir: string | undefined): CatalogueOptions {
  const folder = options.dir ?? dir;
  return folder === undefined ? options : { ...options, dir: folder };
}

/** The default cache folder of catalogues. */
function defaultCatalogueDir(): string {
  return join(homedir(), '.cache', 'replay-export', 'catalogues');
}

/** The catalogue file of an archive target in `dir`. */
export function catalogueFile(dir: string, target: string): string {
  return join(dir, `${createHash('sha256').update(target).digest('hex').slice(0, 32)}.sqlite`);
}

/** The meta values of the file at `path`, or undefined when there is none or it is not a catalogue of this version. */
function currentMeta(path: string): Record<string, string> | undefined {
  let db: Database | undefined;
  try {
    db = openDatabase(path, { readonly: true });
    const rows = db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>;
    const meta = Object.fromEntries(rows.map((r) => [r.key, r.value]));
    return meta['schema'] === SCHEMA_VERSION ? meta : undefined;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

export class Catalogue {
  readonly #db: Database;
  readonly #byId: Statement;
  readonly #terms: Statement;
  readonly #sets: RowSets;
  /** Replays in the catalogue. */
  readonly size: number;

  constructor(
    readonly path: string,
    db: Database,
  ) {
    this.#db = db;
    db.exec(`PRAGMA cache_size=-${READ_CACHE_KIB}`);
    this.#byId = db.prepare('SELECT * FROM replays WHERE id = ?');
    // The full-text index's vocabulary (each term, and the rows holding it), a table of this connection only.
    db.exec('CREATE VIRTUAL TABLE temp.search_terms USING fts5vocab(main, search, row)');
    this.#terms = db.prepare(`SELECT term, doc FROM temp.search_terms WHERE term >= ? AND term <= ? LIMIT ?`);
    this.size = Number((db.prepare(`SELECT value FROM meta WHERE key = 'rows'`).get() as { value: string }).value);
    this.#sets = new RowSets(db);
  }

  /** The row of a replay id; undefined when the manifest holds none. */
  get(id: string): CatalogueRow | undefined {
    const raw = this.#byId.get(storedId(id)) as Record<string, unknown> | undefined;
    return raw === undefined ? undefined : rowOf(raw);
  }

  /**
   * The index's terms `word` starts (at most `EXPAND_TERMS`), the rows holding any (their sum: at most the rows
   * holding one) and whether one is in every row; when there are more, a broad prefix's rows (prefixes.ts), or
   * undefined.
   */
  readonly #expand: Expand = (word) => {
    const found = this.#terms
      .all(word, `${word}\u{10FFFF}`, EXPAND_TERMS + 1)
      .filter((r) => String(r['term']).startsWith(word));
    if (found.length > EXPAND_TERMS) {
      const rows = this.#sets.prefixRows(word);
      return rows === undefined ? undefined : { terms: [], rows, every: rows >= this.size, broad: true };
    }
    return {
      terms: found.map((r) => String(r['term'])),
      rows: found.reduce((sum, r) => sum + Number(r['doc']), 0),
      every: found.some((r) => Number(r['doc']) >= this.size),
    };
  };

  /** Rows matching `q` (at most `cap`), counted. */
  #count(where: Where, cap: number): number {
    if (where.sql === '') return this.size;
    this.#sets.ensure(where.sets);
    if (where.setsOnly) return this.#sets.rows(where.sets, cap).length;
    const sql = `SELECT count(*) AS c FROM (SELECT 1 FROM ${where.from} ${where.sql} LIMIT ?)`;
    return Number((this.#db.prepare(sql).get(...where.params, cap) as { c: number }).c);
  }

  /**
   * Whether `q`'s ranges hold at most `RANGE_SORT_ROWS` rows (counted in their index, up to that): the page then sorts
   * the matches, a cost bounded by the range's rows, rather than walking the sort's index, which past rows whose order
   * follows the range's (a week of a year by size) reads far more than its average.
   */
  #fewInRange(q: CatalogueQuery): boolean {
    const ranges = rangesOf(q);
    return ranges !== undefined && this.#count(whereOf(ranges), RANGE_SORT_ROWS + 1) <= RANGE_SORT_ROWS;
  }

  /**
   * The row numbers matching `where`, up to `limit` + 1 (none without a filter). When there are at most `limit`, the
   * page is read by them, not by running the filters again (a device substring reads every row).
   */
  #matches(where: Where, limit: number): number[] {
    if (where.sql === '') return [];
    this.#sets.ensure(where.sets);
    if (where.setsOnly) return this.#sets.rows(where.sets, limit + 1);
    const sql = `SELECT replays.n FROM ${where.from} ${where.sql} LIMIT ?`;
    return this.#db
      .prepare(sql)
      .all(...where.params, limit + 1)
      .map((r) => Number(r['n']));
  }

  /**
   * One page (1-based) of the rows matching `q`, in its order. A page past the end answers the last page; the count
   * stops at `COUNT_CAP` (or just past the page asked for) so that a broad filter costs no full count.
   */
  page(q: CatalogueQuery, page: number, pageSize: number): CataloguePage {
    const read = this.#pageRead(q, page, pageSize);
    if (read === undefined) return { rows: [], total: 0, more: false, page: 1, pageSize };
    const { where, sort, plan, offset, total, more, answered } = read;
    const raws = this.#rowsAt(where, sort, plan, offset, pageSize, more ? undefined : total);
    return { rows: raws.map((r) => rowOf(r as Record<string, unknown>)), total, more, page: answered, pageSize };
  }

  /**
   * The steps SQLite takes to read the page `page(q, page, pageSize)` answers (`EXPLAIN QUERY PLAN`, each step's
   * detail): how a page's plan is chosen, shown without timing it.
   */
  plan(q: CatalogueQuery, page: number, pageSize: number): string[] {
    const read = this.#pageRead(q, page, pageSize);
    if (read === undefined) return [];
    this.#sets.ensure(read.where.sets);
    return this.#db
      .prepare(`EXPLAIN QUERY PLAN ${numbersOf(read.where, read.sort, read.plan)}`)
      .all(...read.where.params, pageSize, read.offset)
      .map((step) => String(step['detail']));
  }

  /**
   * How the page is read: its count, and its plan. The filters' row numbers are gathered up to `walkFrom(page end,
   * size)` (at least `COUNT_CAP`); that many or fewer are read by their numbers and sorted (a temp B-tree over them),
   * more by walking the sort's index, filtered, to the page's end: about (page end × size / matches) rows, fewer than
   * the same bound. Undefined when nothing matches.
   */
  #pageRead(q: CatalogueQuery, page: number, pageSize: number): PageRead | undefined {
    const sort = parseSort(q.sort);
    const cap = Math.max(COUNT_CAP, page * pageSize) + 1;
    const limit = Math.max(COUNT_CAP, walkFrom(page * pageSize, this.size, walksFlags(q)));
    const search = { expand: this.#expand, bound: limit, walked: page * pageSize * this.size };
    const substrings = this.#substringSets(q, page * pageSize);
    const where = whereOf(q, undefined, search, substrings);
    const found = this.#matches(where, limit);
    const all = where.sql !== '' && found.length <= limit;
    const counted = all || found.length >= cap ? Math.min(found.length, cap) : this.#count(where, cap);
    const more = counted >= cap && where.sql !== '';
    const total = more ? cap - 1 : counted;
    if (total === 0) return undefined;
    const last = Math.max(1, Math.ceil(total / pageSize));
    const answered = !more && page > last ? last : page;
    // Past the gathering's bound, the page walks the sort's index; unless a range holds few rows: they are sorted.
    const sorted = !all && this.#fewInRange(q);
    const byNumber: Where = {
      from: 'replays',
      sql: 'WHERE n IN (SELECT value FROM json_each(?))',
      params: [JSON.stringify(found)],
      sets: [],
      setsOnly: false,
    };
    return {
      where: all ? byNumber : sorted ? where : whereOf(q, sort.column, search, substrings),
      sort,
      plan: { byIndex: !all && !sorted },
      offset: (answered - 1) * pageSize,
      total,
      more,
      answered,
    };
  }

  /**
   * Whether a walk to row `end` tests a device or session substring against its row set (row-sets.ts) rather than on
   * each row's table row: when the walk may read more rows than a scan of the column's index costs.
   */
  #substringSets(q: CatalogueQuery, end: number): boolean {
    const substring = q.device !== undefined || q.session !== undefined;
    return substring && walkFrom(end, this.size, walksFlags(q)) > this.size / SCANNED_PER_ROW;
  }

  /**
   * `size` rows from `offset` in the order `sort`: their row numbers first (skipping `offset` rows costs their sort
   * key, not the whole row), then those rows. In the second half of `total` rows (when known) they are read from the
   * other end, in the reverse order, and turned around: the last page costs what the first does.
   */
  #rowsAt(
    where: Where,
    sort: Sort,
    plan: { byIndex: boolean },
    offset: number,
    size: number,
    total: number | undefined,
  ): unknown[] {
    const fromEnd = total !== undefined && offset > total / 2;
    const order = fromEnd ? { column: sort.column, descending: !sort.descending } : sort;
    const count = fromEnd ? Math.min(size, total - offset) : size;
    const sql = `SELECT * FROM replays WHERE n IN (${numbersOf(where, order, plan)}) ${orderOf(sort, { byIndex: false })}`;
    this.#sets.ensure(where.sets);
    return this.#db.prepare(sql).all(...where.params, count, fromEnd ? total - offset - count : offset);
  }

  /** Every row matching `q`, in its order (at most `max`), read as they are asked for. */
  *rows(q: CatalogueQuery, max = Number.MAX_SAFE_INTEGER): IterableIterator<CatalogueRow> {
    const where = whereOf(q);
    this.#sets.ensure(where.sets);
    const sql = `SELECT replays.* FROM ${where.from} ${where.sql} ${orderOf(parseSort(q.sort))} LIMIT ?`;
    for (const raw of this.#db.prepare(sql).iterate(...where.params, max)) yield rowOf(raw);
  }

  close(): void {
    this.#db.close();
  }
}

/**
 * The catalogue of `archive`, current with its manifest: the cached file when its stamp is the manifest's, else
 * built from the manifest first (an archive written by an older version gets one here, on first use).
 */
export async function openCatalogue(archive: Archive, options: CatalogueOptions = {}): Promise<Catalogue> {
  const dir = options.dir ?? defaultCatalogueDir();
  const path = catalogueFile(dir, archive.target);
  const stamp = await archive.manifest.stamp();
  const exists = await stat(path).then(
    (st) => st.isFile(),
    () => false,
  );
  const meta = exists ? currentMeta(path) : undefined;
  if (stamp === undefined || meta?.['stamp'] !== stamp) await refreshFile(archive, dir, path, options);
  return new Catalogue(path, openDatabase(path, { readonly: true }));
}

async function refreshFile(archive: Archive, dir: string, path: string, options: CatalogueOptions): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new CatalogueError('CATALOGUE_IO', `cannot make the catalogue folder ${dir}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const started = performance.now();
  const result = await buildCatalogue(archive, path);
  options.onBuild?.({ ...result, ms: performance.now() - started });
}

/**
 * Brings the catalogue of `archive` up to its manifest, as a fold does: built again unless it is current. Returns
 * whether it was built.
 */
export async function refreshCatalogue(archive: Archive, options: CatalogueOptions = {}): Promise<boolean> {
  const dir = options.dir ?? defaultCatalogueDir();
  const path = catalogueFile(dir, archive.target);
  const exists = await stat(path).then(
    (st) => st.isFile(),
    () => false,
  );
  if (!exists && options.onlyIfPresent === true) return false;
  const stamp = await archive.manifest.stamp();
  const meta = exists ? currentMeta(path) : undefined;
  if (stamp !== undefined && meta?.['stamp'] === stamp) return false;
  await refreshFile(archive, dir, path, options);
  return true;
}
