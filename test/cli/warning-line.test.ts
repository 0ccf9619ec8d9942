/**
 * A process warning of several lines (the AWS SDK's notice about the Node version is one) is one readable log line:
 * its line breaks become spaces, not escaped `\n` (the same text goes to `--log-format json`'s `message`). The warning
 * is emitted inside the CLI process on a signal, by a module preloaded with `--import`, while `sandbox` runs.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { cleanEnv, spawnCli } from './cli-helpers.js';

let dir = '';
let preload = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-warning-'));
  preload = join(dir, 'warn-on-signal.mjs');
  await writeFile(
    preload,
    `process.on('SIGUSR2', () => process.emitWarning('first line\\nsecond line\\n\\nthird line'));\n`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `sandbox` with the preload, makes it warn once it is up, stops it; its stderr. */
async function warnedStderr(): Promise<string> {
  const env = cleanEnv({ NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` });
  const { child, done } = spawnCli(['sandbox'], env);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
    if (stderr.includes('third line')) child.kill('SIGINT');
  });
  child.stdout!.on('data', (d: Buffer) => {
    const before = stdout;
    stdout += d.toString('utf8');
    if (!before.includes('Ctrl-C to stop') && stdout.includes('Ctrl-C to stop')) child.kill('SIGUSR2');
  });
  await done;
  return stderr;
}

test('text: the warning is one line, its line breaks as spaces', async () => {
  const lines = (await warnedStderr()).split('\n').filter((l) => l.includes('first line'));
  expect(lines).toEqual(['warn: Warning: first line second line third line']);
}, 60_000);
