import { redactText } from '../../src/http/redact.js';
import type { ArchiveEvent, ArchiveOutcome, ManifestEntry, ReplayNotice } from '../../src/index.js';
import {
  formatBytes,
  formatSeconds,
  ProgressRenderer,
  statusLine,
  type ProgressState,
  type ProgressStream,
} from './progress.js';

export type LogFormat = 'text' | 'json';

/** Where a reporter writes: stderr, or any stream (a terminal has `isTTY`). */
export interface ReporterStream extends ProgressStream {
  isTTY?: boolean | undefined;
}

/** Counts for the end-of-run summary. */
export interface RunTotals extends Pick<ProgressState, 'events' | 'bytes' | 'listed' | 'listingComplete'> {
  byOutcome: Record<ArchiveOutcome, number>;
  /** API requests retried (429, 5xx, network). */
  retries: number;
}

/** What a reporter shows besides errors and the summary. */
export interface ReporterOptions {
  /** Only errors and the summary (no warnings, no per-replay lines, no progress line). */
  quiet?: boolean | undefined;
  /** Draw the progress line when stderr is a terminal (text mode). Default true. */
  progress?: boolean | undefined;
  /** Per-replay lines in text mode: every outcome, or only failures (an archive on a terminal). Default all. */
  replayLines?: 'all' | 'failures' | undefined;
  /** Debug lines (API retries) in text mode. */
  verbose?: boolean | undefined;
  /** Each API retry and its wait as a warning (shown in text mode without `--verbose`): the `api` command's. */
  retriesShown?: boolean | undefined;
  /** A written output's key as shown to the user (a full path, a `file://` link). */
  showKey?: ((key: string) => string) | undefined;
  /**
   * When no progress line is drawn (stderr not a terminal, or JSON logs): a status line (a `status` record) every
   * this many ms while a run goes on, for cron logs. 0 or absent: none.
   */
  statusEveryMs?: number | undefined;
}

/**
 * Characters that must not reach a terminal as they are: controls (C0: a newline would forge a line of its own, ESC
 * starts a control sequence; DEL; C1: U+009B is a CSI of its own), the Unicode line and paragraph separators, and
 * every format character (Cf), which prints nothing or reorders what is shown: zero-width U+200B-U+200F, the Arabic
 * letter mark U+061C, soft hyphen, bidirectional embeddings, overrides and isolates U+202A-U+202E, U+2066-U+2069,
 * U+FEFF, the tag characters.
 */
export const CONTROLS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** `c` for reading: `\x1b` below U+0100, `\u202e`, `\u{e0041}` beyond U+FFFF. */
export function escapeOf(c: string): string {
  const code = c.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A text log line safe to print: every control and format character shown as an escape (`\n`, `\x1b`, `\u200b`). */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : escapeOf(c)));
}

/**
 * One JSON log line. JSON.stringify escapes C0 controls but leaves DEL, C1 controls, the Unicode separators and the
 * format characters as they are; those are written as `\uXXXX` escapes (the same JSON value; a pair for a character
 * beyond U+FFFF).
 */
export function jsonLine(record: unknown): string {
  return JSON.stringify(record).replace(CONTROLS, jsonEscape);
}

/** `c` as a JSON escape (a pair of them beyond U+FFFF). */
export function jsonEscape(c: string): string {
  let out = '';
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** A failure the run went on after, as a log record's `error`: its message and its code when it has one. */
function failureOf(err: unknown): { code?: string | undefined; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | undefined)?.code;
  return { code: typeof code === 'string' ? code : undefined, message };
}

/**
 * Everything the CLI says about a run goes to stderr through here: one line per replay outcome (text or JSON), a
 * progress bar redrawn in place when stderr is a terminal (text mode only), and the summary at the end. Text passed
 * in is scrubbed of the secrets it is given (every string of a JSON record before it is serialised); a text line has
 * its control characters escaped, so that no replay id or message can forge a line or steer the terminal.
 */
