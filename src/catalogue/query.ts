/**
 * A catalogue query — filters, free-text search, one order — as SQL with bound values (nothing from the query is
 * ever written into the SQL text but column names from a fixed list), and its page.
 */
import type { SqlValue } from './database.js';
import { CatalogueError } from './errors.js';
import { indexOf, SORTABLE, type SortColumn } from './schema.js';
import type { ReplayStatus } from '../../sinks/sink.js';

export interface CatalogueQuery {
  /** Free text: every word must start a word of the replay's id, user, page URLs or first error message. */
  text?: string;
  /** The platform user id, exactly (`"0123"` and `123` are one user). */
  user?: string;
  /** Substring of the device part of the id (before its last `/`). */
  device?: string;
  /** Substring of the session part of the id (after its last `/`). */
  session?: string;
  /** Substring of any page URL visited. */
  url?: string;
  /** Only replays with console errors. */
  errors?: boolean;
  /** Only replays with rage clicks. */
  rageClicks?: boolean;
  /** Only replays with dead clicks. */
  deadClicks?: boolean;
  /** Only replays with failed network requests. */
  failedRequests?: boolean;
  /** At least this many clicks. */
  minClicks?: number;
  status?: ReplayStatus;
  /** Start at or after (ms since the epoch). */
  from?: number;
  /** Start before (ms since the epoch). */
  to?: number;
  minDurationMs?: number;
  maxDurationMs?: number;
  /** The order: a sortable column, `-` in front for largest (latest) first. Default `-start` (newest first). */
  sort?: string;
}

export const DEFAULT_SORT = '-start';

export interface Sort {
  column: SortColumn;
  descending: boolean;
}

/** `start`, `-start`, ... as a column and a direction; `CatalogueError` `CATALOGUE_QUERY` for anything else. */
export function parseSort(sort: string = DEFAULT_SORT): Sort {
  const descending = sort.startsWith('-');
  const column = descending ? sort.slice(1) : sort;
  if (!(SORTABLE as readonly string[]).includes(column))
    throw new CatalogueError(
      'CATALOGUE_QUERY',
      `sort must be one of ${SORTABLE.join(', ')}, with - in front for descending`,
    );
  return { column: column as SortColumn, descending };
}

/** `%`, `_` and the escape itself escaped for `LIKE ... ESCAPE '\'`. */
function likeAny(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The words of `text` as an FTS5 query, each a prefix and all required; undefined when it has no word. */
function ftsWords(text: string): string | undefined {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu);
  if (words === null) return undefined;
  const terms = words.slice(0, 16).map((w) => `"${w}"*`);
  return terms.join(' AND ');
}

export interface Where {
  sql: string;
  params: SqlValue[];
}

/** A selective condition: the column whose index serves it, its test and its bound values. */
type Selective = [Exclude<SortColumn, 'id'>, string, SqlValue[]];

/** A column as a condition names it: `+column` (its index kept out of the plan) or as it is. */
type Named = (column: string) => string;

/**
 * The selective conditions — the user, and replays with errors, rage or dead clicks, failed requests — each served
 * by its column's index. Two or more are one intersection of the row numbers each index gives (SQLite would take
 * one index and read every row it finds to check the others). Each part names its index (`INDEXED BY`): an
 * INTERSECT merges its parts in row-number order, and without it SQLite reads the whole table in that order for
 * each part rather than its index's few rows and a sort (at 1,000,000 replays, errors and rage: 140 ms of CPU
 * against 17).
 */
function selective(q: CatalogueQuery, add: (sql: string, ...values: SqlValue[]) => void, named: Named): void {
  const terms: Selective[] = [];
  if (q.user !== undefined) terms.push(['user', '= ?', [q.user]]);
  if (q.errors === true) terms.push(['errors', '> 0', []]);
  if (q.rageClicks === true) terms.push(['rage', '> 0', []]);
  if (q.deadClicks === true) terms.push(['dead', '> 0', []]);
  if (q.failedRequests === true) terms.push(['failed', '> 0', []]);
  if (terms.length === 1) add(`${named(terms[0]![0])} ${terms[0]![1]}`, ...terms[0]![2]);
  if (terms.length < 2) return;
  const sets = terms
    .map(([column, test]) => `SELECT n FROM replays INDEXED BY ${indexOf(column)} WHERE ${column} ${test}`)
    .join(' INTERSECT ');
  add(`${named('n')} IN (${sets})`, ...terms.flatMap(([, , values]) => values));
}

