import type { Command } from 'commander';
import type { Run, Settings, SettingsOptions } from '../../src/index.js';
import type { LogFormat, ReporterOptions, ReporterStream } from './reporter.js';
import type { Reporter } from './reporter.js';

/** An output of the CLI: `process.stdout`/`stderr`, or any writable (a test's in-memory stream). */
export type CliOutput = NodeJS.WritableStream & ReporterStream;

/** What a run of the CLI is given by its caller: the process's streams and environment, or a test's. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  stdin: NodeJS.ReadableStream;
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Stops the command (an interrupt). Without it the run is the process's: `main` takes SIGINT, SIGTERM and the
   * process warnings for the command's time (as the `replay-export` binary does).
   */
  signal?: AbortSignal;
}

/** The global flags (`replay-export [global options] <command>`). */
export interface GlobalFlags {
  apiKey?: string;
  secretKey?: string;
  region: string;
  endpoint?: string;
  sandbox?: boolean;
  /** `--profile` (`PLATFORM_PROFILE`): the profile store's entry whose fields stand under the environment. */
  profile?: string;
  logFormat: string;
  quiet?: boolean;
  progress: boolean;
  /** `--status-every`, as given. */
  statusEvery?: string;
  verbose?: boolean;
}

/** What a command's run opens: its settings (from its flags), its reporter's options. */
export interface RunRequest {
  /** The library's options from the command's flags (resolved with the environment and the defaults). */
  settings?: SettingsOptions;
  /** `archive`: the shard from `--shard` (`flag`), else the environment. */
  shard?: { flag: string | undefined };
  /** `archive`: the balanced run from `--balance` (`flag`), else the environment. */
  balance?: { flag: string | undefined };
  /** The archive the library's run opens (`export`, `archive`). */
  out?: string;
  /** `api --management-key` (else the sandbox's, with `--sandbox`). */
  managementKey?: string | undefined;
  /** What the run's reporter shows (from the settings, when it depends on them). */
  reporter?: ReporterOptions | ((settings: Settings) => ReporterOptions);
}

/**
 * One command's run: settings and reporter now, the API on demand; `close` closes the library's run and stops the
 * sandbox it started.
 */
export interface CliRun {
  readonly settings: Settings;
  readonly reporter: Reporter;
  /**
   * The library's run (`openRun`): the platform from the flags or the environment (checked before any request: exit
   * 2; warns once when `--region` is given but not used), or the in-process sandbox with `--sandbox` (started on the
   * first call); these settings, the reporter's logger (every wait and retry logged), the interrupt signal and the
   * request's `out`: opened on the first call.
   */
  library(): Promise<Run>;
  close(): Promise<void>;
}

/** Everything a command's `run` works with: no command reads `process` itself. */
export interface CliContext extends Required<Pick<CliIo, 'stdout' | 'stderr' | 'stdin' | 'env'>> {
  readonly signal: AbortSignal;
  readonly globals: GlobalFlags;
  /** `--log-format`, checked. */
  readonly format: LogFormat;
  /** The command as commander parsed it (for where a flag's value came from). */
  readonly command: Command;
  /** A reporter on stderr with the global flags' options (`extra` on top) and every secret known so far. */
  reporter(extra?: ReporterOptions): Reporter;
  /** A reporter that shows everything (`--quiet` aside): what the end of a command says. */
  plainReporter(): Reporter;
  /**
   * The command's run: its settings resolved once (flags, then `PLATFORM_*` and the other variables of `env`, then
   * defaults), its reporter, and the API connection (credentials or the `--sandbox` sandbox) when asked for.
   */
  openRun(request?: RunRequest): Promise<CliRun>;
  /** A secret the reporters must never show (e.g. a `--management-key`). */
  addSecret(secret: string): void;
  /**
   * Said on an interrupt from now on: `message`, by default "run the same command again to resume" (true of the
   * commands that skip what is done: archive, forget).
   */
  markResumable(message?: string): void;
  /** The command handles SIGINT/SIGTERM itself from now on (`view`, `sandbox`: Ctrl-C is how they stop). */
  releaseSignals(): void;
}

/** The process's streams and environment. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/** A command's flags as commander parsed them, with its operands (`args`). */
export type Invocation<F> = F & { args: string[] };

/** One command of the CLI: `bin/cli/commands/<name>.ts`. */
export interface CliCommand<F = Record<string, unknown>> {
  /** Adds the command, its flags and its help to the program; returns it. */
  register(program: Command): Command;
  /** Runs the command; resolves with its exit code (an error thrown is mapped to one by its category). */
  run(options: Invocation<F>, context: CliContext): Promise<number>;
}
