/**
 * `main(argv, io)` as a wrapper (or a test) calls it: the io's streams, environment and signal are the command's,
 * never the process's.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { tempDir } from '../pipeline/helpers.js';
import { runCliInProcess, sandboxEnv } from './cli-helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  sandbox = await startSandbox({});
  work = await tempDir('replay-export-inproc-');
});
afterAll(async () => {
  await sandbox.close();
  await work.cleanup();
});

const stopped = (): AbortSignal => AbortSignal.abort(new InterruptedError());

describe('main with an io of its own', () => {
  test('the io env is the environment: its PLATFORM_* reach the sandbox, without them credentials are missing', async () => {
    const listed = await runCliInProcess(['list', '--max', '1'], { env: sandboxEnv(sandbox) });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({ replay_id: expect.any(String) });
    const missing = await runCliInProcess(['list', '--max', '1'], { env: {} });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing credentials: an API key (--api-key or PLATFORM_API_KEY)');
  });

  test('the io signal interrupts: exit 130, and a command that resumes says so', async () => {
    const list = await runCliInProcess(['list'], { env: sandboxEnv(sandbox), signal: stopped() });
    expect(list.code).toBe(130);
    expect(list.stderr).toBe('error: interrupted\n');
    const archive = await runCliInProcess(['archive', '--out', join(work.dir, 'a'), '--settle', '0'], {
      env: sandboxEnv(sandbox),
      signal: stopped(),
    });
    expect(archive.code).toBe(130);
    expect(archive.stderr).toContain('interrupted — run the same command again to resume');
  });

  test('help and errors of the command line go to the io streams', async () => {
    const help = await runCliInProcess(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: replay-export [options] [command]');
    const unknown = await runCliInProcess(['lsit']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'lsit'");
    // A name that every object has is no command either.
    const inherited = await runCliInProcess(['toString']);
    expect(inherited.code).toBe(2);
    expect(inherited.stderr).toContain("unknown command 'toString'");
  });
});
