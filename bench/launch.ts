/**
 * A minimal process between the bench and its measured child. On Linux a child's `maxRSS` starts at the RSS of the
 * process that forked it (the forked copy of the parent's memory counts until exec), so a child forked straight
 * from the bench — which holds hundreds of MB of replay files — would report the bench's size. This launcher holds
 * almost nothing when it forks, so the child's `process.resourceUsage().maxRSS` is its own.
 *
 *   node dist/bench/launch.js <script> [args...]    (stdio passed through; exits with the child's code)
 * BENCH_NODE_FLAGS (a JSON array of node flags) is put before <script>.
 */

import { spawn } from 'node:child_process';

const [script, ...args] = process.argv.slice(2);
if (script === undefined) {
  process.stderr.write('usage: launch.js <script> [args...]\n');
  process.exit(2);
}
// The bench's own node flags (BENCH_NODE_FLAGS, a JSON array) go to the child.
const flags = JSON.parse(process.env['BENCH_NODE_FLAGS'] ?? '[]') as string[];
const child = spawn(process.execPath, [...flags, script, ...args], { stdio: 'inherit' });
child.on('error', (err) => {
  process.stderr.write(`launch: ${err.message}\n`);
  process.exitCode = 1;
});
child.on('close', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