export class Reporter {
  readonly totals: RunTotals = {
    byOutcome: {
      ok: 0,
      failed: 0,
      quarantined: 0,
      empty: 0,
      skipped: 0,
      'done-before': 0,
      unchanged: 0,
      not_found: 0,
      taken: 0,
    },
    events: 0,
    bytes: 0,
    listed: 0,
    listingComplete: false,
    retries: 0,
  };
  private readonly started = Date.now();
  private readonly bar: ProgressRenderer | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  /** Whether any event of a run arrived (a run that never started has no progress line and no summary). */
  private began = false;

  constructor(
    private readonly format: LogFormat,
    private readonly secrets: readonly string[],
    private readonly err: ReporterStream = process.stderr,
    private readonly options: ReporterOptions = {},
  ) {
    const tty = format === 'text' && Boolean(err.isTTY);
    if (tty && options.progress !== false && !options.quiet)
      this.bar = new ProgressRenderer(err, () => this.progressState());
  }

  private progressState(): ProgressState {
    const { listed, listingComplete, events, bytes } = this.totals;
    return { elapsedMs: Date.now() - this.started, done: this.done(), listed, listingComplete, events, bytes };
  }

  /** The periodic status of a run with no progress line (see `ReporterOptions.statusEveryMs`). */
  private startStatus(): void {
    const every = this.options.statusEveryMs ?? 0;
    const terminal = this.format === 'text' && this.err.isTTY === true;
    if (terminal || every <= 0 || this.options.quiet || this.options.progress === false) return;
    this.statusTimer = setInterval(() => {
      const s = this.progressState();
      this.log('info', statusLine(s), {
        event: 'status',
        done: s.done,
        listed: s.listed,
        listing_complete: s.listingComplete,
        events: s.events,
        bytes: s.bytes,
        seconds: Math.round(s.elapsedMs / 100) / 10,
      });
    }, every);
    this.statusTimer.unref();
  }

  private stopDisplay(): void {
    this.bar?.stop();
    clearInterval(this.statusTimer);
    this.statusTimer = undefined;
  }

  /** Whether any event of a run was reported. */
  get hasBegun(): boolean {
    return this.began;
  }

  /** `text` with every form of every secret replaced (see `redactText`). */
  scrub(text: string): string {
    return redactText(text, this.secrets);
  }

