/**
 * A catalogue query — filters, free-text search, one order — as SQL with bound values (nothing from the query is
 * ever written into the SQL text but column names from a fixed list), and its page.
 */
import type { SqlValue } from './database.js';
import { CatalogueError } from './errors.js';
import { IN_ROWS, likeAny, prefixKey, substringKey } from './row-sets.js';
import { FLAGS, ID_FLAGS_INDEX, indexOf, SORTABLE, type SortColumn } from './schema.js';
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

/** The words of `text` (lowercase, at most 16), each to be found as a word's start; undefined when it has none. */
function wordsOf(text: string): string[] | undefined {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu);
  return words === null ? undefined : words.slice(0, 16);
}

/**
 * The index's terms a word starts, the rows holding them, and whether one of them is in every row (the word then holds
 * for all); or, for a broad prefix (prefixes.ts), no terms, its rows and `broad`; undefined when it cannot tell.
 */
export type Expand = (word: string) => { terms: string[]; rows: number; every: boolean; broad?: true } | undefined;

/**
 * How a search is looked up: the full-text index's terms each word starts, found by `expand` (an FTS5 prefix query
 * first merges every row number of every such term: 100 ms for a word in every row, and again for each row tested);
 * `bound`, the rows up to which the search drives the read; `walked`, the page's end × the catalogue's rows (a
 * walk to the page's end reads about `walked / matches` rows).
 */
export interface SearchTerms {
  expand: Expand;
  bound: number;
  walked: number;
}

/**
 * A walk tests each row it reads against a search by one lookup in the full-text index when that costs less than
 * gathering the search's row numbers first: a lookup costs about this many row numbers gathered (at 1,000,000
 * replays, ~19 µs against ~0.12 µs).
 */
const LOOKUP_ROWS = 150;

const quoted = (term: string): string => `"${term.replaceAll('"', '""')}"`;

/**
 * A search's FTS5 query; `probe`: made of whole terms only (cheap to test one row by); `rows`: at most this many;
 * `broad`: the words that are broad prefixes, tested by their row sets instead (row-sets.ts).
 */
interface Match {
  query: string;
  probe: boolean;
  rows: number;
  broad: string[];
}

/** `words` as an FTS5 query, every word required: its terms when `expand` knows them, else the word as a prefix. */
function matchOf(words: string[], expand: Expand | undefined): Match {
  const parts: string[] = [];
  const broad: string[] = [];
  let probe = true;
  let rows = Number.POSITIVE_INFINITY;
  for (const word of words) {
    // Only plain ASCII words are looked up as they are written: the tokenizer folds diacritics, the vocabulary holds
    // the folded terms.
    const found = /^[a-z0-9]+$/.test(word) ? expand?.(word) : undefined;
    // A word every row holds (a site's domain in its URLs) filters nothing: it costs its every row number otherwise.
    if (found?.every === true) continue;
    if (found?.broad === true) {
      broad.push(word);
      continue;
    }
    if (found === undefined || found.terms.length === 0) {
      parts.push(`${quoted(word)}*`);
      if (found === undefined) probe = false;
      else rows = 0;
      continue;
    }
    parts.push(found.terms.length === 1 ? quoted(found.terms[0]!) : `(${found.terms.map(quoted).join(' OR ')})`);
    rows = Math.min(rows, found.rows);
  }
  return { query: parts.join(' AND '), probe, rows, broad };
}

export interface Where {
  /** The FROM clause's tables: `replays`, or the full-text index joined to it (the search drives the read). */
  from: string;
  sql: string;
  params: SqlValue[];
  /** The row sets the conditions test (row-sets.ts): made before a statement runs. */
  sets: string[];
  /** The conditions are row sets alone: the rows are theirs, no statement needed. */
  setsOnly: boolean;
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
 * against 17). A walk tests the four flags in the sort's index instead (each holds `flags`): they need no index of
 * their own there.
 */
