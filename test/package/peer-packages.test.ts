/**
 * The command `video` prints for its missing optional peers, for each way replay-export can be installed: in a
 * project, globally (a `node_modules` with no project above it), by npx; each package at package.json's range.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  installCommand,
  missingPackages,
  missingPackagesMessage,
  videoPackages,
} from '../../src/util/peer-packages.js';
import { packageRoot } from '../../src/util/package-root.js';
import { tempDir } from '../pipeline/helpers.js';

let work: { dir: string; cleanup: () => Promise<void> };
let manifest = '';
beforeAll(async () => {
  work = await tempDir('replay-export-peers-');
  manifest = await readFile(join(packageRoot(), 'package.json'), 'utf8');
});
afterAll(async () => {
  await work.cleanup();
});

/** A copy of replay-export's package.json at `root`; the folder. */
async function installedAt(...parts: string[]): Promise<string> {
  const root = join(work.dir, ...parts);
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'package.json'), manifest);
  return root;
}

describe('the install command for missing video packages', () => {
  test('in a project: npm install there, each at its peer range (quoted when the shell could read it)', async () => {
    const project = join(work.dir, 'app');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), '{"name":"app"}');
    const root = await installedAt('app', 'node_modules', 'replay-export');
    const { peerDependencies } = JSON.parse(manifest) as { peerDependencies: Record<string, string> };
    expect(installCommand(['playwright-core', '@sparticuz/chromium'], root)).toBe(
      `npm install 'playwright-core@${peerDependencies['playwright-core']}' @sparticuz/chromium@${peerDependencies['@sparticuz/chromium']}   (in ${project})`,
    );
  });

  test("pnpm's store: npm install in the project that holds it", async () => {
    await mkdir(join(work.dir, 'app'), { recursive: true });
    await writeFile(join(work.dir, 'app', 'package.json'), '{"name":"app"}');
    const root = await installedAt(
      'app',
      'node_modules',
      '.pnpm',
      'replay-export@0.2.0',
      'node_modules',
      'replay-export',
    );
    expect(installCommand(['mediabunny'], root)).toMatch(
      new RegExp(`^npm install mediabunny@\\S+ {3}\\(in ${join(work.dir, 'app')}\\)$`),
    );
  });

  test('a global install: npm install -g', async () => {
    const root = await installedAt('usr', 'lib', 'node_modules', 'replay-export');
    expect(installCommand(['mediabunny'], root)).toMatch(/^npm install -g mediabunny@\S+$/);
  });

  test('npx: the same command with -p for each package', async () => {
    const root = await installedAt('.npm', '_npx', '1a2b3c', 'node_modules', 'replay-export');
    expect(installCommand(['mediabunny'], root)).toMatch(/^npx -p replay-export -p mediabunny@\S+ replay-export …$/);
  });

  test('a named browser needs no @sparticuz/chromium; the message names every missing package at once', () => {
    expect(videoPackages(true)).toEqual(['playwright-core', 'mediabunny']);
    expect(videoPackages(false)).toEqual(['playwright-core', '@sparticuz/chromium', 'mediabunny']);
    expect(missingPackages(['vitest', 'no-such-package-here'])).toEqual(['no-such-package-here']);
    expect(missingPackagesMessage(['playwright-core', 'mediabunny'])).toMatch(
      /^videos need playwright-core and mediabunny, which are not installed \(optional peer dependencies, left out of a default install\): npm install /,
    );
  });
});
