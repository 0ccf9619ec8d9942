import { InvalidArgumentError, type Command } from 'commander';
import { parseFaultsFlag, runSandboxCommand, SANDBOX_DEFAULTS } from '../../../src/cli/sandbox.js';
import type { CliContext, Invocation } from '../context.js';
import { portFlag, withDefault } from '../flags.js';

interface SandboxFlags {
  port?: number;
  replicas?: number;
  latency?: number;
  faults?: string;
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
    );
}

export async function run(opts: Invocation<SandboxFlags>, context: CliContext): Promise<number> {
  const faults = {
    ...(opts.faults !== undefined ? parseFaultsFlag(opts.faults) : {}),
    ...(opts.latency !== undefined ? { latencyMs: opts.latency } : {}),
  };
  context.releaseSignals();
  await runSandboxCommand({
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.replicas !== undefined ? { replicas: opts.replicas } : {}),
    ...(Object.keys(faults).length > 0 ? { faults } : {}),
    out: context.stdout,
    signal: context.signal,
  });
  return 0;
}
