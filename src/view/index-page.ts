/** The archive's index page: a filter form and one page of rows, rendered on the server (the page runs no script). */
import type { IndexFilter, IndexPage, IndexRow } from './archive-index.js';

export function escapeHtml(text: string): string {
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

export function replayPath(id: string): string {
  return `/replays/${encodeURIComponent(id)}`;
}

function row(r: IndexRow): string {
  const id = escapeHtml(r.id);
  const link = r.status === 'ok' ? `<a href="${escapeHtml(replayPath(r.id))}">${id}</a>` : id;
  const cells = [link, escapeHtml(r.user), iso(r.start), duration(r.durationMs), r.status, String(r.events ?? ''), String(r.bytes ?? ''), escapeHtml(checks(r))];
  return `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
}

export interface IndexQuery {
  /** The raw query parameters, echoed into the form. */
  params: URLSearchParams;
  filter: IndexFilter;
}

function input(name: string, label: string, params: URLSearchParams, type = 'text'): string {
  return `<label>${label} <input name="${name}" type="${type}" value="${escapeHtml(params.get(name) ?? '')}"></label>`;
}

export function renderIndex(title: string, query: IndexQuery, page: IndexPage): string {
  const p = query.params;
  const status = p.get('status') ?? '';
  const options = ['', 'ok', 'failed', 'empty', 'skipped', 'forgotten']
    .map((s) => `<option value="${s}"${s === status ? ' selected' : ''}>${s === '' ? 'any' : s}</option>`)
    .join('');
  const pages = Math.max(1, Math.ceil(page.total / page.pageSize));
  const link = (n: number, text: string): string => {
    const q = new URLSearchParams(p);
    q.set('page', String(n));
    return `<a href="/?${escapeHtml(q.toString())}">${text}</a>`;
  };
  const nav = [page.page > 1 ? link(page.page - 1, 'previous') : '', `page ${page.page} of ${pages} (${page.total} replays)`, page.page < pages ? link(page.page + 1, 'next') : '']
    .filter((s) => s !== '')
    .join(' · ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:14px system-ui,sans-serif;margin:1em}table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}form label{margin-right:1em}</style>
</head><body>
<h1>${escapeHtml(title)}</h1>
<form method="get" action="/">
${input('user', 'user', p)}
<label>status <select name="status">${options}</select></label>
${input('from', 'from', p, 'date')}${input('to', 'to', p, 'date')}
${input('min', 'min s', p, 'number')}${input('max', 'max s', p, 'number')}
<button type="submit">filter</button>
</form>
<p id="nav">${nav}</p>
<table><thead><tr><th>replay</th><th>user/device</th><th>start</th><th>duration</th><th>status</th><th>events</th><th>bytes</th><th>checks</th></tr></thead>
<tbody>
${page.rows.map(row).join('\n')}
</tbody></table>
</body></html>
`;
}
