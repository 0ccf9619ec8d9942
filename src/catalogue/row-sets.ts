/**
 * Sets of rows as bitmaps (bit `n % 8` of byte `n >> 3` for row number `n`), which a statement tests a row against
 * by `in_rows(key, n)`, a function of the connection: no row of the table is read for it. Two kinds:
 * - `prefix:<word>`, a broad prefix's rows, recorded at the build (prefixes.ts);
 * - `device:<text>` and `session:<text>`, the rows whose device or session holds the text, found by one scan of that
 *   column's index for a page that walks far: the walk then tests each row in the sort's index instead of reading its
 *   table row for the column (at 1,000,000 replays, `device=00` by clicks, page 150: 57,000 table rows, ~230 ms of
 *   CPU; the scan of the device index ~130 ms, and the walk's tests ~10 ms).
 * A statement's sets are made before it runs (`ensure`): a function of the connection does not query it.
 */
import type { Database, Statement } from './database.js';
import { CatalogueError } from './errors.js';

/** The SQL function testing a row against a set: `in_rows(key, n)`, 1 or 0. */
export const IN_ROWS = 'in_rows';

/** At most this many prefixes' sets are kept between statements (size / 8 bytes each: 125 KB at 1,000,000 replays). */
const KEPT = 16;

/** The columns whose substring may be a set: each has an index of its own (schema.ts). */
export type SubstringColumn = 'device' | 'session';

export const prefixKey = (word: string): string => `prefix:${word}`;
export const substringKey = (column: SubstringColumn, text: string): string => `${column}:${text}`;

/** `%`, `_` and the escape itself escaped for `LIKE ... ESCAPE '\'`, the text anywhere. */
export function likeAny(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export class RowSets {
  readonly #sets = new Map<string, Uint8Array>();
  readonly #prefixRows: Statement;
  readonly #prefixBits: Statement;
  readonly #substring: Record<SubstringColumn, Statement>;

  constructor(db: Database) {
    this.#prefixRows = db.prepare('SELECT rows FROM prefixes WHERE prefix = ?');
    this.#prefixBits = db.prepare('SELECT bits FROM prefixes WHERE prefix = ?');
    const scan = (column: SubstringColumn): Statement =>
      db.prepare(
        `SELECT json_group_array(n) AS rows FROM replays INDEXED BY replays_${column} WHERE ${column} LIKE ? ESCAPE '\\'`,
      );
    this.#substring = { device: scan('device'), session: scan('session') };
    db.function(IN_ROWS, { deterministic: true }, (key, n) => this.has(String(key), Number(n)));
  }

  /** The rows recorded for the broad prefix `word`; undefined when it is not one. */
  prefixRows(word: string): number | undefined {
    const rows = this.#prefixRows.get(word)?.['rows'];
    return rows === undefined ? undefined : Number(rows);
  }

  /**
   * Makes the sets of `keys` that are not kept. Of the others, a substring's is let go (it is made again for the next
   * page that needs it, so that a page costs the same each time it is asked), and the oldest prefixes' past `KEPT`.
   */
  ensure(keys: readonly string[]): void {
    for (const key of keys) if (!this.#sets.has(key)) this.#sets.set(key, this.#make(key));
    for (const key of this.#sets.keys()) {
      if (keys.includes(key)) continue;
      if (!key.startsWith('prefix:') || this.#sets.size > Math.max(KEPT, keys.length)) this.#sets.delete(key);
    }
  }

  /** 1 when row `n` is in the set `key` (made by `ensure`), else 0. */
  has(key: string, n: number): number {
    const bits = this.#sets.get(key);
    if (bits === undefined) throw new CatalogueError('CATALOGUE_QUERY', `the row set ${key} was not made`);
    return ((bits[n >> 3] ?? 0) >> (n & 7)) & 1;
  }

  /** The row numbers in every one of the sets `keys` (made by `ensure`), in order, up to `limit`. */
  rows(keys: readonly string[], limit: number): number[] {
    const maps = keys.map((key) => this.#sets.get(key)!);
    const length = Math.min(...maps.map((bits) => bits.length));
    const found: number[] = [];
    for (let i = 0; i < length && found.length < limit; i++) {
      let byte = 0xff;
      for (const bits of maps) byte &= bits[i]!;
      for (let bit = 0; byte !== 0; bit++, byte >>= 1) if ((byte & 1) !== 0) found.push(i * 8 + bit);
    }
    return found.slice(0, limit);
  }

  #make(key: string): Uint8Array {
    const at = key.indexOf(':');
    const kind = key.slice(0, at);
    const text = key.slice(at + 1);
    if (kind === 'prefix') {
      const bits = this.#prefixBits.get(text)?.['bits'];
      if (bits instanceof Uint8Array) return bits;
    } else if (kind === 'device' || kind === 'session') {
      const rows = JSON.parse(String(this.#substring[kind].get(likeAny(text))!['rows'])) as number[];
      return bitmapOf(rows);
    }
    throw new CatalogueError('CATALOGUE_QUERY', `the catalogue has no row set ${key}`);
  }
}

/** The bitmap of row numbers `rows`. */
function bitmapOf(rows: readonly number[]): Uint8Array {
  let last = 0;
  for (const n of rows) if (n > last) last = n;
  return addRows(new Uint8Array((last >> 3) + 1), rows);
}

/** Sets the bits of row numbers `rows` in `bits` (each below `bits.length * 8`); returns `bits`. */
export function addRows(bits: Uint8Array, rows: readonly number[]): Uint8Array {
  for (const n of rows) bits[n >> 3]! |= 1 << (n & 7);
  return bits;
}
