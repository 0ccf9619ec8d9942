/**
 * The suite's projects (test/projects.ts): every test file is in exactly one, and the units stay units — no server,
 * no child process, no browser — so that `npm run test:unit` stays the fast loop it is meant to be.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PROJECTS, SHARED_GRAPH } from '../projects.js';
import { ROOT } from './import-graph.js';

const TEST_DIR = join(ROOT, 'test');

function testFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) testFiles(path, out);
    else if (entry.name.endsWith('.test.ts')) out.push(relative(TEST_DIR, path).split('\\').join('/'));
  }
  return out;
}

/** What a unit must not do, as it reads in a test file. */
const NOT_A_UNIT: readonly [what: string, pattern: RegExp][] = [
  ['a sandbox', /\bstartSandbox\(/],
  ['a server', /\bcreateServer\(|\bstartTestServer\(|\.listen\(/],
  ['s3rver', /\bs3rver\b|\bstartS3\(/i],
  // A browser is launched through an import of these (a unit may name them, e.g. in an install command).
  [
    'a browser',
    /from ['"](?:playwright-core|@sparticuz\/chromium)['"]|import\(['"](?:playwright-core|@sparticuz\/chromium)|\blaunchBrowser\(/,
  ],
  ['a child process', /node:child_process|\bspawnCli\(|\brunCliSpawned\(/],
];

/** What a file sharing its worker's module graph must not leave behind: a replaced module, a stub, fake timers. */
const LEAVES_BEHIND: readonly [what: string, pattern: RegExp, undone?: RegExp][] = [
  ['a replaced module', /\bvi\.(?:do)?mock\(/],
  ['a stubbed global', /\bvi\.stubGlobal\(/, /\bvi\.unstubAllGlobals\(/],
  ['a stubbed environment variable', /\bvi\.stubEnv\(/, /\bvi\.unstubAllEnvs\(/],
  ['fake timers', /\bvi\.useFakeTimers\(/, /\bvi\.useRealTimers\(/],
];

describe('the test projects', () => {
  test('every test file is in exactly one project, and every listed file exists', () => {
    const listed = Object.entries(PROJECTS).flatMap(([name, files]) => files.map((file) => ({ name, file })));
    const counts = new Map<string, string[]>();
    for (const { name, file } of listed) counts.set(file, [...(counts.get(file) ?? []), name]);
    const files = testFiles(TEST_DIR).sort();
    expect(files.filter((f) => !counts.has(f))).toEqual([]);
    expect([...counts.keys()].filter((f) => !files.includes(f))).toEqual([]);
    expect([...counts].filter(([, names]) => names.length > 1)).toEqual([]);
  });

  test('no unit starts a server, s3rver, a browser or a child process', () => {
    const found: string[] = [];
    // This file names the patterns; it runs none of them.
    for (const file of PROJECTS.unit.filter((f) => f !== 'architecture/test-projects.test.ts')) {
      const text = readFileSync(join(TEST_DIR, file), 'utf8');
      for (const [what, pattern] of NOT_A_UNIT) if (pattern.test(text)) found.push(`${file}: ${what}`);
    }
    expect(found).toEqual([]);
  });

  test('a file sharing its module graph leaves no replaced module, stub or fake timers behind', () => {
    const found: string[] = [];
    // This file names the patterns; it runs none of them.
    const files = SHARED_GRAPH.flatMap((name) => PROJECTS[name]).filter(
      (f) => f !== 'architecture/test-projects.test.ts',
    );
    for (const file of files) {
      const text = readFileSync(join(TEST_DIR, file), 'utf8');
      for (const [what, pattern, undone] of LEAVES_BEHIND)
        if (pattern.test(text) && (undone === undefined || !undone.test(text))) found.push(`${file}: ${what}`);
    }
    expect(found).toEqual([]);
  });
});
