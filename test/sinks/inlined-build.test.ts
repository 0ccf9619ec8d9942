import { execFile } from 'node:child_process';
import { appendFile, cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinModules } from '../../scripts/join-modules.mjs';

const root = join(import.meta.dirname, '..', '..');
const SCRIPT = join('scripts', 'build-inlined.mjs');
/** What the build reads and writes, copied into a scratch root for the tests that change a source. */
const INPUTS = [
  SCRIPT,
  join('scripts', 'join-modules.mjs'),
  'tsconfig.player.json',
  'tsconfig.video.json',
  // The browser code, the hashing worker, and the catalogue build's thread with the project modules it bundles.
  'sinks',
  'src',
];

async function build(at: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(at, SCRIPT), ...args], { cwd: at });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the committed builds of the player, the video encoder page and the two workers', () => {
  it('are up to date: player-script.ts, encoder-script.ts, hash-worker-source.ts and build-worker-source.ts', async () => {
    const { code, stdout, stderr } = await build(root, '--check');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/player-script\.ts: up to date/);
    expect(stdout).toMatch(/encoder-script\.ts: up to date/);
    expect(stdout).toMatch(/hash-worker-source\.ts: up to date/);
    expect(stdout).toMatch(/build-worker-source\.ts: up to date/);
  });
});

describe('the build of the inlined code', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'inlined-build-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  /** A copy of the build's inputs (node_modules linked), `change` applied to it. */
  async function copy(name: string, change: (at: string) => Promise<void>): Promise<string> {
    const at = join(scratch, name);
    for (const input of INPUTS) await cp(join(root, input), join(at, input), { recursive: true });
    await symlink(join(root, 'node_modules'), join(at, 'node_modules'));
    await change(at);
    return at;
  }
  const browser = (at: string, file: string): string => join(at, 'sinks', 'player', 'browser', file);
  const encoderPage = (at: string): string => join(at, 'src', 'video', 'browser', 'encoder-page.ts');

  it('a changed source fails the check until it is rebuilt', async () => {
    const at = await copy('stale', async (at) => {
      await appendFile(browser(at, 'format.ts'), '\nexport const UNUSED_NOTE = 1;\n');
      await appendFile(join(at, 'sinks', 'hash-worker-main.ts'), '\nexport const UNUSED_NOTE = 1;\n');
      await appendFile(encoderPage(at), '\nexport const UNUSED_NOTE = 1;\n');
      // A module the catalogue build's thread bundles, not the thread's own.
      const schema = join(at, 'src', 'catalogue', 'schema.ts');
      await writeFile(
        schema,
        (await readFile(schema, 'utf8')).replace(/SCHEMA_VERSION = '([^']*)'/, "SCHEMA_VERSION = '$1-changed'"),
      );
    });
    const stale = await build(at, '--check');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/player-script\.ts is not the build of its sources/);
    expect(stale.stderr).toMatch(/hash-worker-source\.ts is not the build of its sources/);
    expect(stale.stderr).toMatch(/encoder-script\.ts is not the build of its sources/);
    expect(stale.stderr).toMatch(/build-worker-source\.ts is not the build of its sources/);
    expect(await build(at)).toMatchObject({ code: 0 });
    expect(await readFile(join(at, 'sinks', 'player', 'player-script.ts'), 'utf8')).toContain('const UNUSED_NOTE = 1;');
    expect(await readFile(join(at, 'sinks', 'hash-worker-source.ts'), 'utf8')).toContain('exports.UNUSED_NOTE = 1;');
    expect(await readFile(join(at, 'src', 'video', 'encoder-script.ts'), 'utf8')).toContain('const UNUSED_NOTE = 1;');
    expect(await readFile(join(at, 'src', 'catalogue', 'build-worker-source.ts'), 'utf8')).toContain('-changed');
  });

  it('refuses browser code that does not type-check with the DOM lib', async () => {
    const at = await copy('type-error', (at) =>
      appendFile(browser(at, 'dom.ts'), '\nexport const wrong: HTMLInputElement = document.body;\n'),
    );
    const result = await build(at);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/does not compile[\s\S]*dom\.ts[\s\S]*HTMLInputElement/);
  });

  it('refuses video encoder page code that does not type-check with the DOM lib', async () => {
    const at = await copy('encoder-type-error', (at) =>
      appendFile(encoderPage(at), '\nexport const wrong: VideoEncoder = new OffscreenCanvas(1, 1);\n'),
    );
    const result = await build(at);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/video encoder page's code does not compile[\s\S]*encoder-page\.ts/);
  });
});

