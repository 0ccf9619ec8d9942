/**
 * `npm run release:check` (scripts/release-check.mjs): the repository's package.json, package-lock.json and CHANGELOG.md
 * agree, and each way of disagreeing is refused with a line naming it — run on copies of the three files, changed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const run = promisify(execFile);
const root = packageRoot();
const SCRIPT = join(root, 'scripts', 'release-check.mjs');
const FILES = ['package.json', 'package-lock.json', 'CHANGELOG.md'] as const;
type Files = Record<(typeof FILES)[number], string>;

let dir = '';
let original: Files;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'release-check-'));
  original = Object.fromEntries(
    await Promise.all(FILES.map(async (f) => [f, await readFile(join(root, f), 'utf8')])),
  ) as Files;
});

afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

/** Runs the check on the repository's files changed by `change`; its exit code and stderr. */
async function check(change: (files: Files) => Partial<Files>, ...flags: string[]): Promise<[number, string]> {
  const files = { ...original, ...change({ ...original }) };
  for (const f of FILES) await writeFile(join(dir, f), files[f]);
  return run(process.execPath, [SCRIPT, '--root', dir, ...flags]).then(
    () => [0, ''],
    (err: { code: number; stderr: string }) => [err.code, err.stderr],
  );
}

const withVersion = (json: string, version: string): string =>
  JSON.stringify({ ...(JSON.parse(json) as object), version });

describe('release:check', () => {
  test('the repository as it is passes', async () => {
    expect(await check(() => ({}))).toEqual([0, '']);
  });

  test("package.json's version not the CHANGELOG's top section", async () => {
    const [code, stderr] = await check((f) => ({
      'package.json': withVersion(f['package.json'], '9.9.9'),
      'package-lock.json': f['package-lock.json'].replace(/"version": "[^"]+"/, '"version": "9.9.9"'),
    }));
    expect(code).toBe(1);
    expect(stderr).toMatch(/CHANGELOG\.md's top section is \[\S+\] \(line \d+\), package\.json's version 9\.9\.9/);
  });

  test('an [Unreleased] section above the version, as on main before this check', async () => {
    const [code, stderr] = await check((f) => ({
      'CHANGELOG.md': f['CHANGELOG.md'].replace(/^## \[/m, '## [Unreleased]\n\n- a change\n\n## ['),
    }));
    expect(code).toBe(1);
    expect(stderr).toMatch(/top section is \[Unreleased\]/);
  });

  test('a released version below the top without a date, or versions out of order', async () => {
    const [code, stderr] = await check((f) => ({
      'CHANGELOG.md': f['CHANGELOG.md'].replace(/^## \[0\.1\.0\] - \S+$/m, '## [0.3.0]'),
    }));
    expect(code).toBe(1);
    expect(stderr).toMatch(/\[0\.3\.0\] \(line \d+\) is below the top and not dated/);
    expect(stderr).toMatch(/is not a later version than \[0\.3\.0\]/);
  });

  test('package-lock.json of another version', async () => {
    const [code, stderr] = await check((f) => ({ 'package-lock.json': withVersion(f['package-lock.json'], '0.0.1') }));
    expect(code).toBe(1);
    expect(stderr).toMatch(/package-lock\.json is 0\.0\.1, package\.json /);
  });

  test('missing metadata, and a prepare script (every install would run it)', async () => {
    const [code, stderr] = await check((f) => {
      const pkg = JSON.parse(f['package.json']) as { repository?: unknown; scripts: Record<string, string> };
      delete pkg.repository;
      pkg.scripts.prepare = 'tsc -p tsconfig.json';
      return { 'package.json': JSON.stringify(pkg) };
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/package\.json has no "repository"/);
    expect(stderr).toMatch(/"prepare" script/);
  });

  test('--publish (prepublishOnly) refuses an undated top section, and takes a dated one', async () => {
    const undated = await check((f) => ({
      'CHANGELOG.md': f['CHANGELOG.md'].replace(/^(## \[[^\]]+\]) - \S+$/m, '$1 - Unreleased'),
    }));
    expect(undated).toEqual([0, '']);
    const [code, stderr] = await check(
      (f) => ({ 'CHANGELOG.md': f['CHANGELOG.md'].replace(/^(## \[[^\]]+\]) - \S+$/m, '$1 - Unreleased') }),
      '--publish',
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/is not dated: date it to publish/);
    const dated = await check(
      (f) => ({ 'CHANGELOG.md': f['CHANGELOG.md'].replace(/^(## \[[^\]]+\]) - \S+$/m, '$1 - 2026-12-31') }),
      '--publish',
    );
    expect(dated).toEqual([0, '']);
  });
});
