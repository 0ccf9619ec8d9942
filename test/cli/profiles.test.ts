/**
 * The profile store (`auth login|status|logout`, `--profile`, `PLATFORM_PROFILE`): a file of mode 0600 in a 0700
 * folder under XDG_CONFIG_HOME, keys never printed, and the profile as a source below the environment and the flags,
 * against a real sandbox.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { tempDir } from '../pipeline/helpers.js';
import { CLI, cleanEnv, runCliInProcess } from './cli-helpers.js';

/**
 * `auth login` on a terminal (util-linux `script`), typing each answer when its question shows; everything the
 * terminal showed, and the exit code.
 */
function loginOnTerminal(env: NodeJS.ProcessEnv, answers: string[]): Promise<{ code: number | null; output: string }> {
  const command = `exec ${[process.execPath, CLI, 'auth', 'login', '--profile', 'tty'].map((a) => `'${a}'`).join(' ')}`;
  const child = spawn('script', ['-qefc', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const questions = ['API key: ', 'Secret key: '];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
    while (questions.length > 0 && output.includes(questions[0]!)) {
      output = output.replace(questions.shift()!, `<asked ${2 - questions.length}>`);
      child.stdin.write(`${answers.shift()}\r`);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
let config = '';
let store = '';
beforeAll(async () => {
  sandbox = await startSandbox({});
  work = await tempDir('replay-export-profiles-');
  config = join(work.dir, 'config');
  store = join(config, 'replay-export', 'profiles.json');
});
afterAll(async () => {
  await sandbox.close();
  await work.cleanup();
});

/** Runs the CLI with the store under `config` and `extra` in the environment; `stdin` as given. */
function cli(args: string[], extra: Record<string, string> = {}, stdin?: string) {
  return runCliInProcess(args, { env: cleanEnv({ XDG_CONFIG_HOME: config, ...extra }), ...(stdin ? { stdin } : {}) });
}

describe('auth login, status, logout', () => {
  test('login stores the keys (stdin) and the endpoint in a 0600 file of a 0700 folder; nothing prints a key', async () => {
    const { apiKey, secretKey } = sandbox.credentials;
    const login = await cli(['--endpoint', sandbox.url, 'auth', 'login'], {}, `${apiKey}\n${secretKey}\n`);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`saved profile default (api key, secret key, endpoint ${sandbox.url}) in ${store}`);
    expect((await stat(store)).mode & 0o777).toBe(0o600);
    expect((await stat(join(config, 'replay-export'))).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(store, 'utf8'))).toEqual({
      profiles: { default: { api_key: apiKey, secret_key: secretKey, endpoint: sandbox.url } },
    });
    const named = await cli(['auth', 'login', '--profile', 'other', '--api-key', 'k2', '--secret-key', 's2']);
    expect(named.code, named.stderr).toBe(0);
    const status = await cli(['auth', 'status'], { PLATFORM_PROFILE: 'other' });
    expect(status.stdout).toBe(
      `default: api key, secret key, endpoint ${sandbox.url}\nother (in use): api key, secret key\n`,
    );
    for (const out of [login, named, status]) {
      for (const secret of [apiKey, secretKey, 'k2', 's2']) expect(out.stdout + out.stderr).not.toContain(secret);
    }
  });

  test('on a terminal, login asks for each key and echoes neither', async () => {
    const env = cleanEnv({ XDG_CONFIG_HOME: config });
    const { code, output } = await loginOnTerminal(env, ['tty-api-key-1', 'tty-secret-key-2']);
    expect(code, output).toBe(0);
    expect(output).toContain('<asked 1>');
    expect(output).toContain('<asked 2>');
    expect(output).toContain('saved profile tty (api key, secret key)');
    expect(output).not.toMatch(/tty-api-key-1|tty-secret-key-2/);
    const stored = JSON.parse(await readFile(store, 'utf8')) as { profiles: Record<string, unknown> };
    expect(stored.profiles.tty).toEqual({ api_key: 'tty-api-key-1', secret_key: 'tty-secret-key-2' });
    expect((await cli(['auth', 'logout', '--profile', 'tty'])).code).toBe(0);
  });

  test('a command takes the profile: flag, then environment, then profile, then defaults', async () => {
    const listed = await cli(['list', '-n', '1', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(1);
    // The environment's key wins over the profile's (a wrong one: the API refuses it, exit 3) ...
    const env = await cli(['list', '-n', '1'], { PLATFORM_API_KEY: 'wrong-key' });
    expect(env.code, env.stderr).toBe(3);
    // ... and the flag over the environment.
    const flag = await cli(['list', '-n', '1', '--api-key', sandbox.credentials.apiKey], {
      PLATFORM_API_KEY: 'wrong-key',
    });
    expect(flag.code, flag.stderr).toBe(0);
    // The other profile (--profile, or PLATFORM_PROFILE) has no endpoint: the default region's host, not the sandbox.
    const other = await cli(['--profile', 'other', 'list', '-n', '1', '--endpoint', sandbox.url]);
    expect(other.code).toBe(3);
  });

  test('a profile named and not stored, or a store open to others, is a usage error', async () => {
    const missing = await cli(['--profile', 'nope', 'list']);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining(`no profile nope in ${store}`)]);
    const viaEnv = await cli(['list'], { PLATFORM_PROFILE: 'nope' });
    expect(viaEnv.code).toBe(2);
    await chmod(store, 0o644);
    const open = await cli(['list', '-n', '1']);
    expect([open.code, open.stderr]).toEqual([2, expect.stringContaining(`(mode 0644): chmod 600 ${store}`)]);
    await chmod(store, 0o600);
  });

  test('logout removes a profile; without profiles a command needs keys as before', async () => {
    expect((await cli(['auth', 'logout', '--profile', 'other'])).code).toBe(0);
    expect((await cli(['auth', 'logout'])).code).toBe(0);
    expect((await cli(['auth', 'logout'])).code).toBe(2);
    const none = await cli(['list']);
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining('missing credentials')]);
    await mkdir(join(config, 'replay-export'), { recursive: true });
    await writeFile(store, 'not json', { mode: 0o600 });
    expect((await cli(['list'])).code).toBe(2);
  });
});