  /** A JSON log record with every string in it (keys and values, nested too) scrubbed before it is serialised. */
  private scrubRecord(value: unknown): unknown {
    if (typeof value === 'string') return this.scrub(value);
    if (Array.isArray(value)) return value.map((v) => this.scrubRecord(v));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.scrub(k)] = this.scrubRecord(v);
      return out;
    }
    return value;
  }

  private write(line: string): void {
    this.bar?.clear();
    this.err.write(line + '\n');
    this.bar?.draw();
  }

  /** A text line: scrubbed, then its control characters escaped. */
  private writeText(line: string): void {
    this.write(escapeControls(this.scrub(line)));
  }

  log(level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
    if (this.format === 'json') {
      this.write(jsonLine(this.scrubRecord({ time: new Date().toISOString(), level, msg, ...fields })));
      return;
    }
    if (this.options.quiet && level !== 'error') return;
    if (level === 'debug' && !this.options.verbose) return;
    this.writeText(level === 'info' ? msg : `${level}: ${msg}`);
  }

  /** A command's closing line (its summary): shown even with `--quiet`, as a JSON record at `level` in JSON mode. */
  final(level: 'info' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
    if (this.format === 'json') this.log(level, msg, fields);
    else this.writeText(msg);
  }

  /**
   * The transport's log hook (`ConnectionOptions.logger`): every API retry is counted and logged (a `retry` event
   * in JSON with the wait, the server's Retry-After and the limit named when the transport gives them; a debug line
   * in text mode, a warning with `retriesShown`).
   */
  onHttpLog(event: { msg: string; [field: string]: unknown }): void {
    if (event.msg === 'waiting for budget') {
      // A request held back by its family's budget or its pause after a 429: a wait like a retry's, not counted as one;
      // said by the commands that show every wait (`api`), and with --verbose.
      if (!this.options.retriesShown && !this.options.verbose) return;
      this.log(this.options.retriesShown ? 'warn' : 'debug', `waiting: ${String(event.what)}`, {
        event: 'wait',
        family: event.family,
        budget: event.budget,
        wait_ms: event.delayMs,
      });
      return;
    }
    if (event.msg !== 'retrying request') return;
    this.totals.retries++;
    const status = typeof event.status === 'number' ? event.status : undefined;
    const code = typeof event.code === 'string' ? event.code : undefined;
    const reason = status !== undefined ? `HTTP ${status}` : (code ?? 'network error');
    const retryAfterMs = typeof event.retryAfterMs === 'number' ? event.retryAfterMs : undefined;
    // A 429 comes with its limit in words (`what`: "429 replay concurrency limit (…), waiting 1 s, attempt 2/6").
    const text =
      typeof event.what === 'string'
        ? `retrying: ${event.what}`
        : `retrying ${String(event.family)} request after ${reason} (attempt ${String(event.attempt)}, waiting ${String(event.delayMs)} ms)`;
    this.log(this.options.retriesShown ? 'warn' : 'debug', text, {
      event: 'retry',
      family: event.family,
      status,
      code,
      limit_kind: typeof event.limitKind === 'string' ? event.limitKind : undefined,
      limit: typeof event.limit === 'string' ? event.limit : undefined,
      attempt: event.attempt,
      wait_ms: event.delayMs,
      retry_after_ms: retryAfterMs,
    });
  }

  /** Folds one archive event into the totals and reports it. */
  onEvent(ev: ArchiveEvent): void {
    if (!this.began) {
      this.began = true;
      this.bar?.start();
      this.startStatus();
    }
    switch (ev.type) {
      case 'listed':
        this.totals.listed = ev.count;
        this.totals.listingComplete = ev.complete;
        if (this.format === 'json' && ev.complete)
          this.log('info', 'listing complete', { event: 'listed', count: ev.count });
        break;
      case 'progress':
        this.totals.events += ev.events;
        break;
      case 'started':
        if (this.format === 'json') this.log('info', 'replay started', { event: 'started', replay_id: ev.replayId });
        break;
      case 'notice':
        this.onNotice(ev.notice);
        break;
      case 'result':
        this.onResult(ev);
        break;
      case 'catalogued':
      case 'catalogue-failed':
        this.onCatalogue(ev);
        break;
      default:
        this.onUpkeep(ev);
    }
  }

  /** The manifest's folds and the balanced runs' claims: a debug line when done, a warning when not. */
  private onUpkeep(
    ev: Extract<ArchiveEvent, { type: 'compacted' | 'compaction-failed' | 'claims-cleared' | 'claims-clear-failed' }>,
  ): void {
    if (ev.type === 'compacted') {
      const r = ev.result;
      this.log(
        'debug',
        `manifest folded into a snapshot: ${r.entries} replays, ${r.folded} log entries folded, ${r.removed} removed`,
        { event: 'compacted', entries: r.entries, folded: r.folded, removed: r.removed },
      );
    } else if (ev.type === 'claims-cleared') {
      this.log('debug', `work claims of ${ev.runs} earlier balanced run(s) removed`, {
        event: 'claims_cleared',
        runs: ev.runs,
      });
    } else {
      const error = failureOf(ev.error);
      const what =
        ev.type === 'compaction-failed'
          ? 'could not fold the manifest into a snapshot (it stays as it was; the next run tries again)'
          : 'could not remove the work claims of earlier balanced runs (they stay; the next run tries again)';
      const event = ev.type === 'compaction-failed' ? 'compaction_failed' : 'claims_clear_failed';
      this.log('warn', `${what}: ${error.message}`, { event, error });
    }
  }

  /** The archive's catalogue after a fold: a debug line when brought up to date, a warning when not. */
  private onCatalogue(ev: Extract<ArchiveEvent, { type: 'catalogued' | 'catalogue-failed' }>): void {
    if (ev.type === 'catalogued') {
      this.log('debug', `catalogue brought up to the manifest: ${ev.rows} replays in ${Math.round(ev.ms)} ms`, {
        event: 'catalogued',
        rows: ev.rows,
        ms: Math.round(ev.ms),
      });
      return;
    }
    const error = failureOf(ev.error);
    const what = "could not bring the archive's catalogue up to date (it is built again when opened)";
    this.log('warn', `${what}: ${error.message}`, { event: 'catalogue_failed', error });
  }

  /** A replay's notice: a file retried, a file listed twice (warnings), a URL refreshed (JSON only). */
  private onNotice(n: ReplayNotice): void {
    if (n.kind === 'retry') {
      this.log('warn', `retrying ${n.replayId} file ${n.fileKey} (attempt ${n.attempt}): ${n.error}`, {
        event: 'retry',
        replay_id: n.replayId,
        file_key: n.fileKey,
        attempt: n.attempt,
        error: n.error,
      });
    } else if (n.kind === 'duplicate-file') {
      this.log('warn', `${n.replayId}: the files listing holds ${n.fileKey} more than once; taken once`, {
        event: 'duplicate_file',
        replay_id: n.replayId,
        file_key: n.fileKey,
      });
    } else if (n.kind === 'url-refresh' && this.format === 'json') {
      this.log('info', 'file URL refreshed', {
        event: 'url_refresh',
        replay_id: n.replayId,
        file_key: n.fileKey,
        reason: n.reason,
      });
    }
  }

  /** A replay's outcome: counted, then a JSON record, or a text line (failures always, the rest unless hidden). */
  private onResult(ev: ResultEvent): void {
    this.totals.byOutcome[ev.outcome]++;
    const ok = ev.entry?.status === 'ok' ? ev.entry : undefined;
    if (ev.outcome === 'ok' && ok?.bytes !== undefined) this.totals.bytes += ok.bytes;
    const level = ev.outcome === 'failed' || ev.outcome === 'not_found' ? 'error' : 'info';
    if (this.format === 'json') {
      this.log(level, `replay ${ev.outcome}`, resultRecord(ev));
      return;
    }
    const line = this.resultLine(ev);
    if (line !== undefined) this.log(ev.outcome === 'quarantined' ? 'warn' : level, line);
  }

  /** A replay's text line; undefined when none is shown (an archive on a terminal shows its failures alone). */
  private resultLine(ev: ResultEvent): string | undefined {
    const { ok, error, reason } = entryFacts(ev);
    if (ev.outcome === 'failed') return failedLine(ev.replayId, error);
    if (ev.outcome === 'quarantined') {
      if (ev.entry === undefined && this.options.replayLines === 'failures') return undefined;
      const why =
        ev.entry?.status === 'quarantined'
          ? `failed the same way in ${ev.entry.attempts} runs: ${failedLine(ev.replayId, error)}`
          : ev.reason;
      return `quarantined ${ev.replayId} (${why ?? 'quarantined'})`;
    }
    if (ev.outcome === 'not_found')
      return `not found ${ev.replayId}: the API lists no replay with this id; nothing written`;
    // An archive on a terminal: the progress line and the summary say the rest.
    if (this.options.replayLines === 'failures') return undefined;
    if (ev.outcome === 'ok') {
      const key = ok?.key !== undefined ? (this.options.showKey?.(ok.key) ?? ok.key) : '?';
      return `ok ${ev.replayId} → ${key} (${ok?.event_count} events, ${formatBytes(ok?.bytes ?? 0)})${ev.rechecked ? ' [files changed, re-exported]' : ''}`;
    }
    if (ev.outcome === 'empty') return `empty ${ev.replayId} (no files yet; tried again next run)`;
    if (ev.outcome === 'skipped') return `skipped ${ev.replayId} (${ev.reason ?? reason ?? 'skipped'})`;
    if (ev.outcome === 'taken') return `taken ${ev.replayId} (exported by another shard)`;
    return undefined;
  }

  private done(): number {
    return Object.values(this.totals.byOutcome).reduce((sum, n) => sum + n, 0);
  }

  /** The end-of-run summary (counts per status, events, bytes). */
  summary(target: string, extra: Record<string, unknown> = {}): void {
    const b = this.totals.byOutcome;
    const elapsed = (Date.now() - this.started) / 1000;
    this.stopDisplay();
    if (b.quarantined > 0)
      this.log(
        'warn',
        `${b.quarantined} replay(s) quarantined: each failed with the same permanent cause in several runs and is no longer tried (--retry-quarantined tries them again)`,
        { event: 'quarantined', quarantined: b.quarantined },
      );
    if (this.format === 'json') {
      this.log(b.failed + b.not_found > 0 ? 'error' : 'info', 'summary', {
        event: 'summary',
        target,
        ok: b.ok,
        failed: b.failed,
        quarantined: b.quarantined,
        empty: b.empty,
        skipped: b.skipped,
        not_found: b.not_found,
        done_before: b['done-before'],
        unchanged: b.unchanged,
        taken: b.taken > 0 ? b.taken : undefined,
        retries: this.totals.retries,
        events: this.totals.events,
        bytes: this.totals.bytes,
        seconds: Math.round(elapsed * 10) / 10,
        ...extra,
      });
      return;
    }
    this.writeText(
      `Summary (${target}): ok ${b.ok}, failed ${b.failed}, ${b.quarantined > 0 ? `quarantined ${b.quarantined}, ` : ''}${b.not_found > 0 ? `not found ${b.not_found}, ` : ''}empty ${b.empty}, skipped ${b.skipped}, ` +
        `already done ${b['done-before']}, unchanged ${b.unchanged}${b.taken > 0 ? `, taken by other shards ${b.taken}` : ''}; ${this.totals.events} events, ` +
        `${formatBytes(this.totals.bytes)} written in ${formatSeconds(elapsed)}` +
        (this.totals.retries > 0
          ? `; ${this.totals.retries} API ${this.totals.retries === 1 ? 'retry' : 'retries'}`
          : ''),
    );
  }

  /** Ends the run's display: the progress line is taken away (the summary does this too). */
  close(): void {
    this.stopDisplay();
  }
}

