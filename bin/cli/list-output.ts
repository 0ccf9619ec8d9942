import { escapeControls } from './reporter.js';
import { dataText } from './terminal-output.js';

/** The fixed columns of `list` on a terminal after the id (as wide as the first id): start, duration; then the user. */
const START = { title: 'START (UTC)', width: 16 };
const DURATION = { title: 'DURATION', width: 8 };

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

/** The start to the minute (`2026-11-27 09:02`): the seconds would cost the user column its room on 80 columns. */
function startOf(start: unknown): string {
  if (typeof start !== 'string') return '-';
  const t = Date.parse(start);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 16).replace('T', ' ') : escapeControls(start);
}

/**
 * `list` on a terminal: a readable table that fits the terminal's width (`columns`, 80 when unknown). Its layout is
 * set by the first row: the id column as wide as the first id (ids are never cut: they are what a user copies), then
 * the start to the minute, the duration when there is room for it beside the first user (on 80 columns beside a
 * 50-character id there is not: it is the column a user can do without), and the user, cut with `…` when a later
 * one has less room. Text from the API has its control characters escaped.
 */
export class ListTable {
  private layout: { idWidth: number; duration: boolean } | undefined;

  constructor(private readonly columns: number) {}

  /** The row of `record`, after the header for the first one. */
  rows(record: Record<string, unknown>): string {
    const text = (v: unknown): string => (v === undefined || v === null || v === '' ? '-' : escapeControls(String(v)));
    const cells = [
      text(record.replay_id),
      startOf(record.start_time),
      durationOf(record.start_time, record.end_time),
      text(record.platform_id),
    ] as const;
    const first = this.layout === undefined;
    if (this.layout === undefined) {
      const idWidth = Math.max(cells[0].length, 'REPLAY ID'.length);
      const needed = idWidth + 1 + START.width + 1 + DURATION.width + 1 + Math.max(cells[3].length, 'USER'.length);
      this.layout = { idWidth, duration: needed <= this.columns };
    }
    const { idWidth, duration } = this.layout;
    const row = (id: string, start: string, length: string, user: string): string => {
      const fixed = [
        id.padEnd(idWidth),
        start.padEnd(START.width),
        ...(duration ? [length.padEnd(DURATION.width)] : []),
      ].join(' ');
      const room = Math.max(1, this.columns - fixed.length - 1);
      return `${fixed} ${user.length > room ? `${user.slice(0, room - 1)}…` : user}`.trimEnd();
    };
    const line = row(...cells);
    return (first ? row('REPLAY ID', START.title, DURATION.title, 'USER') + '\n' : '') + line + '\n';
  }
}

/**
 * Writes one `list` record: a JSON line, or on a terminal a row of `table`. Returns `write`'s answer (false: wait for
 * `drain`).
 */
export function printListRecord(
  out: NodeJS.WritableStream & { isTTY?: boolean | undefined },
  record: Record<string, unknown>,
  table: ListTable | undefined,
): boolean {
  return out.write(table === undefined ? dataText(out, 'json', JSON.stringify(record) + '\n') : table.rows(record));
}
