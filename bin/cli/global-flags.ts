import { Command, Option } from 'commander';
import { DEFAULTS } from '../../src/pipeline/defaults.js';
import { PLATFORM_ENV } from '../../src/pipeline/platform.js';
import { ENV } from '../../src/pipeline/settings.js';
import type { CliIo } from './context.js';
import { withDefault } from './flags.js';
import { configureHelpText } from './help-text.js';
import { PROFILE_ENV } from './profiles.js';
import { jsonLine } from './reporter.js';

/** How often a run not on a terminal says how far it is (`--status-every`). */
export const STATUS_EVERY = '30s';

/** The program with its global flags (`replay-export [global options] <command>`); output goes to `io`. */
export function globalFlags(io: CliIo, json = false): Command {
  const program = new Command()
    .name('replay-export')
    .description('Export recorded browser sessions (rrweb events) from the Session Replay API to a folder or S3.')
    // The platform's flags hold what the command line gives; the run reads PLATFORM_* for the rest, once.
    .option('--api-key <key>', `project API key (required unless --sandbox) (env: ${PLATFORM_ENV.apiKey})`)
    .option('--secret-key <key>', `project secret key (required unless --sandbox) (env: ${PLATFORM_ENV.secretKey})`)
    .option(
      '--region <region>',
      `data-residency region: us or eu (default: ${JSON.stringify(DEFAULTS.region)}, env: ${PLATFORM_ENV.region})`,
    )
    .option(
      '--endpoint <url>',
      `${withDefault('base URL replacing the region host', "the region's host")} (env: ${PLATFORM_ENV.endpoint})`,
    )
    // The profile's name is read by profiles.ts (the flag, else PROFILE_ENV), before the command runs.
    .option(
      '--profile <name>',
      `${withDefault(
        'the stored keys and endpoint to use (replay-export auth login); flags and PLATFORM_* win',
        'default',
      )} (env: ${PROFILE_ENV})`,
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