describe("joining the player's modules into one script", () => {
  const dir = join(root, 'm');
  /** Joins in-memory modules (file name → source), `main.ts` first. */
  const joined = (
    sources: Record<string, string>,
    globals: string[] = [],
  ): Promise<{ script: string; files: string[] }> =>
    joinModules({
      entry: join(dir, 'main.ts'),
      read: async (path: string) => {
        const source = sources[path.slice(dir.length + 1)];
        if (source === undefined) throw new Error(`no module ${path}`);
        return source;
      },
      globals: new Set(globals),
      root,
    });

  it('puts dependencies first in one function scope, without their imports, exports and types', async () => {
    const { script, files } = await joined({
      'main.ts':
        "import { twice } from './b.js';\nimport { ONE, type Num } from './a.js';\nconst n: Num = twice(ONE);\nconsole.log(n);\n",
      'b.ts': "import { ONE } from './a.js';\nexport function twice(x: number): number { return x * 2 * ONE; }\n",
      'a.ts': 'export type Num = number;\nexport const ONE = 1;\n',
    });
    expect(files).toEqual(['m/a.ts', 'm/b.ts', 'm/main.ts']);
    expect(script).toBe(
      "(function () {\n'use strict';\n\n// ---- m/a.ts\nconst ONE = 1;\n\n// ---- m/b.ts\nfunction twice(x) { return x * 2 * ONE; }\n\n" +
        '// ---- m/main.ts\nconst n = twice(ONE);\nconsole.log(n);\n})();\n',
    );
    const logged: unknown[] = [];
    new Function('console', script)({ log: (v: unknown) => logged.push(v) });
    expect(logged).toEqual([2]);
  });

  it('refuses what one scope would change: a cycle, a shared or global name, a renamed, default or package import', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [
        {
          'main.ts': "import { a } from './a.js';\nexport const m = a;\n",
          'a.ts': "import { m } from './main.js';\nexport const a = 1;\nexport const b = () => m;\n",
        },
        /import cycle: m\/main\.ts → m\/a\.ts → m\/main\.ts/,
      ],
      [
        {
          'main.ts': "import { a } from './a.js';\nconst x = a;\nvoid x;\n",
          'a.ts': 'export const a = 1;\nexport const x = 2;\n',
        },
        /m\/main\.ts and m\/a\.ts both declare `x`/,
      ],
      [
        { 'main.ts': 'const name = 1;\nvoid name;\n' },
        /m\/main\.ts declares `name` at top level, which would hide the global/,
      ],
      [
        { 'main.ts': "import { a as b } from './a.js';\nvoid b;\n", 'a.ts': 'export const a = 1;\n' },
        /renamed imports cannot be joined/,
      ],
      [{ 'main.ts': "import a from './a.js';\nvoid a;\n", 'a.ts': 'export default 1;\n' }, /only named imports/],
      [{ 'main.ts': "import * as a from './a.js';\nvoid a;\n", 'a.ts': 'export const a = 1;\n' }, /only named imports/],
      [{ 'main.ts': "import { Replayer } from 'rrweb';\nnew Replayer([]);\n" }, /imports a value from rrweb/],
      [
        { 'main.ts': "export { x } from './a.js';\n", 'a.ts': 'export const x = 1;\n' },
        /only `export` on a declaration/,
      ],
    ];
    for (const [sources, message] of cases) await expect(joined(sources, ['name'])).rejects.toThrow(message);
  });
});
