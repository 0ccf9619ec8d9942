/** What the progress line shows: a snapshot of a run. */
export interface ProgressState {
  elapsedMs: number;
  /** Replays with an outcome so far. */
  done: number;
  /** Replays listed so far. */
  listed: number;
  /** Whether the listing has ended (else the total is provisional, marked `+`). */
  listingComplete: boolean;
  events: number;
  bytes: number;
}

/** Replays that must be done before an ETA is shown: a rate from fewer is noise. */
export const ETA_MIN_DONE = 3;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

/** `n` and the noun in the number it takes: `1 replay`, `2 replays` (`plural` when not the noun + s). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '--';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = Math.floor(s % 60);
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`;
}

/**
 * The progress line for `state`, at most `columns - 1` characters (the last column is left free: writing into it
 * makes some terminals wrap). Parts are dropped from the least useful up when the terminal is narrow; the bar
 * takes the room left (at most 30 columns) and goes only when the three most useful parts alone leave it none.
 */
export function progressLine(state: ProgressState, columns: number): string {
  const max = Math.max(0, Math.floor(columns) - 1);
  const secs = state.elapsedMs / 1000;
  const total = state.listingComplete ? `${state.done}/${state.listed}` : `${state.done}/${state.listed}+`;
  const listing = state.listingComplete ? 'listed' : 'listing…';
  const rate = secs > 0 ? state.done / secs : 0;
  const remaining = state.listed - state.done;
  const eta = state.listingComplete && state.done >= ETA_MIN_DONE && rate > 0 ? formatSeconds(remaining / rate) : null;
  // In order of importance; the first ones are kept longest.
  const parts: { text: string; rank: number }[] = [
    { text: formatSeconds(secs), rank: 0 },
    { text: `${total} replays`, rank: 1 },
    { text: listing, rank: 3 },
    { text: eta !== null ? `ETA ${eta}` : 'ETA --', rank: 2 },
    { text: formatBytes(state.bytes), rank: 4 },
    { text: `${state.events} events`, rank: 6 },
    { text: `${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} replays/s`, rank: 5 },
  ];
  const frac = state.listed > 0 ? Math.min(1, state.done / state.listed) : 0;
  let kept = parts;
  for (;;) {
    const text = kept.map((p) => p.text).join('  ');
    const room = max - text.length - 2;
    if (room >= 10) {
      const width = Math.min(30, room - 2);
      const filled = Math.round(frac * width);
      return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]  ${text}`;
    }
    // The bar is worth more than the least useful parts; with three parts left, they come first.
    if (text.length <= max && kept.length <= 3) return text;
    if (kept.length === 1) return text.slice(0, max);
    const drop = Math.max(...kept.map((p) => p.rank));
    kept = kept.filter((p) => p.rank !== drop);
  }
}

/** The stream the progress line is drawn on (a terminal: `process.stderr`). */
export interface ProgressStream {
  columns?: number;
  write(chunk: string): boolean;
  on(event: 'resize', listener: () => void): unknown;
  off(event: 'resize', listener: () => void): unknown;
}

/** Redraws per second. */
export const PROGRESS_HZ = 5;

/**
 * Owns the progress line on a terminal: draws it on a timer and on resize, takes it away before any other line is
 * written (`clear`), and removes it for good at the end (`stop`), so that nothing of it is left behind. The line
 * never holds a newline and is never wider than the terminal less one column, so `\r` + erase-line removes it whole.
 */
export class ProgressRenderer {
  private shown = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly onResize = (): void => {
    this.clear();
    this.draw();
  };

  constructor(
    private readonly stream: ProgressStream,
    private readonly state: () => ProgressState,
  ) {}

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.draw(), 1000 / PROGRESS_HZ);
    this.timer.unref();
    this.stream.on('resize', this.onResize);
    this.draw();
  }

  draw(): void {
    if (!this.timer) return;
    const line = progressLine(this.state(), this.stream.columns ?? 80);
    this.stream.write(`\r\x1b[2K${line}`);
    this.shown = true;
  }

  /** Takes the line away (the cursor is left at the start of the empty line). */
  clear(): void {
    if (!this.shown) return;
    this.stream.write('\r\x1b[2K');
    this.shown = false;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.stream.off('resize', this.onResize);
    this.clear();
  }
}
