/**
 * `find`'s output: one JSON object a line (piped), one id a line (`--format ids`, or NUL-terminated with `--null`), or
 * a table (a terminal).
 */
import type { CatalogueRow } from '../../src/archive.js';
import { escapeControls, jsonLine } from './reporter.js';

export type FindFormat = 'table' | 'ndjson' | 'ids';

/** What ends each id of `--format ids`: a line break, or NUL (`--null`, for `xargs -0`). */
export type IdEnd = '\n' | '\0';

/** What some reader of lines takes for a line break: LF, VT, FF, CR, NEL, U+2028, U+2029. */
const LINE_BREAK = /[\n\v\f\r\u0085\u2028\u2029]/;
/** The rest of what cannot stand in a line as it is: the other C0 controls, DEL, C1. */
const CONTROL = /\p{Cc}/u;

/** What in `id` keeps it from being written as one record ending in `end`; undefined when nothing does. */
function flawOf(id: string, end: IdEnd): string | undefined {
  if (id.includes('\0')) return 'holds a NUL';
  if (end === '\0') return undefined;
  if (LINE_BREAK.test(id)) return 'holds a line break';
  return CONTROL.test(id) ? 'holds a control character' : undefined;
}

/**
 * Why `id` is not written by `--format ids` ending in `end` (ids come from the API: one holding a line break would
 * read as two ids downstream), as `find` says it, naming the id JSON-escaped; undefined when it is written.
 */
export function idRefusal(id: string, end: IdEnd): string | undefined {
  const flaw = flawOf(id, end);
  if (flaw === undefined) return undefined;
  const named = jsonLine(id);
  const hint = flaw === 'holds a NUL' ? '' : ' (use --null)';
  return `replay id ${named} ${flaw}: not written${hint}`;
}

/** A row as `find` prints it in NDJSON: the manifest's names, what `export`, `video` and `forget` take. */
function findRecord(r: CatalogueRow): Record<string, unknown> {
  return {
    replay_id: r.id,
    platform_id: r.user ?? null,
    status: r.status,
    start_time: r.start === undefined ? null : new Date(r.start).toISOString(),
    duration_ms: r.duration ?? null,
    active_ms: r.active ?? null,
    events: r.events ?? null,
    bytes: r.bytes ?? null,
    pages: r.pages ?? null,
    urls: r.urls,
    clicks: r.clicks ?? null,
    rage_clicks: r.rageClicks ?? null,
    dead_clicks: r.deadClicks ?? null,
    errors: r.errors,
    first_error: r.firstError ?? null,
    first_error_ms: r.firstErrorMs ?? null,
    failed_requests: r.failedRequests ?? null,
    key: r.stored?.key ?? null,
  };
}

/** A cell of `width` characters: one line (its control characters as escapes, `\n`), cut with `…` when longer. */
function cut(cell: string, width: number): string {
  const text = escapeControls(cell);
  return text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

const HEAD = ['start', 'duration', 'pages', 'clicks', 'rage', 'dead', 'errors', 'replay', 'first page'];

function seconds(ms: number | undefined): string {
  return ms === undefined ? '' : `${Math.round(ms / 1000)}s`;
}

/** One table line of a row (or the heading, for undefined); a terminal gets it through `DataOutput`, escaped. */
export function tableLine(r: CatalogueRow | undefined): string {
  const cells =
    r === undefined
      ? HEAD
      : [
          r.start === undefined ? '' : new Date(r.start).toISOString().slice(0, 19).replace('T', ' '),
          seconds(r.duration),
          String(r.pages ?? ''),
          String(r.clicks ?? ''),
          String(r.rageClicks ?? ''),
          String(r.deadClicks ?? ''),
          String(r.errors || ''),
          r.id,
          r.urls[0] ?? '',
        ];
  const widths = [19, 8, 5, 6, 4, 4, 6, 50, 60];
  return cells
    .map((c, i) => cut(c, widths[i]!))
    .join(' ')
    .trimEnd();
}

/** The text `find` prints for a row in `format` (an id ending in `end`; `idRefusal` says which ids are not). */
export function formatRow(r: CatalogueRow, format: FindFormat, end: IdEnd = '\n'): string {
  if (format === 'ids') return `${r.id}${end}`;
  if (format === 'ndjson') return `${JSON.stringify(findRecord(r))}\n`;
  return `${tableLine(r)}\n`;
}
