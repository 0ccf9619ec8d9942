/**
 * Broad prefixes. A search word that starts more than a few of the full-text index's terms is matched as a prefix,
 * and FTS5 then merges the row numbers of every term it starts, at each query: at 1,000,000 replays, `d` starts
 * 129,000 terms (the hex groups of device ids) in 276,000 rows, 90 ms of CPU; `1`, the first digit of every session
 * number, 1,140,000 terms, 245 ms; a page asked it twice. The build finds the prefixes whose merge is that costly,
 * merges each once, and keeps its rows as a bitmap (or only its count, when it is in every row): a page tests a row
 * by one bit, and a word in every row filters nothing.
 */
import type { Database, Statement } from './database.js';
import { addRows } from './row-sets.js';

/**
 * A prefix is broad when its terms and the rows holding them (the vocabulary's counts, a term in two rows counted
 * twice) add up to more than this: its merge then costs more than ~25 ms of CPU (at 1,000,000 replays, `d2`, 8,000
 * terms in 19,000 rows: 7 ms; `d`, 129,000 terms in 313,000 row entries: 90 ms).
 */
const BROAD_UNITS = 100_000;

/**
 * At most this many broad prefixes are kept, shortest first (each costs reading its terms' rows at the build, and
 * size / 8 bytes). At 1,000,000 replays of the bench's archive there are 35 (~4.3 s of the build's CPU, 4 MB). A
 * broad prefix past them is merged at each query, as any prefix is.
 */
const MAX_BROAD = 64;

/** A word starts as many terms as this, or fewer: the catalogue searches for them by name (query.ts `Expand`). */
export const EXPAND_TERMS = 8;

/** Above any character a term holds: `prefix + TOP` bounds the terms `prefix` starts. */
const TOP = '\u{10FFFF}';

/** A prefix one character longer than a broad one, and how many terms it starts. */
interface Child {
  prefix: string;
  terms: number;
}

/** A broad prefix, and the prefixes one character longer that start its terms (broad or not). */
interface Broad {
  prefix: string;
  children: Child[];
}

/** The full-text index's vocabulary (a table `temp.broad_vocab` of the connection, until `close`). */
class Vocabulary {
  readonly #db: Database;
  readonly #next: Statement;
  readonly #count: Statement;
  readonly #terms: Statement;
  readonly #exact: Statement;

  constructor(db: Database) {
    this.#db = db;
    db.exec('CREATE VIRTUAL TABLE temp.broad_vocab USING fts5vocab(main, search, row)');
    this.#next = db.prepare('SELECT term FROM temp.broad_vocab WHERE term > ? AND term < ? LIMIT 1');
    this.#count = db.prepare(
      `SELECT count(*) AS terms, coalesce(sum(doc), 0) AS rows
       FROM (SELECT doc FROM temp.broad_vocab WHERE term >= ? AND term < ? LIMIT ?)`,
    );
    this.#terms = db.prepare('SELECT term, doc FROM temp.broad_vocab WHERE term >= ? AND term < ?');
    this.#exact = db.prepare('SELECT term, doc FROM temp.broad_vocab WHERE term = ?');
  }

  /** The first term after `after` that `prefix` starts. */
  next(after: string, prefix: string): string | undefined {
    const term = this.#next.get(after, prefix + TOP)?.['term'];
    return typeof term === 'string' ? term : undefined;
  }

  /**
   * The terms `prefix` starts, and those and the rows holding them added up, both counted up to `most` terms (more
   * than `units` terms are broad whatever their rows: the vocabulary need not be read further).
   */
  count(prefix: string, most: number): { terms: number; units: number } {
    const got = this.#count.get(prefix, prefix + TOP, most)!;
    return { terms: Number(got['terms']), units: Number(got['terms']) + Number(got['rows']) };
  }

  /** The terms `prefix` starts (or is, with `exact`), each with the rows holding it. */
  terms(prefix: string, exact = false): Array<{ term: string; rows: number }> {
    const found = exact ? this.#exact.all(prefix) : this.#terms.all(prefix, prefix + TOP);
    return found.map((r) => ({ term: String(r['term']), rows: Number(r['doc']) }));
  }

  close(): void {
    this.#db.exec('DROP TABLE temp.broad_vocab');
  }
}

/**
 * The broad prefixes, shortest first, each with its children: a prefix is looked into only when it is broad itself,
 * and each is counted up to `units` terms, so that the vocabulary is read at most about once for each level of broad
 * prefixes.
 */
function broadPrefixes(vocabulary: Vocabulary, units: number): Broad[] {
  const root: Broad = { prefix: '', children: [] };
  const broad: Broad[] = [];
  const queue = [root];
  for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
    for (let after = parent.prefix; ; ) {
      const term = vocabulary.next(after, parent.prefix);
      if (term === undefined) break;
      const prefix = parent.prefix + String.fromCodePoint(term.codePointAt(parent.prefix.length)!);
      const counted = vocabulary.count(prefix, units + 1);
      parent.children.push({ prefix, terms: counted.terms });
      if (broad.length < MAX_BROAD && counted.terms > EXPAND_TERMS && counted.units > units) {
        const found = { prefix, children: [] };
        broad.push(found);
        queue.push(found);
      }
      after = prefix + TOP;
    }
  }
  return broad;
}

