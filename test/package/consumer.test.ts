/**
 * The package as a user gets it: `npm pack` of this checkout (dist/ as `npm test` built it), installed from the
 * tarball into a fresh project outside the repository (`npm install <tarball> --prefer-offline`: the dependencies come
 * from the npm cache that installing this repository filled, the registry only for what is missing). Then:
 *   - every entry imports, and requires from CommonJS (require(esm), Node ≥ 20.19), with the same names;
 *   - the entries and every runnable example of README.md and docs/*.md type-check with `strict`,
 *     `skipLibCheck: false`, Node's types and no DOM library;
 *   - each example runs as written (compiled by that tsc) against a started sandbox, whose endpoint and keys it gets
 *     the way the README tells users: PLATFORM_ENDPOINT, PLATFORM_API_KEY, PLATFORM_SECRET_KEY,
 *     PLATFORM_MANAGEMENT_KEY. README first, then docs/ in name order, all in one folder (docs/VERIFY.md's example
 *     checks the archive the README's `archiveReplays` example made).
 * A block fenced ```ts or ```js is a runnable example; ```ts continued goes on the block before it (one program);
 * ```ts signatures (an API listing) and ```js browser (code for a page) are not run here.
 * One pack and one install for the whole file.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { packageRoot } from '../../src/util/package-root.js';

const run = promisify(execFile);
const root = packageRoot();
const ENTRIES = ['', '/decoders', '/sinks', '/clients', '/archive', '/view', '/sandbox', '/redaction'].map((s) => `replay-export${s}`);

interface Example {
  name: string;
  code: string;
}

/** The runnable examples of one Markdown document, in order (a `continued` block joined to the one before). */
export function examplesOf(doc: string, text: string): Example[] {
  const out: Example[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(ts|js)( continued)?$/.exec(lines[i]!);
    if (lines[i]!.startsWith('```') && lines[i] !== '```') {
      const end = lines.indexOf('```', i + 1);
      if (fence !== null) {
        const code = lines.slice(i + 1, end).join('\n');
        const last = out.at(-1);
        if (fence[2] !== undefined && last !== undefined) last.code += `\n${code}`;
        else out.push({ name: `${doc.replace(/[^A-Za-z0-9]+/g, '-')}-line-${i + 1}`, code });
      }
      i = end;
    }
  }
  return out;
}

let dir = '';
let project = '';
let sandbox: Sandbox | undefined;
let examples: Example[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-consumer-'));
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root });
  const tarball = join(dir, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
  project = join(dir, 'project');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: project });

  const docs = (await readdir(join(root, 'docs'))).filter((f) => f.endsWith('.md')).sort();
  for (const doc of ['README.md', ...docs.map((f) => `docs/${f}`)]) examples.push(...examplesOf(doc, await readFile(join(root, doc), 'utf8')));
  for (const e of examples) await writeFile(join(project, `${e.name}.ts`), `${e.code}\nexport {};\n`);
  await writeFile(join(project, 'entries.ts'), [...ENTRIES.map((s, i) => `import * as e${i} from '${s}';`), `export const all = [${ENTRIES.map((_, i) => `e${i}`).join(', ')}];`, ''].join('\n'));
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')], // Node's types from this repository: the project installs none
    strict: true,
    skipLibCheck: false,
    outDir: 'out',
    rootDir: '.',
  };
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
  sandbox = await startSandbox({});
}, 600_000);

afterAll(async () => {
  await sandbox?.close();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

/** Runs `code` in the project with `node`, as ESM (`.mjs`) or CommonJS (`.cjs`); its stdout. */
async function nodeIn(file: string, code: string): Promise<string> {
  await writeFile(join(project, file), code);
  return (await run(process.execPath, [file], { cwd: project })).stdout;
}

describe('the installed tarball', () => {
  test('every entry imports, and requires from CommonJS with the same names', async () => {
    const list = JSON.stringify(ENTRIES);
    const imported = await nodeIn('import.mjs', `const out = {}; for (const s of ${list}) out[s] = Object.keys(await import(s)).sort(); console.log(JSON.stringify(out));`);
    const required = await nodeIn('require.cjs', `const out = {}; for (const s of ${list}) out[s] = Object.keys(require(s)).sort(); console.log(JSON.stringify(out));`);
    const names = JSON.parse(imported) as Record<string, string[]>;
    expect(names['replay-export']).toContain('replayEvents');
    expect(JSON.parse(required)).toEqual(names);
  });

  test('the entries and the examples type-check: strict, skipLibCheck false, no DOM library', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(11);
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).then(
      () => '',
      (err: { stdout?: string; message: string }) => err.stdout || err.message,
    );
    expect(result, 'tsc on the installed package and the examples').toBe('');
  }, 300_000);

  test('each README and docs example runs as written against the sandbox', async () => {
    const env = {
      ...process.env,
      PLATFORM_ENDPOINT: sandbox!.url,
      PLATFORM_API_KEY: sandbox!.credentials.apiKey,
      PLATFORM_SECRET_KEY: sandbox!.credentials.secretKey,
      PLATFORM_MANAGEMENT_KEY: sandbox!.credentials.managementKey,
    };
    for (const e of examples) {
      const result = await run(process.execPath, [join('out', `${e.name}.js`)], { cwd: project, env, timeout: 120_000 }).then(
        () => 'ran',
        (err: { stderr?: string; message: string }) => `${e.name} failed: ${err.stderr || err.message}`,
      );
      expect(result, e.name).toBe('ran');
    }
  }, 600_000);
});
