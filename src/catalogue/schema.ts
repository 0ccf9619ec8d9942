/**
 * The catalogue's tables: one row per replay (the manifest's last entry for it: what it knows, and the facts recorded
 * at export), an index for each filter and each sortable column, and a full-text index (FTS5) of ids, users, page
 * URLs and error messages, and the rows of the search's broad prefixes (prefixes.ts). `meta` holds the schema
 * version, the manifest stamp the rows were read at and their count.
 */

/** Bumped when the tables change: a catalogue of another version is rebuilt. */
export const SCHEMA_VERSION = '5';

/** The columns of `replays` in insert order (`n`, the row number, is given by SQLite). */
export const COLUMNS = [
  'id',
  'device',
  'session',
  'user',
  'status',
  'start',
  'duration',
  'events',
  'bytes',
  'pages',
  'urls',
  'first_url',
  'clicks',
  'rage',
  'dead',
  'errors',
  'first_error',
  'first_error_ms',
  'requests',
  'failed',
  'active',
  'width',
  'height',
  'checks',
  'stored',
  'assets',
  'flags',
] as const;

export type Column = (typeof COLUMNS)[number];

/** The columns the index sorts by (each has an index of its own, read both ways). */
export const SORTABLE = [
  'start',
  'duration',
  'events',
  'bytes',
  'pages',
  'clicks',
  'rage',
  'dead',
  'errors',
  'failed',
  'active',
  'id',
  'user',
  'status',
] as const satisfies readonly Column[];

export type SortColumn = (typeof SORTABLE)[number];

export const CREATE_TABLES = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE replays (
  n INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  device TEXT NOT NULL,
  session TEXT NOT NULL,
  user TEXT,
  status TEXT NOT NULL,
  start INTEGER,
  duration INTEGER,
  events INTEGER,
  bytes INTEGER,
  pages INTEGER,
  urls TEXT,
  first_url TEXT,
  clicks INTEGER,
  rage INTEGER,
  dead INTEGER,
  errors INTEGER NOT NULL DEFAULT 0,
  first_error TEXT,
  first_error_ms INTEGER,
  requests INTEGER,
  failed INTEGER,
  active INTEGER,
  width INTEGER,
  height INTEGER,
  checks TEXT,
  stored TEXT,
  assets INTEGER NOT NULL DEFAULT 0,
  flags INTEGER NOT NULL DEFAULT 0
);
CREATE VIRTUAL TABLE search USING fts5(who, urls, messages, content='', detail='none', tokenize='unicode61');
CREATE TABLE prefixes (prefix TEXT PRIMARY KEY, rows INTEGER NOT NULL, bits BLOB);
`;

/**
 * The bits of `flags`: replays with console errors, rage clicks, dead clicks, failed requests. A column of its own,
 * not one SQLite generates: SQLite reads the table for a generated column even when an index holds it.
 */
export const FLAGS = Object.freeze({ errors: 1, rage: 2, dead: 4, failed: 8 });

/** The name of the index on a sortable column (`id`'s is its UNIQUE constraint's, named by SQLite). */
export function indexOf(column: Exclude<SortColumn, 'id'>): string {
  return `replays_${column}`;
}

/** `id`'s index with the flags (SQLite walks the UNIQUE one by itself: it sorts the same, without them). */
export const ID_FLAGS_INDEX = 'replays_id_flags';

/**
 * Made once the rows are in (faster than keeping them up to date row by row). Each sortable column's index holds the
 * flags beside it: a walk of the index for a page of replays with errors (or rage, dead clicks, failed requests)
 * tests each row in the index and reads the table for the page's rows alone (at 1,000,000 replays, `errors` by
 * duration, page 150: 36 ms of CPU against 280–370).
 * `device` and `session` have an index each though no page walks them: a substring of either is found by scanning its
 * index, a tenth of the table's size (at 1,000,000 replays, 60 MB against 490; `device=00` by duration, page 150,
 * which gathers up to 86,603 matches: ~600 → ~450 ms of CPU on a loaded machine).
 */
export const CREATE_INDEXES = `${SORTABLE.filter((c) => c !== 'id')
  .map((c) => `CREATE INDEX ${indexOf(c)} ON replays(${c}, n, flags);`)
  .join('\n')}
CREATE INDEX ${ID_FLAGS_INDEX} ON replays(id, n, flags);
CREATE INDEX replays_device ON replays(device);
CREATE INDEX replays_session ON replays(session);
INSERT INTO search(rowid, who, urls, messages)
  SELECT n, device || ' ' || session || ' ' || coalesce(user, ''), coalesce(urls, ''), coalesce(first_error, '') FROM replays;
INSERT INTO search(search) VALUES ('optimize');
`;
