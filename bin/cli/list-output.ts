import { escapeControls } from './reporter.js';

/** The columns of `list` on a terminal: id, start, duration, user. */
const COLUMNS = [
  { title: 'REPLAY ID', width: 50 },
  { title: 'START (UTC)', width: 20 },
  { title: 'DURATION', width: 9 },
  { title: 'USER', width: 0 },
] as const;

function durationOf(start: unknown, end: unknown): string {
  const a = typeof start === 'string' ? Date.parse(start) : NaN;
  const b = typeof end === 'string' ? Date.parse(end) : NaN;
  if (!Number.isFinite(a) || !Number.isFinite(b) || b < a) return '-';
  const s = Math.round((b - a) / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m${String(sec).padStart(2, '0')}s`;
}

function startOf(start: unknown): string {
  if (typeof start !== 'string') return '-';
  const t = Date.parse(start);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 19).replace('T', ' ') : escapeControls(start);
}

function row(cells: string[]): string {
  return cells
    .map((c, i) => {
      const w = COLUMNS[i]!.width;
      return w > 0 ? (c.length >= w ? c : c.padEnd(w)) : c;
    })
    .join(' ')
    .trimEnd();
}

/**
 * Writes one `list` record: a JSON line, or on a terminal (`table`) a row of a readable table (a header before the
 * first). Text from the API has its control characters escaped in the table. Returns `write`'s answer (false: wait
 * for `drain`).
 */
export function printListRecord(out: NodeJS.WritableStream, record: Record<string, unknown>, how: { table: boolean; first: boolean }): boolean {
  if (!how.table) return out.write(JSON.stringify(record) + '\n');
  const text = (v: unknown): string => (v === undefined || v === null || v === '' ? '-' : escapeControls(String(v)));
  const line = row([text(record.replay_id), startOf(record.start_time), durationOf(record.start_time, record.end_time), text(record.platform_id)]);
  return out.write((how.first ? row(COLUMNS.map((c) => c.title)) + '\n' : '') + line + '\n');
}
