import { InvalidArgumentError, type Command } from 'commander';
import { stripUndefined } from '../../../src/http/options.js';
import { runSandboxCommand } from '../../../src/sandbox/cli.js';
import { parseFaultsFlag } from '../../../src/sandbox/faults.js';
import { parseOptionsFlag } from '../../../src/sandbox/options-flag.js';
import { SANDBOX_DEFAULTS } from '../../../src/sandbox/options.js';
import { flagsOf, type CliContext } from '../context.js';
import { portFlag, withDefault } from '../flags.js';

interface SandboxFlags {
  port?: number;
  replicas?: number;
  latency?: number;
  faults?: string;
  options?: string;
  ignoreTimeFilters?: boolean;
}

export function register(program: Command): Command {
  return program
    .command('sandbox')
    .description('run the sandbox (a local Session Replay API) until stopped; prints its URL and credentials')
    .option('--port <n>', 'port (default: any free port)', portFlag)
    .option(
      '--replicas <n>',
      withDefault('extra synthetic replays cloned from the samples', SANDBOX_DEFAULTS.replicas),
      (v) => {
        if (!/^\d+$/.test(v)) throw new InvalidArgumentError('--replicas must be a non-negative integer');
        return Number(v);
      },
    )
    .option(
      '--latency <ms>',
      withDefault('milliseconds added before answering each API and storage request', 0),
      (v) => {
        if (!/^\d+$/.test(v)) throw new InvalidArgumentError('--latency must be a non-negative integer (milliseconds)');
        return Number(v);
      },
    )
    .option(
      '--faults <list>',
      withDefault(
        'fault switches: key=value,... (e.g. rateLimitEvery=5,serverErrorEvery=7) or a JSON object; see docs',
        'none',
      ),
    )
    .option(
      '--options <list>',
      withDefault(
        'any other sandbox option: key=value,... (e.g. apiConcurrency=0,timeScale=0.01,limits.taxonomyCostPerHour=50) or a JSON object; see docs/SANDBOX.md',
        'none',
      ),
    )
    .option('--ignore-time-filters', 'list every replay whatever start_time/end_time say (as the platform may)');
}

export async function run(context: CliContext): Promise<number> {
  const opts = flagsOf<SandboxFlags>(context);
  const parsed = opts.faults === undefined ? {} : parseFaultsFlag(opts.faults);
  const faults = stripUndefined({ ...parsed, latencyMs: opts.latency });
  const others = opts.options === undefined ? {} : parseOptionsFlag(opts.options);
  const options = opts.ignoreTimeFilters ? { ...others, ignoreTimeFilters: true } : others;
  context.releaseSignals();
  await runSandboxCommand({
    port: opts.port,
    replicas: opts.replicas,
    faults: Object.keys(faults).length > 0 ? faults : undefined,
    options,
    out: context.stdout,
    signal: context.signal,
  });
  return 0;
}
