/**
 * Starts the bench's measured child processes (through `launch.js`, so that a child's peak RSS is its own and the
 * bench's node flags reach it) and reads their one-line JSON reports.
 */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Sandbox } from '../src/sandbox/index.js';
import type { ChildReport, ChildSettings } from './child.js';
import type { ThroughputPlan, ThroughputResult } from './measure-files.js';

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));
const THROUGHPUT_CHILD = fileURLToPath(new URL('./throughput-child.js', import.meta.url));
const LAUNCH = fileURLToPath(new URL('./launch.js', import.meta.url));

/**
 * Runs `script` through the launcher with `env` added and returns the JSON of its last stdout line. Each stderr line
 * goes to `progress` when given; the end of stderr is quoted when the child fails.
 */
export async function runReporting<T>(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
  progress?: (line: string) => void,
  launcher = true,
): Promise<T> {
  // Without the launcher the child is forked from the bench (its maxRSS then starts at the bench's): for figures that
  // count a process's start, not its memory.
  const argv = launcher ? [LAUNCH, script, ...args] : [...process.execArgv, script, ...args];
  const child = spawn(process.execPath, argv, {
    env: {
      ...process.env,
      // Node and V8 flags given to the bench (e.g. `node --no-concurrent-marking dist/bench/run.js`) reach the
      // measured child, not the launcher.
      BENCH_NODE_FLAGS: JSON.stringify(process.execArgv),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    err += s;
    if (progress === undefined) return;
    const lines = (partial + s).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) progress(line);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (progress !== undefined && partial !== '') progress(partial);
  const line = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || line === '') {
    throw new Error(`bench child ${script} ${args.join(' ')} exited with ${String(code)}: ${err.trim().slice(-2000)}`);
  }
  return JSON.parse(line) as T;
}

/** Runs a bench child job against `sandbox`; `launcher: false` spawns it directly (one Node start, not two). */
export async function runChild(
  job: 'idle' | 'export' | 'archive' | 'raw-archive',
  sandbox: Sandbox,
  settings: Omit<ChildSettings, 'endpoint'>,
  launcher = true,
): Promise<ChildReport> {
  const env = {
    BENCH_CHILD: JSON.stringify({ ...settings, endpoint: sandbox.url }),
    BENCH_API_KEY: sandbox.credentials.apiKey,
    BENCH_SECRET_KEY: sandbox.credentials.secretKey,
  };
  return runReporting<ChildReport>(CHILD, [job], env, undefined, launcher);
}

/** `measureThroughput` in a child process that holds the library (bench/throughput-child.ts says why). */
export async function runThroughputChild(plan: ThroughputPlan): Promise<ThroughputResult> {
  const { log, ...rest } = plan;
  return runReporting<ThroughputResult>(THROUGHPUT_CHILD, [], { BENCH_THROUGHPUT: JSON.stringify(rest) }, log);
}
