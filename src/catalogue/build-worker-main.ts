/**
 * The catalogue build's thread (started by build.ts): it receives the manifest's bytes file by file, splits and
 * parses the lines (`ManifestLines`: the rules `read` has), inserts the rows, then makes the indexes, the meta and the
 * planner's statistics, and closes the file. It is not loaded from this file: the build (scripts/build-inlined.mjs)
 * bundles it with the project modules it imports into CommonJS in build-worker-source.ts, which the thread is started
 * from with `eval`, so that it runs the same from the sources (tests), from dist and from a bundled application.
 *
 * Messages, in order: `{ file, gzip }` starts a file (lines numbered from 1 again; an unfinished last line of the
 * previous one is dropped, never joined to the next; `gzip`: an S3 snapshot, inflated here); `{ bytes, length }` are
 * the next bytes of the file (answered `{ ack }` once read: the main thread keeps a few MiB in flight); `{ end: true }`
 * ends the manifest (answered `{ done }`). Any failure answers `{ error }` (the error's class, code and context, made again on the main thread);
 * nothing more is done.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { SinkError } from '../../sinks/errors.js';
import { gunzipManifest, ManifestLines } from '../../sinks/manifest-lines.js';
import { recordedMs } from '../../sinks/manifest-merge.js';
import type { ManifestEntry } from '../../sinks/sink.js';
import { type Database, openDatabase, type SqlValue, type Statement } from './database.js';
import { CatalogueError } from './errors.js';
import { recordBroadPrefixes } from './prefixes.js';
import { isUserTombstone, rowValues, storedId } from './rows.js';
import { dropSqliteWarning } from './sqlite-warning.js';
import { COLUMNS, CREATE_INDEXES, CREATE_TABLES, SCHEMA_VERSION } from './schema.js';

export interface BuildWorkerData {
  /** The file to build (the temporary one: the main thread renames it into place). */
  temp: string;
  /** The archive's target (what a manifest error names). */
  target: string;
  /** Which entry of a replay is its state (`ManifestBytes.newest`). */
  newest: 'last' | 'recorded';
  /** The manifest stamp, for the meta. */
  stamp: string | undefined;
}

export type BuildRequest = { file: string; gzip: boolean } | { bytes: ArrayBuffer; length: number } | { end: true };

/** A failure of the thread, as it crosses to the main thread. */
export interface ThreadError {
  kind: 'sink' | 'catalogue' | 'other';
  code: string | undefined;
  message: string;
  index: number | undefined;
  target: string | undefined;
  key: string | undefined;
}

export type BuildReply = { ack: number } | { done: { rows: number; entries: number } } | { error: ThreadError };

/** Rows per INSERT statement (a few thousand bound values: the per-call cost is paid once per batch). */
const BATCH_ROWS = 200;
/**
 * The page cache while building, in KiB (negative: SQLite's unit for a size rather than a page count). Small: the
 * table is written in row-number order, the indexes made after it, and the id index (written in random order) far
 * outgrows any cache worth its memory; at 1,000,000 rows a 32 MiB cache saved no measurable CPU and cost 61 MB
 * of the build's peak RSS (264 MB, against 203 MB with 4 MiB).
 */
const BUILD_CACHE_KIB = 4 * 1024;

function upsert(rows: number): string {
  const one = `(${COLUMNS.map(() => '?').join(',')})`;
  const update = COLUMNS.filter((c) => c !== 'id')
    .map((c) => `${c}=excluded.${c}`)
    .join(',');
  return `INSERT INTO replays(${COLUMNS.join(',')}) VALUES ${Array(rows).fill(one).join(',')}
    ON CONFLICT(id) DO UPDATE SET ${update}`;
}

/**
 * Of a batch's entries, those that are their replay's newest so far by `recorded_at` (a later one among equal times),
 * by their place in the batch: kept in a temporary table of each replay's newest time, which answers the entries
 * that changed it.
 */
function newestOf(rows: number): string {
  return `INSERT INTO temp.newest(id, ms, seq) VALUES ${Array(rows).fill('(?,?,?)').join(',')}
    ON CONFLICT(id) DO UPDATE SET ms = excluded.ms, seq = excluded.seq WHERE excluded.ms >= newest.ms
    RETURNING seq`;
}

/** The rows of the entries, inserted a batch at a time; a replay's state replaces what it had. */
class Rows {
  entries = 0;
  #batch: ManifestEntry[] = [];
  readonly #statements = new Map<string, Statement>();

  constructor(
    private readonly db: Database,
    private readonly newest: 'last' | 'recorded',
  ) {
    if (newest === 'recorded')
      db.exec('CREATE TEMP TABLE newest(id TEXT PRIMARY KEY, ms REAL NOT NULL, seq INTEGER NOT NULL) WITHOUT ROWID');
  }

