import { Command, Option } from 'commander';
import { DEFAULTS } from '../../src/cli/flags.js';
import { ENV } from '../../src/cli/flags.js';
import type { CliIo } from './context.js';
import { withDefault } from './flags.js';
import { configureHelpText } from './help-text.js';
import { jsonLine } from './reporter.js';

/** How often a run not on a terminal says how far it is (`--status-every`). */
export const STATUS_EVERY = '30s';

/** The program with its global flags (`replay-export [global options] <command>`); output goes to `io`. */
export function globalFlags(io: CliIo, json = false): Command {
  const program = new Command()
    .name('replay-export')
    .description('Export recorded browser sessions (rrweb events) from the Session Replay API to a folder or S3.')
    .addOption(new Option('--api-key <key>', 'project API key (required unless --sandbox)').env('PLATFORM_API_KEY'))
    .addOption(
      new Option('--secret-key <key>', 'project secret key (required unless --sandbox)').env('PLATFORM_SECRET_KEY'),
    )
    .addOption(
      new Option('--region <region>', 'data-residency region: us or eu')
        .env('PLATFORM_REGION')
        .default(DEFAULTS.region),
    )
    .addOption(
      new Option('--endpoint <url>', withDefault('base URL replacing the region host', "the region's host")).env(
        'PLATFORM_ENDPOINT',
      ),
    )
    .addOption(
      new Option(
        '--profile <name>',
        withDefault(
          'the stored keys and endpoint to use (replay-export auth login); flags and PLATFORM_* win',
          'default',
        ),
      ).env('PLATFORM_PROFILE'),
    )
    .option('--sandbox', withDefault('start the embedded sandbox in-process and use it (no credentials needed)', 'off'))
    .addOption(
      new Option('--log-format <format>', 'text or json (one JSON line per event on stderr)').default(
        DEFAULTS.logFormat,
      ),
    )
    .option('-q, --quiet', withDefault('print only errors and the summary', 'off'))
    .option(
      '--no-progress',
      'no progress line on a terminal (default: shown when stderr is a terminal, text log format)',
    )
    .option(
      '--status-every <duration>',
      withDefault(
        'when stderr is not a terminal (cron logs, JSON): a progress status line this often; 0: none',
        STATUS_EVERY,
      ),
    )
    .option('--verbose', withDefault('also print debug lines (each API retry) in text mode', 'off'))
    .addHelpText(
      'after',
      `\nEnvironment (no flag):\n  ${ENV.wasm}=0         decode without the WebAssembly fast paths (default: on)\n` +
        `  ${ENV.hashWorker}=0  hash local outputs on the calling thread, no hashing worker (default: on)`,
    )
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void io.stderr.write(s),
      // With --log-format json, commander's own errors (an unknown option, a missing argument) are JSON lines too.
      ...(json
        ? {
            outputError: (s: string) =>
              void io.stderr.write(
                jsonLine({
                  time: new Date().toISOString(),
                  level: 'error',
                  msg: s.trim().replace(/^error: /, ''),
                  event: 'fatal',
                  exit_code: 2,
                }) + '\n',
              ),
          }
        : {}),
    })
    .exitOverride()
    .showHelpAfterError(false);
  return configureHelpText(program);
}

/** Whether the line asks for `--log-format json` (known before commander parses it, for commander's own errors). */
export function jsonRequested(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') return false;
    if (args[i] === '--log-format=json' || (args[i] === '--log-format' && args[i + 1] === 'json')) return true;
  }
  return false;
}

/** The command named on the line (the first word that is not a global flag or its value), if any. */
export function commandWord(args: readonly string[], program: Command): string | undefined {
  const valued = new Set(program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short]));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    if (!arg.startsWith('-')) return arg;
    if (valued.has(arg)) i++;
  }
  return undefined;
}

/** Options with an environment variable take it from `env` (commander reads `process.env`): flags still win. */
export function applyEnv(command: Command, env: CliIo['env']): void {
  for (let c: Command | null = command; c !== null; c = c.parent) {
    for (const o of c.options) {
      const key = o.attributeName();
      if (o.envVar === undefined || c.getOptionValueSource(key) === 'cli') continue;
      const value = env[o.envVar];
      if (value !== undefined) c.setOptionValueWithSource(key, value, 'env');
      else if (c.getOptionValueSource(key) === 'env')
        c.setOptionValueWithSource(key, o.defaultValue, o.defaultValue === undefined ? undefined : 'default');
    }
  }
}
