/**
 * What the CLI shows on a terminal (a pseudo-terminal of 80 columns) and in pipes: the progress line fits and is
 * gone at the end, nothing is drawn for a run that never started, the last line ends with a newline, a reader that
 * goes away ends the command quietly, and list prints a table.
 */
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { readJson, tempDir } from '../pipeline/helpers.js';
import { CLI, cleanEnv, sandboxEnv } from './cli-helpers.js';
import { drawnSegments, runInPty, screenLines } from './pty.js';
import { spawn } from 'node:child_process';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  sandbox = await startSandbox({ replicas: 30, faults: { latencyMs: 20 } });
  work = await tempDir('replay-export-tty-');
});
afterAll(async () => {
  await sandbox.close();
  await work.cleanup();
});

/** Runs `line` in `sh` with pipefail; resolves with the exit status and stderr. */
function shell(line: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-o', 'pipefail', '-c', line], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('on a terminal of 80 columns', () => {
  test('archive: the progress line never exceeds 79 columns, is gone before the summary, and the output ends with a newline', async () => {
    const out = join(work.dir, 'bar');
    const res = await runInPty(['archive', '--out', out, '--settle', '0', '--concurrency', '2'], sandboxEnv(sandbox));
    expect(res.code, res.output).toBe(0);
    const segments = drawnSegments(res.output);
    // A bar once the listing has ended (in the default order, near the end); a count before.
    expect(
      segments.some((s) => /^(\[[#.]+\] {2}\d+s {2}\d+\/\d+ replays|\d+s {2}\d+ done, \d+ listed)/.test(s)),
      res.output,
    ).toBe(true);
    // While listing there is no total: a count and a rate, no bar (it would be full from the first second).
    for (const s of segments.filter((x) => x.includes('listing…')))
      expect(s).toMatch(/^\d+s {2}\d+ done, \d+ listed {2}listing…/);
    // Every drawn state of the progress line fits (the summary is an ordinary line, ended by a newline).
    for (const s of segments.filter((x) => !x.startsWith('Summary'))) expect(s.length, s).toBeLessThanOrEqual(79);
    expect(res.output.endsWith('\r\n')).toBe(true);
    const lines = screenLines(res.output).filter((l) => l !== '');
    // What stays on the screen: the summary only (per-replay lines of an archive are not printed on a terminal).
    expect(lines, res.output).toHaveLength(1);
    expect(lines[0]).toMatch(/^Summary .*ok 36, failed 0/);
  });

  test('a run that never started draws no progress line and no summary; the last line ends with a newline', async () => {
    const wrong = cleanEnv({
      PLATFORM_API_KEY: sandbox.credentials.apiKey,
      PLATFORM_SECRET_KEY: 'wrong-secret-0123456789',
      PLATFORM_ENDPOINT: sandbox.url,
    });
    const file = join(work.dir, 'a-file');
    await writeFile(file, 'x');
    for (const [args, env, code] of [
      [['list'], wrong, 3],
      [['archive', '--out', join(work.dir, 'never')], wrong, 3],
      [['archive', '--out', file], sandboxEnv(sandbox), 2],
    ] as const) {
      const res = await runInPty([...args], env);
      expect(res.code, res.output).toBe(code);
      expect(res.output).not.toMatch(/ replays|Summary|\x1b\[2K/);
      expect(res.output.endsWith('\r\n'), JSON.stringify(res.output)).toBe(true);
      expect(screenLines(res.output).filter((l) => l !== '')).toHaveLength(1);
    }
  });

  test('the progress line follows a narrower terminal', async () => {
    const res = await runInPty(
      ['archive', '--out', join(work.dir, 'narrow'), '--settle', '0', '--concurrency', '1'],
      sandboxEnv(sandbox),
      40,
    );
    expect(res.code, res.output).toBe(0);
    const segments = drawnSegments(res.output);
    expect(segments.some((s) => / replays/.test(s))).toBe(true);
    for (const s of segments.filter((x) => !x.startsWith('Summary'))) expect(s.length, s).toBeLessThanOrEqual(39);
  });

  test('--no-progress and --quiet draw no progress line', async () => {
    for (const flag of ['--no-progress', '--quiet']) {
      const res = await runInPty(
        [flag, 'archive', '--out', join(work.dir, `np${flag}`), '--settle', '0'],
        sandboxEnv(sandbox),
      );
      expect(res.code, res.output).toBe(0);
      expect(res.output).not.toContain('\x1b[2K');
      expect(screenLines(res.output).filter((l) => l !== '')).toEqual([expect.stringMatching(/^Summary .*ok 36/)]);
    }
  });

  test('list prints a table that fits 80 columns: id, start, user (duration with room); --json prints NDJSON', async () => {
    const res = await runInPty(['list', '--max', '3'], sandboxEnv(sandbox));
    expect(res.code, res.output).toBe(0);
    const lines = screenLines(res.output).filter((l) => l !== '');
    expect(lines[0]).toMatch(/^REPLAY ID +START \(UTC\) +USER$/);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^\S+\/\d+ +\d{4}-\d\d-\d\d \d\d:\d\d +\S+$/);
    // Every row fits the 80 columns of the terminal: none wraps.
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    const json = await runInPty(['list', '--max', '1', '--json'], sandboxEnv(sandbox));
    expect(JSON.parse(screenLines(json.output)[0]!).replay_id).toMatch(/\//);
  });

  test('Ctrl-C: "interrupted — run the same command again to resume", no empty device folders', async () => {
    const out = join(work.dir, 'ctrl-c');
    let sent = false;
    const res = await runInPty(
      ['archive', '--out', out, '--settle', '0', '--concurrency', '2'],
      sandboxEnv(sandbox),
      80,
      (soFar, interrupt) => {
        if (!sent && /[1-9]\d* done|[1-9]\d*\/\d+ replays/.test(soFar)) {
          sent = true;
          interrupt();
        }
      },
    );
    expect(sent).toBe(true);
    expect(res.code, res.output).toBe(130);
    const lines = screenLines(res.output).filter((l) => l !== '');
    expect(lines.at(-1)).toBe('error: interrupted — run the same command again to resume');
    expect(res.output.endsWith('\r\n')).toBe(true);
    for (const entry of await readdir(out, { withFileTypes: true })) {
      if (entry.isDirectory()) expect((await readdir(join(out, entry.name))).length, entry.name).toBeGreaterThan(0);
    }
  });
});

describe('in pipes', () => {
  test('list | head -1 exits 0 with nothing on stderr', async () => {
    const res = await shell(`"${process.execPath}" "${CLI}" list | head -1`, sandboxEnv(sandbox));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout).replay_id).toMatch(/\//);
  });

  test('decode … | head -c 50 stops quietly', async () => {
    const index = (await readJson(join(packageRoot(), 'samples', 'index.json'))) as {
      replays: { files: Record<string, string[]> }[];
    };
    const files = index.replays[0]!.files['3']!.map((f) => `"${join(packageRoot(), 'samples', f)}"`);
    const res = await shell(`"${process.execPath}" "${CLI}" decode ${files.join(' ')} | head -c 50`, cleanEnv());
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    expect(res.stdout).toHaveLength(50);
    expect(existsSync(CLI)).toBe(true);
  });
});