/** What a broad prefix is recorded as: its rows, or `every` row. */
type Recorded = Uint8Array | 'every';

/** A term's row numbers are read this many at a time (a range of row numbers: a term may be in every row). */
const CHUNK_ROWS = 65_536;

/** Sets in a bitmap the rows of a term, or of a prefix of more than `EXPAND_TERMS` terms, read by FTS5. */
class RowReader {
  readonly #term: Statement;
  readonly #prefix: Statement;

  constructor(
    db: Database,
    readonly last: number,
  ) {
    const rows = 'SELECT json_group_array(rowid) AS rows FROM search WHERE search MATCH ?';
    this.#term = db.prepare(`${rows} AND rowid > ? AND rowid <= ?`);
    this.#prefix = db.prepare(rows);
  }

  /** The rows holding `term`, a range of row numbers at a time (FTS5 seeks a term's rows by number). */
  term(bits: Uint8Array, term: string): void {
    for (let from = 0; from < this.last; from += CHUNK_ROWS)
      set(bits, this.#term.get(termQuery(term, false), from, from + CHUNK_ROWS));
  }

  /**
   * The rows holding a term `prefix` starts, in one merge: a prefix that is not broad holds at most `BROAD_UNITS`
   * rows (its merge is made whole before it answers its first row, whatever range is asked).
   */
  prefix(bits: Uint8Array, prefix: string): void {
    set(bits, this.#prefix.get(termQuery(prefix, true)));
  }
}

/** Sets in `bits` the row numbers of a `json_group_array` answer. */
function set(bits: Uint8Array, got: Record<string, unknown> | undefined): void {
  addRows(bits, JSON.parse(String(got!['rows'])) as number[]);
}

/** An FTS5 query of the rows holding the term `term`, or (`prefix`) a term it starts. */
const termQuery = (term: string, prefix: boolean): string => `"${term.replaceAll('"', '""')}"${prefix ? '*' : ''}`;

/**
 * Finds the broad prefixes of a built index (of `size` rows) and records each in `prefixes`: its row count, and its rows as a bitmap
 * (bit `n % 8` of byte `n >> 3` for row number `n`) unless it is in every row. Longest first, a broad prefix's rows
 * are its own term's and its children's: a broad child's recorded, another's read by FTS5, a few terms' each by
 * itself. So no read holds many row numbers at once: merged whole, `example` in 1,000,000 rows cost 30 MB of RSS.
 * A prefix that a child or a term in every row holds is in every row too (nothing is read for it). Returns how many.
 */
export function recordBroadPrefixes(db: Database, size: number, units = BROAD_UNITS): number {
  const last = Number(db.prepare('SELECT coalesce(max(n), 0) AS last FROM replays').get()!['last']);
  const reader = new RowReader(db, last);
  const put = db.prepare('INSERT INTO prefixes(prefix, rows, bits) VALUES (?, ?, ?)');
  const vocabulary = new Vocabulary(db);
  try {
    const broad = broadPrefixes(vocabulary, units).sort((a, b) => b.prefix.length - a.prefix.length);
    const recorded = new Map<string, Recorded>();
    for (const { prefix, children } of broad) {
      const rows = rowsOf(prefix, children, { vocabulary, reader, recorded, size });
      const count = rows === 'every' ? size : bitCount(rows);
      recorded.set(prefix, count >= size ? 'every' : rows);
      put.run(prefix, count, count >= size ? null : rows);
    }
    return broad.length;
  } finally {
    vocabulary.close();
  }
}

/** The rows of a broad prefix: its own term's and its children's (see `recordBroadPrefixes`). */
function rowsOf(
  prefix: string,
  children: Child[],
  from: { vocabulary: Vocabulary; reader: RowReader; recorded: Map<string, Recorded>; size: number },
): Recorded {
  const own = from.vocabulary.terms(prefix, true);
  const few = new Map<string, Array<{ term: string; rows: number }>>();
  for (const child of children)
    if (!from.recorded.has(child.prefix) && child.terms <= EXPAND_TERMS)
      few.set(child.prefix, from.vocabulary.terms(child.prefix));
  const everywhere = [own, ...few.values()].some((terms) => terms.some((t) => t.rows >= from.size));
  if (everywhere || children.some((child) => from.recorded.get(child.prefix) === 'every')) return 'every';
  const bits = new Uint8Array((from.reader.last >> 3) + 1);
  for (const { term } of own) from.reader.term(bits, term);
  for (const child of children) {
    const known = from.recorded.get(child.prefix);
    const terms = few.get(child.prefix);
    if (known instanceof Uint8Array) for (let i = 0; i < bits.length; i++) bits[i]! |= known[i]!;
    else if (terms !== undefined) for (const { term } of terms) from.reader.term(bits, term);
    else from.reader.prefix(bits, child.prefix);
  }
  return bits;
}

/** The bits set in `bits`. */
function bitCount(bits: Uint8Array): number {
  let count = 0;
  for (let byte of bits) {
    for (; byte !== 0; byte &= byte - 1) count++;
  }
  return count;
}
