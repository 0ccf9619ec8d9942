/** The archive's index page: a filter form and one page of rows, rendered on the server (the page runs no script). */
import type { IndexFilter, IndexPage, IndexRow } from './archive-index.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function iso(ms: number): string {
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

function duration(ms: number): string {
  if (Number.isNaN(ms) || ms < 0) return '';
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function checks(r: IndexRow): string {
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

/** A URL cut to `n` characters (the cell shows the start; the full URL is its title). */
function clipped(text: string, n: number): string {
  const shown = text.length > n ? `${text.slice(0, n - 1)}…` : text;
  return `<span title="${escapeHtml(text)}">${escapeHtml(shown)}</span>`;
}

function row(r: IndexRow, videos: boolean): string {
  const id = escapeHtml(r.id);
  const link = r.status === 'ok' ? `<a href="${escapeHtml(replayPath(r.id))}">${id}</a>` : id;
  const video = r.stored !== undefined ? `<a href="${escapeHtml(replayPath(r.id))}/video.mp4" download>MP4</a>` : '';
  const cells = [
    link,
    escapeHtml(r.platformId ?? ''),
    escapeHtml(r.user),
    iso(r.start),
    duration(r.durationMs),
    escapeHtml(r.status),
    String(r.events ?? ''),
    r.errors > 0 ? String(r.errors) : '',
    clipped(r.url, 60),
    String(r.bytes ?? ''),
    escapeHtml(checks(r)),
    ...(videos ? [video] : []),
  ];
  return `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
}

/** The column headings; those the index sorts by are links to that order (the filters kept, back to page 1). */
function headings(p: URLSearchParams, videos: boolean): string {
  const sortable: Record<string, string> = { start: 'start', duration: 'duration', events: 'events', errors: 'errors' };
  const current = p.get('sort') || 'start';
  const names = [
    'replay',
    'user',
    'device',
    'start',
    'duration',
    'status',
    'events',
    'errors',
    'first page',
    'bytes',
    'checks',
    ...(videos ? ['video'] : []),
  ];
  return names
    .map((name) => {
      const key = sortable[name];
      if (key === undefined) return `<th>${name}</th>`;
      if (key === current)
        return `<th aria-sort="${key === 'start' ? 'ascending' : 'descending'}">${name} ${key === 'start' ? '↑' : '↓'}</th>`;
      const q = new URLSearchParams(p);
      q.set('sort', key);
      q.delete('page');
      return `<th><a href="/?${escapeHtml(q.toString())}">${name}</a></th>`;
    })
    .join('');
}

export interface IndexQuery {
  /** The raw query parameters, echoed into the form. */
  params: URLSearchParams;
  filter: IndexFilter;
  /** A video column: each replay with stored events gets a download link (the server can render). */
  videos?: boolean;
}

function input(name: string, label: string, params: URLSearchParams, type = 'text'): string {
  return `<label>${label} <input name="${name}" type="${type}" value="${escapeHtml(params.get(name) ?? '')}"></label>`;
}

export function renderIndex(title: string, query: IndexQuery, page: IndexPage): string {
  const p = query.params;
  const videos = query.videos === true;
  const status = p.get('status') ?? '';
  const options = ['', 'ok', 'failed', 'quarantined', 'empty', 'skipped', 'forgotten']
    .map((s) => `<option value="${s}"${s === status ? ' selected' : ''}>${s === '' ? 'any' : s}</option>`)
    .join('');
  const pages = Math.max(1, Math.ceil(page.total / page.pageSize));
  const link = (n: number, text: string): string => {
    const q = new URLSearchParams(p);
    q.set('page', String(n));
    return `<a href="/?${escapeHtml(q.toString())}">${text}</a>`;
  };
  const nav = [
    page.page > 1 ? link(page.page - 1, 'previous') : '',
    `page ${page.page} of ${pages} (${page.total} replays)`,
    page.page < pages ? link(page.page + 1, 'next') : '',
  ]
    .filter((s) => s !== '')
    .join(' · ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>:root{color-scheme:light dark}body{font:14px system-ui,sans-serif;margin:1em}table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #8884;text-align:left;white-space:nowrap}form label{margin-right:1em;white-space:nowrap}#rows{overflow-x:auto}</style>
</head><body>
<h1>${escapeHtml(title)}</h1>
<form method="get" action="/">
${input('user', 'user id', p)}${input('device', 'device', p)}${input('session', 'session', p)}${input('url', 'page URL', p)}
<label><input name="errors" type="checkbox" value="1"${p.get('errors') ? ' checked' : ''}> has errors</label>
<label>status <select name="status">${options}</select></label>
${input('from', 'from', p, 'date')}${input('to', 'to', p, 'date')}
${input('min', 'min s', p, 'number')}${input('max', 'max s', p, 'number')}
${p.get('sort') ? `<input type="hidden" name="sort" value="${escapeHtml(p.get('sort')!)}">` : ''}<button type="submit">filter</button>
</form>
<p id="nav">${nav}</p>
<div id="rows"><table><thead><tr>${headings(p, videos)}</tr></thead>
<tbody>
${page.rows.map((r) => row(r, videos)).join('\n')}
</tbody></table></div>
</body></html>
`;
}