/**
 * The query's conditions on `replays` as one WHERE clause (empty when none). With `walk` (a sort column: the page is
 * read in its index's order, many rows match) the status, the selective conditions and the row numbers of a search
 * or an intersection are written `+column` (unless on the sort's column), so that they cannot drive the plan: SQLite
 * would otherwise find every matching row through their index and sort them all for one page (at 1,000,000
 * replays, status ok by pages: 1.1 s of CPU).
 */
export function whereOf(q: CatalogueQuery, walk?: SortColumn): Where {
  const named: Named = (column) => (walk === undefined || column === walk ? column : `+${column}`);
  const terms: string[] = [];
  const params: SqlValue[] = [];
  const add = (sql: string, ...values: SqlValue[]): void => {
    terms.push(sql);
    params.push(...values);
  };
  const match: string[] = [];
  if (q.text !== undefined && q.text.trim() !== '') {
    const words = ftsWords(q.text);
    if (words === undefined)
      add(`(id LIKE ? ESCAPE '\\' OR urls LIKE ? ESCAPE '\\')`, likeAny(q.text), likeAny(q.text));
    else match.push(words);
  }
  if (q.url !== undefined && q.url !== '') {
    // The full-text index finds the candidates by the URL's longest word (a short one, like `p` of `/p/99`, is in
    // every URL); LIKE keeps those holding the text as written.
    const longest = (q.url.match(/[\p{L}\p{N}]+/gu) ?? []).sort((a, b) => b.length - a.length)[0];
    const words = longest === undefined || longest.length < 2 ? undefined : ftsWords(longest);
    if (words !== undefined) match.push(words);
    add(`urls LIKE ? ESCAPE '\\'`, likeAny(q.url));
  }
  if (match.length > 0) add(`${named('n')} IN (SELECT rowid FROM search WHERE search MATCH ?)`, match.join(' AND '));
  selective(q, add, named);
  if (q.device !== undefined) add(`device LIKE ? ESCAPE '\\'`, likeAny(q.device));
  if (q.session !== undefined) add(`session LIKE ? ESCAPE '\\'`, likeAny(q.session));
  if (q.status !== undefined) add(`${named('status')} = ?`, q.status);
  // Ranges keep their indexes: SQLite weighs a range's rows against the walk (a week of a year by duration, page
  // 150: the start index and a sort of its 19,000 rows, 21 ms; walking the duration index, 660 ms).
  if (q.minClicks !== undefined) add('clicks >= ?', q.minClicks);
  if (q.from !== undefined) add('start >= ?', q.from);
  if (q.to !== undefined) add('start < ?', q.to);
  if (q.minDurationMs !== undefined) add('duration >= ?', q.minDurationMs);
  if (q.maxDurationMs !== undefined) add('duration <= ?', q.maxDurationMs);
  return { sql: terms.length === 0 ? '' : `WHERE ${terms.join(' AND ')}`, params };
}

/**
 * ORDER BY for a sort: its column, then the row number (a stable order for paging), both the same way. Without
 * `byIndex` the column is written `+column`, which keeps SQLite from walking the sort's index (the filters' indexes
 * find the rows, then they are sorted): the better plan when few rows match, which SQLite cannot know by itself.
 */
export function orderOf(sort: Sort, options: { byIndex: boolean } = { byIndex: true }): string {
  const dir = sort.descending ? 'DESC' : 'ASC';
  return `ORDER BY ${options.byIndex ? '' : '+'}${sort.column} ${dir}, n ${dir}`;
}