function selective(
  q: CatalogueQuery,
  add: (sql: string, ...values: SqlValue[]) => void,
  named: Named,
  walk: SortColumn | undefined,
): boolean {
  const terms: Selective[] = [];
  if (q.user !== undefined) terms.push(['user', '= ?', [q.user]]);
  const flags = flagsOf(q);
  if (walk !== undefined && flags !== 0) {
    add('flags & ? = ?', flags, flags);
    // A flag's own column walked: its range, so that the walk starts at the rows that have it.
    const own = FLAGS[walk as keyof typeof FLAGS] ?? 0;
    if ((flags & own) !== 0) add(`${walk} > 0`);
  } else
    for (const [column, bit] of Object.entries(FLAGS) as Array<[keyof typeof FLAGS, number]>)
      if ((flags & bit) !== 0) terms.push([column, '> 0', []]);
  if (terms.length === 1) add(`${named(terms[0]![0])} ${terms[0]![1]}`, ...terms[0]![2]);
  if (terms.length < 2) return terms.length > 0 || flags !== 0;
  const sets = terms
    .map(([column, test]) => `SELECT n FROM replays INDEXED BY ${indexOf(column)} WHERE ${column} ${test}`)
    .join(' INTERSECT ');
  add(`${named('n')} IN (${sets})`, ...terms.flatMap(([, , values]) => values));
  return true;
}

/** The `flags` bits a query requires (schema.ts `FLAGS`). */
function flagsOf(q: CatalogueQuery): number {
  return (
    (q.errors === true ? FLAGS.errors : 0) |
    (q.rageClicks === true ? FLAGS.rage : 0) |
    (q.deadClicks === true ? FLAGS.dead : 0) |
    (q.failedRequests === true ? FLAGS.failed : 0)
  );
}

/** `q`'s ranges alone (clicks, start, duration); undefined when it has none. */
export function rangesOf(q: CatalogueQuery): CatalogueQuery | undefined {
  const ranges: Partial<Record<(typeof RANGES)[number], number>> = {};
  for (const key of RANGES) if (q[key] !== undefined) ranges[key] = q[key];
  return Object.keys(ranges).length > 0 ? ranges : undefined;
}

const RANGES = ['minClicks', 'from', 'to', 'minDurationMs', 'maxDurationMs'] as const;

/**
 * Whether a walk of the sort's index tests `q`'s flags in the index first: a row without them costs an index entry
 * read, not a table row (nor a search lookup).
 */
export function walksFlags(q: CatalogueQuery): boolean {
  return flagsOf(q) !== 0;
}

/**
 * The query's conditions on `replays` as one WHERE clause (empty when none). With `walk` (a sort column: the page is
 * read in its index's order, many rows match) the status, the selective conditions and the row numbers of an
 * intersection are written `+column` (unless on the sort's column), so that they cannot drive the plan: SQLite
 * would otherwise find every matching row through their index and sort them all for one page (at 1,000,000
 * replays, status ok by pages: 1.1 s of CPU). With `substrings`, a device or session substring is its row set
 * (row-sets.ts) rather than a `LIKE` on the table's row; a broad prefix of the search always is.
 *
 * A search with `search` reads no more of the full-text index than the page needs where it can: its words are the
 * index's terms (no prefix merge); without a walk the index drives the read, streaming its row numbers, unless it
 * matches more than `bound` rows and another condition has an index; a walk tests each row it reads by one lookup
 * (`EXISTS … rowid = n`) when it reads fewer rows than the search matches over `LOOKUP_ROWS`. Otherwise (and
 * without `search`) the search's row numbers are gathered first (`IN (SELECT rowid … MATCH ?)`, which SQLite
 * materialises whole: a word in every row, a million row numbers, 120 ms).
 */
