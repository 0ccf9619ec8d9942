import type { Command } from 'commander';
import { exitCodeOf, InterruptedError } from '../../src/errors.js';
import type { CliContext, CliIo, GlobalFlags } from './context.js';
import { usageOf, wasReported } from './fatal.js';
import { durationFlag, usage } from './flags.js';
import { STATUS_EVERY } from './global-flags.js';
import { Reporter, type LogFormat } from './reporter.js';

/** Said on an interrupt once a command that resumes has started its work. */
const RESUME = 'interrupted — run the same command again to resume';

/**
 * One invocation of the CLI: its interrupt signal, the secrets its reporters scrub, the log format once known. Run
 * as the process (no `io.signal`), it takes SIGINT/SIGTERM and shows process warnings through a reporter (so that
 * `--log-format json` keeps stderr one JSON object a line); `close` gives those back.
 */
export class CliSession {
  private readonly abort = new AbortController();
  private readonly secrets: string[] = [];
  private format: LogFormat = 'text';
  /** What an interrupt says once the command started work another run takes up (`markResumable`). */
  private resumable: string | undefined;
  private ownsProcess = false;
  private readonly nodeWarningPrinters = process.listeners('warning');
  private readonly onSignal = (): void => this.abort.abort(new InterruptedError());
  // A multi-line warning (the AWS SDK's notice: "versions published after the first week of January 2027 will require
  // node >=22") becomes one readable line: its line breaks as spaces, not escaped `\n`. The SDK emits it once a process.
  private readonly onWarning = (warning: Error): void => {
    const text = `${warning.name}: ${warning.message}`.replace(/\s*\n\s*/g, ' ');
    this.reporter().log('warn', text, { event: 'warning', name: warning.name });
  };

  constructor(private readonly io: CliIo) {
    if (io.signal !== undefined) {
      // Embedded (a test, a wrapper): the caller's signal stops the command; the process stays the caller's.
      if (io.signal.aborted) this.abort.abort(io.signal.reason);
      else io.signal.addEventListener('abort', () => this.abort.abort(io.signal!.reason), { once: true });
      return;
    }
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
    process.removeAllListeners('warning');
    process.on('warning', this.onWarning);
    this.ownsProcess = true;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  private reporter(): Reporter {
    return new Reporter(this.format, this.secrets, this.io.stderr);
  }

  /** The context of the command commander is about to run. */
  context(command: Command, openRun: CliContext['openRun']): CliContext {
    const globals = command.optsWithGlobals<GlobalFlags>();
    if (globals.logFormat !== 'text' && globals.logFormat !== 'json')
      usage(`--log-format must be text or json (got ${globals.logFormat})`);
    const format = (this.format = globals.logFormat);
    const { stdout, stderr, stdin, env } = this.io;
    const statusEveryMs = durationFlag('--status-every', globals.statusEvery ?? STATUS_EVERY);
    const shown = {
      quiet: globals.quiet === true,
      progress: globals.progress,
      verbose: globals.verbose === true,
      statusEveryMs,
    };
    return {
      stdout,
      stderr,
      stdin,
      env,
      globals,
      format,
      command,
      signal: this.signal,
      reporter: (extra = {}) => new Reporter(format, this.secrets, stderr, { ...shown, ...extra }),
      plainReporter: () => this.reporter(),
      openRun,
      addSecret: (secret) => void this.secrets.push(secret),
      markResumable: (message = RESUME) => void (this.resumable = message),
      releaseSignals: () => this.releaseSignals(),
    };
  }

  /** The exit code of a command that ended with `err` (by its category: `EXIT_CODES`), reported on stderr. */
  fail(err: unknown): number {
    const aborted = this.signal.aborted;
    const cause =
      aborted && this.resumable !== undefined
        ? new InterruptedError(this.resumable)
        : aborted
          ? this.signal.reason
          : usageOf(err);
    const code = exitCodeOf(cause);
    if (!aborted && wasReported(err)) return code;
    this.reporter().log('error', cause instanceof Error ? cause.message : String(cause), {
      event: 'fatal',
      exit_code: code,
    });
    return code;
  }

  private releaseSignals(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }

  close(): void {
    if (!this.ownsProcess) return;
    this.releaseSignals();
    process.off('warning', this.onWarning);
    for (const printer of this.nodeWarningPrinters) process.on('warning', printer);
  }
}
