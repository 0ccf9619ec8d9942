/**
 * The archive's index page: a filter form and one page of rows, rendered on the server (the page runs no script). On
 * a wide screen a table whose headings sort (again: the other way); on a narrow one (a phone, 390 px) each replay is a
 * block of labelled lines that fits the screen, and the form's `sort` choice sorts.
 */
import type { CataloguePage, CatalogueRow } from '../catalogue/index.js';
import { parseSort } from '../catalogue/index.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function iso(ms: number | undefined): string {
  return ms === undefined ? '' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

function duration(ms: number | undefined): string {
  if (ms === undefined || ms < 0) return '';
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function checks(r: CatalogueRow): string {
  const c = r.checks;
  if (c === undefined) return '';
  const notes: string[] = [];
  if (c.has_meta !== true) notes.push('no meta');
  if (c.has_full_snapshot !== true) notes.push('no full snapshot');
  if (c.timestamps_backwards === true) notes.push('time goes back');
  if (typeof c.max_gap_ms === 'number') notes.push(`max gap ${Math.round(c.max_gap_ms / 1000)} s`);
  return notes.join(', ');
}

function replayPath(id: string): string {
  return `/replays/${encodeURIComponent(id)}`;
}

/** Text cut to `n` characters (the cell shows the start; the whole text is its title). */
function clipped(text: string, n: number): string {
  const shown = text.length > n ? `${text.slice(0, n - 1)}…` : text;
  return `<span title="${escapeHtml(text)}">${escapeHtml(shown)}</span>`;
}

const num = (n: number | undefined): string => (n === undefined ? '' : String(n));
const some = (n: number | undefined): string => (n === undefined || n === 0 ? '' : String(n));

/** The errors cell: the count, a link that opens the replay at its first error (`?t=` seconds), and its message. */
function errorsCell(r: CatalogueRow): string {
  if (r.errors === 0) return '';
  const at = r.status === 'ok' && r.firstErrorMs !== undefined ? Math.floor(r.firstErrorMs / 1000) : undefined;
  const count =
    at === undefined
      ? String(r.errors)
      : `<a href="${escapeHtml(replayPath(r.id))}?t=${at}" title="open at the first error">${r.errors}</a>`;
  return r.firstError === undefined ? count : `${count} ${clipped(r.firstError, 40)}`;
}

function pagesCell(r: CatalogueRow): string {
  const first = r.urls[0];
  if (first === undefined) return '';
  const more = (r.pages ?? r.urls.length) > 1 ? ` (${r.pages ?? r.urls.length} pages)` : '';
  return `${clipped(first, 50)}${more}`;
}

/** The columns: heading, sort key (undefined: not sortable), cell. */
const COLUMNS: ReadonlyArray<readonly [string, string | undefined, (r: CatalogueRow) => string]> = [
  [
    'replay',
    'id',
    (r) => (r.status === 'ok' ? `<a href="${escapeHtml(replayPath(r.id))}">${escapeHtml(r.id)}</a>` : escapeHtml(r.id)),
  ],
  ['user', 'user', (r) => escapeHtml(r.user ?? '')],
  ['start', 'start', (r) => iso(r.start)],
  ['duration', 'duration', (r) => duration(r.duration)],
  ['active', 'active', (r) => duration(r.active)],
  ['status', 'status', (r) => escapeHtml(r.status)],
  ['pages', 'pages', pagesCell],
  ['clicks', 'clicks', (r) => num(r.clicks)],
  ['rage', 'rage', (r) => some(r.rageClicks)],
  ['dead', 'dead', (r) => some(r.deadClicks)],
  ['errors', 'errors', errorsCell],
  ['failed requests', 'failed', (r) => some(r.failedRequests)],
  ['events', 'events', (r) => num(r.events)],
  ['bytes', 'bytes', (r) => num(r.bytes)],
  ['checks', undefined, (r) => escapeHtml(checks(r))],
];

function row(r: CatalogueRow, videos: boolean): string {
  const cells = COLUMNS.map(([name, , cell]) => [name, cell(r)] as const);
  if (videos && r.stored !== undefined)
    cells.push(['video', `<a href="${escapeHtml(replayPath(r.id))}/video.mp4" download>MP4</a>`]);
  else if (videos) cells.push(['video', '']);
  return `<tr>${cells.map(([name, c]) => `<td data-l="${name}">${c}</td>`).join('')}</tr>`;
}

/**
 * The column headings; a sortable one links to its order (largest or latest first; the current order's heading to
 * the other way), the filters kept, back to page 1.
 */
function headings(p: URLSearchParams, videos: boolean, sort: string): string {
  const { column, descending } = parseSort(sort);
  const cells = COLUMNS.map(([name, key]) => {
    if (key === undefined) return `<th>${name}</th>`;
    const current = key === column;
    const next = current ? (descending ? key : `-${key}`) : `-${key}`;
    const q = new URLSearchParams(p);
    q.set('sort', next);
    q.delete('page');
    const mark = current ? (descending ? ' ↓' : ' ↑') : '';
    const aria = current ? ` aria-sort="${descending ? 'descending' : 'ascending'}"` : '';
    return `<th${aria}><a href="/?${escapeHtml(q.toString())}">${name}${mark}</a></th>`;
  });
  return cells.join('') + (videos ? '<th>video</th>' : '');
}

export interface IndexQuery {
  /** The raw query parameters, echoed into the form. */
  params: URLSearchParams;
  /** The order shown (`-start`, `duration`, ...). */
  sort: string;
  /** A video column: each replay with stored events gets a download link (the server can render). */
  videos?: boolean;
}

function input(name: string, label: string, params: URLSearchParams, type = 'text'): string {
  return `<label>${label} <input name="${name}" type="${type}" value="${escapeHtml(params.get(name) ?? '')}"></label>`;
}

function check(name: string, label: string, params: URLSearchParams): string {
  return `<label><input name="${name}" type="checkbox" value="1"${params.get(name) ? ' checked' : ''}> ${label}</label>`;
}

function select(
  name: string,
  label: string,
  current: string,
  options: ReadonlyArray<readonly [string, string]>,
): string {
  const opts = options
    .map(([value, text]) => `<option value="${value}"${value === current ? ' selected' : ''}>${text}</option>`)
    .join('');
  return `<label>${label} <select name="${name}">${opts}</select></label>`;
}

function sortOptions(): Array<readonly [string, string]> {
  const out: Array<readonly [string, string]> = [];
  for (const [name, key] of COLUMNS) {
    if (key === undefined) continue;
    out.push([`-${key}`, `${name} ↓`], [key, `${name} ↑`]);
  }
  return out;
}

function form(p: URLSearchParams, sort: string): string {
  const statuses = ['', 'ok', 'failed', 'quarantined', 'empty', 'skipped', 'forgotten'].map(
    (s) => [s, s === '' ? 'any' : s] as const,
  );
  return `<form method="get" action="/">
${input('q', 'search', p, 'search')}${input('url', 'page URL', p)}${input('user', 'user id', p)}
${check('errors', 'errors', p)}${check('rage', 'rage clicks', p)}${check('dead', 'dead clicks', p)}${check('failed', 'failed requests', p)}
${select('status', 'status', p.get('status') ?? '', statuses)}
${input('from', 'from', p, 'date')}${input('to', 'to', p, 'date')}${input('min', 'min s', p, 'number')}${input('max', 'max s', p, 'number')}
${select('sort', 'sort', sort, sortOptions())}<button type="submit">filter</button>
</form>`;
}

const STYLE = `:root{color-scheme:light dark}body{font:14px system-ui,sans-serif;margin:1em}
table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #8884;text-align:left;white-space:nowrap}
th a{color:inherit}form label{margin-right:1em;white-space:nowrap;display:inline-block}#rows{overflow-x:auto}
@media (max-width:700px){body{margin:.5em}h1{font-size:1.1em;overflow-wrap:anywhere}
form label{white-space:normal}input,select{max-width:100%}
table,tbody,tr,td{display:block}thead{display:none}#rows{overflow-x:visible}
tr{border-bottom:1px solid #8886;padding:.4em 0}td{border:0;padding:1px 0;white-space:normal;overflow-wrap:anywhere}
td:empty{display:none}td[data-l]::before{content:attr(data-l) ": ";color:#888}}`;

export function renderIndex(title: string, query: IndexQuery, page: CataloguePage): string {
  const p = query.params;
  const videos = query.videos === true;
  const pages = Math.max(1, Math.ceil(page.total / page.pageSize));
  const link = (n: number, text: string): string => {
    const q = new URLSearchParams(p);
    q.set('page', String(n));
    return `<a href="/?${escapeHtml(q.toString())}">${text}</a>`;
  };
  const of = page.more ? `${pages}+ (${page.total}+ replays)` : `${pages} (${page.total} replays)`;
  const nav = [
    page.page > 1 ? link(page.page - 1, 'previous') : '',
    `page ${page.page} of ${of}`,
    page.page < pages || page.more ? link(page.page + 1, 'next') : '',
  ]
    .filter((s) => s !== '')
    .join(' · ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head><body>
<h1>${escapeHtml(title)}</h1>
${form(p, query.sort)}
<p id="nav">${nav}</p>
<div id="rows"><table><thead><tr>${headings(p, videos, query.sort)}</tr></thead>
<tbody>
${page.rows.map((r) => row(r, videos)).join('\n')}
</tbody></table></div>
</body></html>
`;
}