export function whereOf(q: CatalogueQuery, walk?: SortColumn, search?: SearchTerms, substrings = false): Where {
  const named: Named = (column) => (walk === undefined || column === walk ? column : `+${column}`);
  const terms: string[] = [];
  const params: SqlValue[] = [];
  const add = (sql: string, ...values: SqlValue[]): void => {
    terms.push(sql);
    params.push(...values);
  };
  const words: string[] = [];
  if (q.text !== undefined && q.text.trim() !== '') {
    const found = wordsOf(q.text);
    if (found === undefined)
      add(`(id LIKE ? ESCAPE '\\' OR replays.urls LIKE ? ESCAPE '\\')`, likeAny(q.text), likeAny(q.text));
    else words.push(...found);
  }
  if (q.url !== undefined && q.url !== '') {
    // The full-text index finds the candidates by the URL's longest word (a short one, like `p` of `/p/99`, is in
    // every URL); LIKE keeps those holding the text as written.
    const longest = (q.url.match(/[\p{L}\p{N}]+/gu) ?? []).sort((a, b) => b.length - a.length)[0];
    const found = longest === undefined || longest.length < 2 ? undefined : wordsOf(longest);
    if (found !== undefined) words.push(...found);
    add(`replays.urls LIKE ? ESCAPE '\\'`, likeAny(q.url));
  }
  const indexed = selective(q, add, named, walk);
  const sets: string[] = [];
  const inSet = (key: string): void => {
    sets.push(key);
    add(`${IN_ROWS}(?, replays.n)`, key);
  };
  for (const [column, text] of [
    ['device', q.device],
    ['session', q.session],
  ] as const) {
    if (text === undefined) continue;
    if (substrings) {
      inSet(substringKey(column, text));
      continue;
    }
    // The id holds both (`device/session`): a walk of the id's index tests it there first, and reads the table row
    // only for the ids that hold the text (at 1,000,000 replays, `device=00` by id, page 150: ~57,000 rows read
    // otherwise, 230 ms). An id kept as a blob (rows.ts `storedId`) is tested on the table's row.
    if (walk === 'id') add(`(id LIKE ? ESCAPE '\\' OR typeof(id) = 'blob')`, likeAny(text));
    add(`${column} LIKE ? ESCAPE '\\'`, likeAny(text));
  }
  if (q.status !== undefined) add(`${named('status')} = ?`, q.status);
  // A walk is chosen from the match count (and a range's rows, `Catalogue` counts them): a range on another column
  // must not drive it. SQLite guesses a range's rows, and took the duration index for 10 to 20 minutes (~95,000 of
  // 1,000,000) and sorted them all for page 1 by rage clicks: 460 ms.
  if (q.minClicks !== undefined) add(`${named('clicks')} >= ?`, q.minClicks);
  if (q.from !== undefined) add(`${named('start')} >= ?`, q.from);
  if (q.to !== undefined) add(`${named('start')} < ?`, q.to);
  if (q.minDurationMs !== undefined) add(`${named('duration')} >= ?`, q.minDurationMs);
  if (q.maxDurationMs !== undefined) add(`${named('duration')} <= ?`, q.maxDurationMs);
  let from = walk === 'id' && flagsOf(q) !== 0 ? `replays INDEXED BY ${ID_FLAGS_INDEX}` : 'replays';
  const match = words.length > 0 ? matchOf(words, search?.expand) : undefined;
  for (const word of match?.broad ?? []) inSet(prefixKey(word));
  if (match !== undefined && match.query !== '') {
    // Another condition with an index of its own: a selective one, the status, a range.
    const other = indexed || q.status !== undefined || rangesOf(q) !== undefined;
    const lookups = search !== undefined && walk !== undefined && match.probe;
    if (search !== undefined && walk === undefined && (match.rows <= search.bound || !other)) {
      from = 'search CROSS JOIN replays ON replays.n = search.rowid';
      terms.unshift('search MATCH ?');
      params.unshift(match.query);
    } else if (lookups && match.rows * match.rows > LOOKUP_ROWS * search.walked)
      add('EXISTS (SELECT 1 FROM search WHERE search MATCH ? AND rowid = replays.n)', match.query);
    else {
      // A word known to match more than `bound` rows must not drive the read either: SQLite would look up every row
      // number it gathers rather than take the other condition's index (`q=shop&errors=1`: 400 ms against 190).
      const broad = search !== undefined && Number.isFinite(match.rows) && match.rows > search.bound;
      add(`${broad ? '+n' : named('n')} IN (SELECT rowid FROM search WHERE search MATCH ?)`, match.query);
    }
  }
  const sql = terms.length === 0 ? '' : `WHERE ${terms.join(' AND ')}`;
  return { from, sql, params, sets, setsOnly: sets.length > 0 && sets.length === terms.length };
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
