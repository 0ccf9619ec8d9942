/**
 * The CLI loads what the command it runs uses: `--version` and `decode` load no sandbox, no API client, no viewer and
 * no AWS SDK (counted with a module loader hook in a process of their own: the test's process has them all loaded).
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tempDir } from '../pipeline/helpers.js';
import { CLI, cleanEnv } from './cli-helpers.js';

let work: { dir: string; cleanup: () => Promise<void> };
let hooks: string;
beforeAll(async () => {
  work = await tempDir('replay-export-lazy-');
  await writeFile(
    join(work.dir, 'hooks.mjs'),
    "import { writeSync } from 'node:fs';\nexport async function load(url, ctx, next) { writeSync(2, `LOADED ${url}\\n`); return next(url, ctx); }\n",
  );
  hooks = join(work.dir, 'register.mjs');
  await writeFile(
    hooks,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(work.dir, 'hooks.mjs')).href)});\n`,
  );
});
afterAll(async () => {
  await work.cleanup();
});

/** The modules a run of the CLI with `args` loaded (file URLs), and its exit code. */
function loaded(args: string[]): Promise<{ code: number | null; modules: string[] }> {
  const child = spawn(process.execPath, ['--import', pathToFileURL(hooks).href, CLI, ...args], {
    env: cleanEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, modules: [...stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1]!) }));
  });
}

/** What `--version` and `decode` must not load. */
const HEAVY = [
  /\/src\/sandbox\//,
  /\/src\/clients\//,
  /\/src\/view\//,
  /\/src\/verify\//,
  /@aws-sdk\//,
  /\/bin\/cli\/commands\/(?!decode)/,
];

describe('lazy loading', () => {
  test('--version loads the version line and little else', async () => {
    const { code, modules } = await loaded(['--version']);
    expect(code).toBe(0);
    expect(modules.some((m) => m.endsWith('/bin/cli/version.js'))).toBe(true);
    for (const heavy of HEAVY) expect(modules.filter((m) => heavy.test(m))).toEqual([]);
    expect(modules.filter((m) => m.includes('/dist/src/pipeline/'))).toEqual([]);
  });

  test('archive and list load their command, not verify, forget or find (the public barrel)', async () => {
    for (const command of ['archive', 'list']) {
      const { code, modules } = await loaded([command, '--help']);
      expect(code).toBe(0);
      expect(modules.some((m) => m.endsWith(`/bin/cli/commands/${command}.js`))).toBe(true);
      const others = /\/src\/verify\/|\/src\/pipeline\/(find|forget)\.js$|\/src\/archive\.js$/;
      expect(modules.filter((m) => others.test(m))).toEqual([]);
    }
  });

  test('decode loads its command, not the sandbox, the clients, the viewer or the AWS SDK', async () => {
    const { code, modules } = await loaded(['decode', join(work.dir, 'hooks.mjs')]);
    expect(code).toBe(1);
    expect(modules.some((m) => m.endsWith('/bin/cli/commands/decode.js'))).toBe(true);
    for (const heavy of HEAVY) expect(modules.filter((m) => heavy.test(m))).toEqual([]);
  });
});
