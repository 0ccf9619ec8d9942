import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';
import { readJson, tempDir } from '../pipeline/helpers.js';
import { cleanEnv, runCli, targetAndVictim, VICTIM_TEXT } from './cli-helpers.js';

/** The sample with the largest decoded output, its v3 files, and what `decode` prints for them. */
let files: string[];
let expected: Buffer;

beforeAll(async () => {
  const index = (await readJson(join(packageRoot(), 'samples', 'index.json'))) as {
    replays: { name: string; files: Record<string, string[]> }[];
  };
  const sample = index.replays.find((r) => r.name === 'long-scroll')!;
  files = sample.files['3']!.map((f) => join(packageRoot(), 'samples', f));
  const res = await runCli(['decode', ...files], cleanEnv());
  expect(res.code, res.stderr).toBe(0);
  expected = Buffer.from(res.stdout, 'utf8');
  expect(expected.length).toBeGreaterThan(20_000);
});

let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('replay-export-decode-');
});
afterEach(async () => {
  await work.cleanup();
});

describe('decode --out on a hostile file system', () => {
  it('a symlink planted at the predictable temporary name (and at the target) is not written through', async () => {
    const { out, victim } = await targetAndVictim(work.dir);
    // The shell plants `.ev.json.<its pid>.tmp` and then execs the CLI, which keeps that pid.
    const plant = 'ln -s "$VICTIM" "$OUT/.ev.json.$$.tmp" && exec "$@"';
    const target = join(out, 'ev.json');
    const res = await runCli(['decode', '--out', target, ...files], cleanEnv({ VICTIM: victim, OUT: out }), [
      '/bin/sh',
      '-c',
      plant,
      'sh',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
    expect((await lstat(target)).isFile()).toBe(true);
    expect((await readFile(target)).equals(expected)).toBe(true);
    // The planted link is left alone; nothing else is there.
    expect((await readdir(out)).sort()).toEqual([expect.stringMatching(/^\.ev\.json\.\d+\.tmp$/), 'ev.json'].sort());

    // A symlink at the target itself is replaced by the output, not written through.
    await symlink(victim, join(out, 'second.json'));
    const again = await runCli(['decode', '--out', join(out, 'second.json'), ...files], cleanEnv());
    expect(again.code, again.stderr).toBe(0);
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
    expect((await lstat(join(out, 'second.json'))).isFile()).toBe(true);
  });

  it('a short write is continued, and the error after it fails the command naming the target (file size limit)', async () => {
    const target = join(work.dir, 'ev.json');
    // RLIMIT_FSIZE one byte short: the final write of `]\n` writes one byte and returns 1, the next one fails (EFBIG).
    for (const limit of [expected.length - 1, Math.floor(expected.length / 2)]) {
      const res = await runCli(['decode', '--out', target, ...files], cleanEnv(), ['prlimit', `--fsize=${limit}`]);
      expect(res.code, `limit ${limit}: ${res.stderr}`).toBe(1);
      expect(res.stderr).toContain(`cannot write ${target}: EFBIG`);
      expect(res.stderr).not.toContain('.tmp');
      expect(await readdir(work.dir)).toEqual([]);
    }
    // Without the limit, the same command writes it whole.
    const res = await runCli(['decode', '--out', target, ...files], cleanEnv());
    expect(res.code, res.stderr).toBe(0);
    expect((await readFile(target)).equals(expected)).toBe(true);
  });

  it('a full file system (tmpfs) fails the command naming the target; nothing is left at the target or as a temporary file', async (ctx) => {
    const mnt = join(work.dir, 'small');
    await mkdir(mnt);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', mnt], { stdio: 'ignore' });
    } catch {
      // Mounting needs root with CAP_SYS_ADMIN (CI runs as root; a container may still refuse it).
      ctx.skip();
    }
    try {
      const target = join(mnt, 'ev.json');
      const res = await runCli(['decode', '--out', target, ...files], cleanEnv());
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toContain(`cannot write ${target}: ENOSPC`);
      expect(res.stderr).not.toContain('.tmp');
      expect(await readdir(mnt)).toEqual([]);
    } finally {
      execFileSync('umount', [mnt]);
    }
  });

  it('a file that cannot be decoded leaves nothing at the target and no temporary file', async () => {
    const target = join(work.dir, 'ev.json');
    const res = await runCli(
      ['decode', '--out', target, files[0]!, join(packageRoot(), 'samples', 'index.json')],
      cleanEnv(),
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('index.json');
    expect(await readdir(work.dir)).toEqual([]);
  });
});
