/**
 * The fold lock of a local manifest: a process of this host that died holding it (SIGKILL mid-fold) does not keep the
 * next run from folding; a live holder does; another host's lock waits for the stale rule. Needs `dist/` built.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { thisProcess } from '../../sinks/fold-lock.js';
import { createLocalSink } from '../../sinks/local.js';
import { packageRoot } from '../../src/util/package-root.js';
import { entry } from './manifest-folds.js';

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'fold-lock-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A target with lines to fold and a `_manifest/` folder. */
async function target(): Promise<string> {
  const dir = await mkdtemp(join(base, 't-'));
  const sink = createLocalSink(dir);
  for (let i = 0; i < 5; i++) await sink.appendManifest(entry(`d/${i}`, 'ok', i));
  await sink.close();
  await mkdir(join(dir, '_manifest'), { recursive: true });
  return dir;
}

const lockPath = (dir: string): string => join(dir, '_manifest', 'compact.lock');

async function fold(dir: string): Promise<boolean> {
  const sink = createLocalSink(dir);
  try {
    return (await sink.compactManifest!({ layout: 'all' })).compacted;
  } finally {
    await sink.close();
  }
}

/** A child process that takes the fold lock of `dir` with the built package's code and holds it until killed. */
async function holder(dir: string): Promise<{ pid: number; kill: () => Promise<void> }> {
  const dist = (path: string): string => JSON.stringify(join(packageRoot(), 'dist', 'sinks', path));
  const script = `import { takeLock } from ${dist('fold-lock.js')};
    import { Target } from ${dist('target/target.js')};
    const folder = await new Target(process.argv[1]).folder('_manifest', false);
    const lock = await takeLock(folder, 'compact.lock', '.compact-lock-0c0ffee0');
    process.stdout.write(lock === undefined ? 'refused\\n' : 'held\\n');
    setInterval(() => {}, 60_000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [said] = (await once(child.stdout, 'data')) as [Buffer];
  expect(said.toString()).toBe('held\n');
  return {
    pid: child.pid!,
    kill: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('the fold lock', () => {
  test('a process killed while holding the lock does not hold it: the next fold runs at once', async () => {
    const dir = await target();
    const child = await holder(dir);
    const lock = JSON.parse(await readFile(lockPath(dir), 'utf8')) as Record<string, unknown>;
    expect(lock).toMatchObject({ pid: child.pid, host: hostname() });
    // Alive: the lock is its.
    expect(await fold(dir)).toBe(false);
    await child.kill();
    expect(await fold(dir)).toBe(true);
  });

  test('a lock naming a process id now used by another process (another start time) is taken over at once', async () => {
    const dir = await target();
    const me = await thisProcess();
    if (me.start === '') return; // Without /proc there is no start time to tell them apart.
    await writeFile(lockPath(dir), `${JSON.stringify({ ...me, start: String(Number(me.start) + 1) })}\n`);
    expect(await fold(dir)).toBe(true);
  });

  test("another host's lock is left alone until it has not been touched for 10 minutes", async () => {
    const dir = await target();
    const me = await thisProcess();
    await writeFile(lockPath(dir), `${JSON.stringify({ ...me, host: `not-${me.host}`, pid: 2 ** 22 + 1 })}\n`);
    expect(await fold(dir)).toBe(false);
    const old = new Date(Date.now() - 11 * 60_000);
    await utimes(lockPath(dir), old, old);
    expect(await fold(dir)).toBe(true);
  });

  test('a lock this code cannot read (an older format, a torn write) waits for the stale rule too', async () => {
    const dir = await target();
    await writeFile(lockPath(dir), `${process.pid} ${new Date().toISOString()}\n`);
    expect(await fold(dir)).toBe(false);
  });
});
