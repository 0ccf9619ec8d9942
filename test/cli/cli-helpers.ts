import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { main } from '../../bin/cli/program.js';
import { packageRoot } from '../../src/util/package-root.js';

export const CLI = join(packageRoot(), 'dist', 'bin', 'replay-export.js');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Environment without any PLATFORM_* variable of the developer's shell, nor their profile store (XDG_CONFIG_HOME is
 * a folder that does not exist), plus `extra`.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { XDG_CONFIG_HOME: join(tmpdir(), 'replay-export-tests-no-config') };
  for (const [k, v] of Object.entries(process.env)) {
    if (
      !k.startsWith('PLATFORM_') &&
      (!k.startsWith('REPLAY_EXPORT_') || k === 'REPLAY_EXPORT_CATALOGUE_DIR') &&
      k !== 'JOB_COMPLETION_INDEX' &&
      k !== 'XDG_CONFIG_HOME' &&
      k !== 'AWS_BATCH_JOB_ARRAY_INDEX'
    )
      env[k] = v;
  }
  return { ...env, ...extra };
}

/** A clean environment pointing the CLI at a sandbox (credentials and endpoint). */
export function sandboxEnv(sb: { url: string; credentials: { apiKey: string; secretKey: string } }): NodeJS.ProcessEnv {
  return cleanEnv({
    PLATFORM_API_KEY: sb.credentials.apiKey,
    PLATFORM_SECRET_KEY: sb.credentials.secretKey,
    PLATFORM_ENDPOINT: sb.url,
  });
}

/**
 * Runs the CLI with `args`. `launcher`: a command that runs the CLI's command line it is given after its own
 * arguments (`['prlimit', '--fsize=100']`, `['/bin/sh', '-c', '... exec "$@"', 'sh']`), in the same process.
 */
export function spawnCli(
  args: string[],
  env: NodeJS.ProcessEnv = cleanEnv(),
  launcher: readonly string[] = [],
  stdin: 'ignore' | 'pipe' = 'ignore',
): { child: ChildProcess; done: Promise<RunResult> } {
  const line = [...launcher, process.execPath, CLI, ...args];
  const child = spawn(line[0]!, line.slice(1), { env, stdio: [stdin, 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Starts `view` (or any command that prints its URL on a line of its own) and resolves once the URL is printed. */
export async function spawnView(
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; done: Promise<RunResult>; url: string }> {
  const { child, done } = spawnCli(args, env);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const line = /^(http:\/\/127\.0\.0\.1:\d+\/)\n/m.exec(out);
      if (line) resolve(line[1]!);
    });
    child.on('close', () => reject(new Error(`${args[0]} ended before printing its URL: ${out}`)));
  });
  return { child, done, url };
}

/** Runs the built CLI in a process of its own (for what only a process shows: pipes, signals, exit, limits). */
export function runCliSpawned(
  args: string[],
  env?: NodeJS.ProcessEnv,
  launcher?: readonly string[],
): Promise<RunResult> {
  return spawnCli(args, env, launcher).done;
}

/** A writable that keeps what it is given. */
function collector(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

export interface InProcessOptions {
  /** Default `cleanEnv()`. */
  env?: NodeJS.ProcessEnv;
  stdin?: string | Buffer;
  /** An interrupt (as Ctrl-C is to the process). */
  signal?: AbortSignal;
}

/**
 * Runs the CLI in this process: `main` with in-memory streams and `env` as its environment, as a wrapper would call
 * it. What only a process shows (pipes, signals, the exit once output is written, resource limits) is `spawnCli`'s.
 */
export async function runCliInProcess(args: string[], options: InProcessOptions = {}): Promise<RunResult> {
  const stdout = collector();
  const stderr = collector();
  const code = await main(['node', 'replay-export', ...args], {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    env: options.env ?? cleanEnv(),
    signal: options.signal ?? new AbortController().signal,
  });
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
}

/** Runs the CLI with `args`: in this process, or spawned with a `launcher` (see `spawnCli`). */
export function runCli(args: string[], env?: NodeJS.ProcessEnv, launcher?: readonly string[]): Promise<RunResult> {
  return launcher === undefined
    ? runCliInProcess(args, env !== undefined ? { env } : {})
    : runCliSpawned(args, env, launcher);
}

/** Every file under `dir`, as `/`-separated paths relative to it. */
export async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(relative(dir, join(e.parentPath, e.name)).split(sep).join('/'));
  }
  return out.sort();
}

export async function sha256Of(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

/** What the file outside the target holds before a test, and must hold after it. */
export const VICTIM_TEXT = 'keep me\n';

/** An empty target folder `<dir>/out` and, outside it, `<dir>/outside/victim` holding `VICTIM_TEXT`. */
export async function targetAndVictim(dir: string): Promise<{ out: string; outside: string; victim: string }> {
  const out = join(dir, 'out');
  const outside = join(dir, 'outside');
  await mkdir(out);
  await mkdir(outside);
  const victim = join(outside, 'victim');
  await writeFile(victim, VICTIM_TEXT);
  return { out, outside, victim };
}

/** The completions bash offers for `words` typed (the last one being completed), `script` sourced, in `cwd`. */
export function bashCompletions(script: string, words: string[], cwd: string): string[] {
  const body = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _replay_export_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const res = spawnSync('bash', ['-c', body], { encoding: 'utf8', cwd });
  if (res.status !== 0) throw new Error(`bash completion failed: ${res.stderr}`);
  return res.stdout.split('\n').filter((l) => l !== '');
}
