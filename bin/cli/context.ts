import type { Command } from 'commander';
import type { Run, RunOptions, Settings } from '../../src/index.js';
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
  region?: string;
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

/** How a command's run is opened, besides its options. */
export interface RunHow {
  /**
   * The command reaches the platform (`list`, `export`, `archive`, `api`, `video` of a platform replay): with
   * `--sandbox` the in-process sandbox is started first and is the platform.
   */
  api?: boolean;
  /** A job's run (`archive`): the shard and the balanced run come from the job's environment when not flags. */
  job?: boolean;
  /** What the run's reporter shows (from the settings, when it depends on them). */
  reporter?: ReporterOptions | ((settings: Settings) => ReporterOptions);
}

/** One command's run: the library's `Run` (its configuration resolved), the reporter; `close` closes both. */
export interface CliRun {
  /**
   * The library's run (`openRun`) of the command's options with the global flags' platform (or the sandbox's with
   * `--sandbox`), the reporter's logger (every wait and retry logged) and the interrupt signal.
   */
  readonly run: Run;
  readonly reporter: Reporter;
  /**
   * The run, its platform checked before any request (the project's keys: exit 2; warns once when `--region` is
   * given but not used).
   */
  connect(): Run;
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
   * The command's run of `options` (its flags bound into the library entry's options): resolved once by the library
   * (flags, then `PLATFORM_*` and the other variables of `env`, then defaults), with its reporter.
   */
  openRun(options: RunOptions, how?: RunHow): Promise<CliRun>;
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

/** The flags of the command `context` runs, as commander parsed them (`F`: as its `register` declared them). */
export function flagsOf<F extends object>(context: CliContext): Invocation<F> {
  return { ...context.command.opts<F>(), args: context.command.args };
}

/** One command of the CLI: `bin/cli/commands/<name>.ts`. */
export interface CliCommand {
  /** Adds the command, its flags and its help to the program; returns it. */
  register(program: Command): Command;
  /**
   * Runs the command `context.command` (its flags: `flagsOf`); resolves with its exit code (an error thrown is mapped
   * to one by its category).
   */
  run(context: CliContext): Promise<number>;
}