  #statement(sql: (rows: number) => string, rows: number): Statement {
    const key = `${sql === upsert ? 'upsert' : 'newest'} ${rows}`;
    let statement = this.#statements.get(key);
    if (statement === undefined) {
      statement = this.db.prepare(sql(rows));
      // Kept: the full batch's, and the last one's (once).
      if (rows === BATCH_ROWS) this.#statements.set(key, statement);
    }
    return statement;
  }

  add(entry: ManifestEntry): void {
    this.entries++;
    if (typeof entry.replay_id !== 'string' || isUserTombstone(entry)) return;
    this.#batch.push(entry);
    if (this.#batch.length === BATCH_ROWS) this.flush();
  }

  flush(): void {
    let batch = this.#batch;
    this.#batch = [];
    if (batch.length === 0) return;
    if (this.newest === 'recorded') {
      const keys: SqlValue[] = [];
      for (let i = 0; i < batch.length; i++) {
        keys.push(storedId(batch[i]!.replay_id), Math.max(recordedMs(batch[i]!), -Number.MAX_VALUE), i);
      }
      const won = new Set(
        this.#statement(newestOf, batch.length)
          .all(...keys)
          .map((r) => Number(r['seq'])),
      );
      batch = batch.filter((_, i) => won.has(i));
      if (batch.length === 0) return;
    }
    const values: SqlValue[] = [];
    for (const entry of batch) for (const v of rowValues(entry)) values.push(v);
    this.#statement(upsert, batch.length).run(...values);
  }
}

function setMeta(db: Database, values: Record<string, string>): void {
  const put = db.prepare('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)');
  for (const [key, value] of Object.entries(values)) put.run(key, value);
}

function threadError(err: unknown): ThreadError {
  const e = err as { code?: unknown; index?: unknown; target?: unknown; key?: unknown; message?: unknown } | undefined;
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  return {
    kind: err instanceof SinkError ? 'sink' : err instanceof CatalogueError ? 'catalogue' : 'other',
    code: str(e?.code),
    message: str(e?.message) ?? String(err),
    index: typeof e?.index === 'number' ? e.index : undefined,
    target: str(e?.target),
    key: str(e?.key),
  };
}

/** The port's messages, in order, as they are asked for. */
class Inbox {
  readonly #queue: BuildRequest[] = [];
  #wake: (() => void) | undefined;

  constructor(port: MessagePort) {
    port.on('message', (m: BuildRequest) => {
      this.#queue.push(m);
      this.#wake?.();
    });
  }

  async next(): Promise<BuildRequest> {
    while (this.#queue.length === 0) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
    return this.#queue.shift()!;
  }
}

function finish(db: Database, rows: Rows, stamp: string | undefined, recorded: boolean): number {
  rows.flush();
  db.exec('COMMIT');
  if (recorded) db.exec('DROP TABLE temp.newest');
  db.exec(CREATE_INDEXES);
  const count = Number((db.prepare('SELECT count(*) AS c FROM replays').get() as { c: number }).c);
  recordBroadPrefixes(db, count);
  setMeta(db, {
    schema: SCHEMA_VERSION,
    rows: String(count),
    built_at: new Date().toISOString(),
    ...(stamp === undefined ? {} : { stamp }),
  });
  // Statistics for the query planner (which index serves a filter with a sort), sampled: fast at any size.
  db.exec('PRAGMA analysis_limit=1000; ANALYZE;');
  return count;
}

async function build(port: MessagePort, data: BuildWorkerData, db: Database): Promise<void> {
  const inbox = new Inbox(port);
  db.exec(`PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-${BUILD_CACHE_KIB};`);
  db.exec(CREATE_TABLES);
  db.exec('BEGIN');
  const rows = new Rows(db, data.newest);
  let m = await inbox.next();
  while ('file' in m) {
    const file = m;
    let after: BuildRequest | undefined;
    /** The file's pieces, each answered as it is taken (the main thread sends more while this one is read). */
    const pieces = async function* (): AsyncIterable<Uint8Array> {
      for (;;) {
        const piece = await inbox.next();
        if (!('bytes' in piece)) {
          after = piece;
          return;
        }
        port.postMessage({ ack: piece.length } satisfies BuildReply);
        yield new Uint8Array(piece.bytes, 0, piece.length);
      }
    };
    const lines = new ManifestLines(data.target);
    const bytes = file.gzip ? gunzipManifest(pieces(), file.file, data.target) : pieces();
    for await (const chunk of bytes) for (const entry of lines.push(chunk)) rows.add(entry);
    // A gzip stream may end before its pieces do (bytes after its end): they are skipped to the next message.
    while (after === undefined) {
      const rest = await inbox.next();
      if ('bytes' in rest) port.postMessage({ ack: rest.length } satisfies BuildReply);
      else after = rest;
    }
    m = after;
  }
  if (!('end' in m)) throw new CatalogueError('CATALOGUE_IO', 'the manifest ended without its end');
  const count = finish(db, rows, data.stamp, data.newest === 'recorded');
  db.close();
  port.postMessage({ done: { rows: count, entries: rows.entries } } satisfies BuildReply);
}

function run(port: MessagePort, data: BuildWorkerData): void {
  let db: Database | undefined;
  const fail = (err: unknown): void => {
    try {
      db?.close();
    } catch {
      // already closed
    }
    port.postMessage({ error: threadError(err) } satisfies BuildReply);
  };
  try {
    db = openDatabase(data.temp);
  } catch (err) {
    fail(err);
    return;
  }
  build(port, data, db).catch(fail);
}

// Run only as the worker (imported on the main thread, it does nothing).
if (parentPort !== null) {
  dropSqliteWarning();
  run(parentPort, workerData as BuildWorkerData);
}
