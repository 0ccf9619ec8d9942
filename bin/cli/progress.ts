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

interface Part {
  text: string;
  /** 0 is the most useful: kept longest. */
  rank: number;
}

/**
 * What a progress report says, most useful first. While the listing goes on, the total is not known (in the default
 * order the listing runs only a few replays ahead of the exports): a count and a rate, no ETA. Once it has ended, the
 * total and an ETA from the rate.
 */
function progressParts(state: ProgressState): Part[] {
  const secs = state.elapsedMs / 1000;
  const rate = secs > 0 ? state.done / secs : 0;
  const rateText = `${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} replays/s`;
  if (!state.listingComplete) {
    return [
      { text: formatSeconds(secs), rank: 0 },
      { text: `${state.done} done, ${state.listed} listed`, rank: 1 },
      { text: 'listing…', rank: 3 },
      { text: rateText, rank: 2 },
      { text: formatBytes(state.bytes), rank: 4 },
      { text: `${state.events} events`, rank: 5 },
    ];
  }
  const remaining = state.listed - state.done;
  const eta = state.done >= ETA_MIN_DONE && rate > 0 ? formatSeconds(remaining / rate) : '--';
  return [
    { text: formatSeconds(secs), rank: 0 },
    { text: `${state.done}/${state.listed} replays`, rank: 1 },
    { text: 'listed', rank: 3 },
    { text: `ETA ${eta}`, rank: 2 },
    { text: formatBytes(state.bytes), rank: 4 },
    { text: `${state.events} events`, rank: 6 },
    { text: rateText, rank: 5 },
  ];
}

/** The periodic status line of a run whose stderr is not a terminal (cron logs): every part, no bar. */
export function statusLine(state: ProgressState): string {
  return `progress: ${progressParts(state)
    .map((p) => p.text)
    .join(', ')}`;
}

/**
 * The progress line for `state`, at most `columns - 1` characters (the last column is left free: writing into it
 * makes some terminals wrap). A bar only once the listing has ended (before, there is no total to fill it against).
 * Parts are dropped from the least useful up when the terminal is narrow; the bar takes the room left (at most 30
 * columns) and goes only when the three most useful parts alone leave it none.
 */
export function progressLine(state: ProgressState, columns: number): string {
  const max = Math.max(0, Math.floor(columns) - 1);
  const frac = state.listed > 0 ? Math.min(1, state.done / state.listed) : 0;
  let kept = progressParts(state);
  for (;;) {
    const text = kept.map((p) => p.text).join('  ');
    const room = max - text.length - 2;
    if (state.listingComplete && room >= 10) {
      const width = Math.min(30, room - 2);
      const filled = Math.round(frac * width);
      return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]  ${text}`;
    }
    if (text.length <= max && (!state.listingComplete || kept.length <= 3)) return text;
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
