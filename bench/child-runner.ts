/**
 * Starts `dist/bench/child.js` for one job (through `launch.js`, so that its peak RSS is its own) and reads its
 * one-line JSON report.
 */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Sandbox } from '../src/sandbox/index.js';
import type { ChildReport, ChildSettings } from './child.js';

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));
const LAUNCH = fileURLToPath(new URL('./launch.js', import.meta.url));

export async function runChild(job: 'idle' | 'export' | 'archive' | 'raw-archive', sandbox: Sandbox, settings: Omit<ChildSettings, 'endpoint'>): Promise<ChildReport> {
  const child = spawn(process.execPath, [LAUNCH, CHILD, job], {
    env: {
      ...process.env,
      BENCH_CHILD: JSON.stringify({ ...settings, endpoint: sandbox.url }),
      // Node and V8 flags given to the bench (e.g. `node --no-concurrent-marking dist/bench/run.js`) reach the
      // measured child, not the launcher.
      BENCH_NODE_FLAGS: JSON.stringify(process.execArgv),
      BENCH_API_KEY: sandbox.credentials.apiKey,
      BENCH_SECRET_KEY: sandbox.credentials.secretKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const line = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || line === '') {
    throw new Error(`bench child "${job}" exited with ${String(code)}: ${err.trim().slice(0, 2000)}`);
  }
  return JSON.parse(line) as ChildReport;
}