/** A replay's outcome, as the archive reports it. */
type ResultEvent = Extract<ArchiveEvent, { type: 'result' }>;

/** What a result's manifest entry tells: the entry when exported, the failure, the reason it was left. */
function entryFacts(ev: ResultEvent): {
  ok: Extract<ManifestEntry, { status: 'ok' }> | undefined;
  error: Parameters<typeof failedLine>[1];
  reason: string | undefined;
} {
  return {
    ok: ev.entry?.status === 'ok' ? ev.entry : undefined,
    error: ev.entry !== undefined && 'error' in ev.entry ? ev.entry.error : undefined,
    reason: ev.entry !== undefined && 'reason' in ev.entry ? ev.entry.reason : undefined,
  };
}

/** A replay's JSON record (`event: 'replay'`). */
function resultRecord(ev: ResultEvent): Record<string, unknown> {
  const { ok, error, reason } = entryFacts(ev);
  const stored = ev.outcome === 'ok' || ev.outcome === 'done-before' || ev.outcome === 'unchanged';
  const exported = ev.outcome === 'ok' ? ok : undefined;
  // A field left undefined is not written (JSON has no undefined).
  return {
    event: 'replay',
    replay_id: ev.replayId,
    outcome: ev.outcome,
    rechecked: ev.rechecked ? true : undefined,
    key: stored ? (ev.key ?? ok?.key) : undefined,
    event_count: exported?.event_count,
    bytes: exported?.bytes,
    sha256: exported?.sha256,
    checks: exported?.checks,
    error: error || undefined,
    reason:
      ev.outcome === 'skipped' || ev.outcome === 'empty' || ev.outcome === 'quarantined'
        ? (ev.reason ?? reason)
        : undefined,
    attempts: ev.entry?.status === 'failed' || ev.entry?.status === 'quarantined' ? ev.entry.attempts : undefined,
  };
}

/**
 * The text line of a failed replay: the replay id and the file key once each, then what went wrong (the stored
 * message repeats both: it starts with them and the cause's own message may name them again).
 */
export function failedLine(replayId: string, error: { message?: string; file_key?: string } | undefined): string {
  const key = error?.file_key;
  let detail = error?.message ?? 'unknown error';
  const prefix = `replay ${replayId}${key !== undefined ? ` file ${key}` : ''}: `;
  if (detail.startsWith(prefix)) detail = detail.slice(prefix.length);
  if (key !== undefined && key !== '')
    detail = detail.split(`file ${key}`).join('the file').split(key).join('the file');
  // Only where the id is named as the replay: a bare id can be part of an output key (`<id>.json`).
  if (replayId !== '') detail = detail.split(`replay ${replayId}`).join('the replay');
  return `failed ${replayId}${key !== undefined ? ` file ${key}` : ''}: ${detail}`;
}
