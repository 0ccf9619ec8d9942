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
 * ```ts signatures (an API listing) is not run. A ```js browser block runs in a page of Chromium that loads rrweb from
 * the project's node_modules and has `<div id="player">`, served from the project folder. A ```sh block whose
 * commands are all `npx replay-export --sandbox …` (and `cat` heredocs) runs with bash in the project: the installed
 * bin, through npx, without network.
 * Also: the default install is lean (no video packages, no rrweb, ≤ 40 MiB of node_modules, nothing run at install);
 * the entries' types resolve under `moduleResolution: node10` and from a CommonJS project on `module: nodenext`; `video`
 * without its optional peer packages names them and the command that installs them, and that command, run as printed,
 * makes `video` work.
 * One pack and one install for the whole file (~20 s of the file's ~45 s; the install takes the dependencies from the
 * npm cache that `npm ci` of this repository filled, so the registry is asked only for what is missing).
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { packageRoot } from '../../src/util/package-root.js';

const run = promisify(execFile);
const root = packageRoot();
const ENTRIES = ['', '/decoders', '/sinks', '/clients', '/archive', '/view', '/sandbox', '/redaction'].map(
  (s) => `replay-export${s}`,
);
/** Every entry, `/video` too (its types need none of the optional packages). */
const ALL_ENTRIES = [...ENTRIES, 'replay-export/video'];
/** The issue's bound for a default install's node_modules (it was 139 MB with the video packages). */
const MAX_INSTALL_BYTES = 40 * 1024 * 1024;
const VIDEO_PACKAGES = ['playwright-core', '@sparticuz/chromium', 'mediabunny'];

/** What a folder takes on a disk of 4 KiB blocks, as `du` counts it: each file and folder rounded up to a block. */
async function diskUsage(path: string): Promise<number> {
  const stat = await lstat(path);
  const own = Math.ceil(stat.size / 4096) * 4096;
  if (!stat.isDirectory()) return own;
  let total = own;
  for (const name of await readdir(path)) total += await diskUsage(join(path, name));
  return total;
}

/** A module that imports every entry, for a type check of them alone. */
function entriesModule(entries: readonly string[]): string {
  return [
    ...entries.map((s, i) => `import * as e${i} from '${s}';`),
    `export const all = [${entries.map((_, i) => `e${i}`).join(', ')}];`,
    '',
  ].join('\n');
}

interface PackageJson {
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

interface Example {
  name: string;
  code: string;
}

/** The blocks of one Markdown document fenced exactly ```<info>, in order. */
function blocksOf(doc: string, text: string, info: string): Example[] {
  const lines = text.split('\n');
  const out: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== `\`\`\`${info}`) continue;
    const end = lines.indexOf('```', i + 1);
    out.push({ name: `${doc.replace(/[^A-Za-z0-9]+/g, '-')}-line-${i + 1}`, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return out;
}

/** A shell block the test can run: every command is the installed CLI against its own sandbox, or a `cat` heredoc. */
function sandboxOnly(code: string): boolean {
  const commands = code
    .replace(/<<'EOF'\n[\s\S]*?\nEOF/g, '')
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim());
  const real = commands.filter((l) => l !== '' && !l.startsWith('#'));
  return real.length > 0 && real.every((l) => l.startsWith('npx replay-export --sandbox ') || /^cat > \S+$/.test(l));
}

/** The runnable examples of one Markdown document, in order (a `continued` block joined to the one before). */
function examplesOf(doc: string, text: string): Example[] {
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
let installLog = '';
let sandbox: Sandbox | undefined;
const examples: Example[] = [];
const browserExamples: Example[] = [];
const shellExamples: Example[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-consumer-'));
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root });
  const tarball = join(dir, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
  project = join(dir, 'project');
  await mkdir(project);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
  );
  // Scripts allowed, as a user installs: the package must have none to run.
  const installed = await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: project,
  });
  installLog = installed.stdout + installed.stderr;

  const docs = (await readdir(join(root, 'docs'))).filter((f) => f.endsWith('.md')).sort();
  for (const doc of ['README.md', ...docs.map((f) => `docs/${f}`)]) {
    const text = await readFile(join(root, doc), 'utf8');
    examples.push(...examplesOf(doc, text));
    browserExamples.push(...blocksOf(doc, text, 'js browser'));
    shellExamples.push(...blocksOf(doc, text, 'sh').filter((b) => sandboxOnly(b.code)));
  }
  for (const e of examples) await writeFile(join(project, `${e.name}.ts`), `${e.code}\nexport {};\n`);
  await writeFile(join(project, 'entries.ts'), entriesModule(ENTRIES));
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
  // Older and CommonJS set-ups, each in a folder of its own with every entry imported.
  const older = {
    node10: { module: 'CommonJS', moduleResolution: 'node10', esModuleInterop: true },
    cjs: { module: 'NodeNext', moduleResolution: 'NodeNext' },
  };
  for (const [name, options] of Object.entries(older)) {
    await mkdir(join(project, name));
    await writeFile(join(project, name, 'entries.ts'), entriesModule(ALL_ENTRIES));
    const config = { ...compilerOptions, ...options, outDir: 'out', rootDir: '.' };
    await writeFile(
      join(project, name, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: config, include: ['*.ts'] }),
    );
  }
  await writeFile(join(project, 'cjs', 'package.json'), JSON.stringify({ type: 'commonjs' }));
  const node20 = { ...compilerOptions, module: 'Node20', moduleResolution: 'Node16', noEmit: true };
  await writeFile(
    join(project, 'cjs', 'tsconfig.node20.json'),
    JSON.stringify({ compilerOptions: node20, include: ['*.ts'] }),
  );
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

/** Runs an example in the project; it must exit 0 (its stderr is the failure's message otherwise). */
async function expectRuns(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const result = await run(command, args, { cwd: project, env, timeout: 120_000 }).then(
    () => 'ran',
    (err: { stderr?: string; message: string }) => `${name} failed: ${err.stderr || err.message}`,
  );
  expect(result, name).toBe('ran');
}

/** Runs the repository's tsc on a tsconfig of the project; its diagnostics ('' when none). */
async function typeCheck(config: string): Promise<string> {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return run(process.execPath, [tsc, '-p', config], { cwd: project }).then(
    () => '',
    (err: { stdout?: string; message: string }) => err.stdout || err.message,
  );
}

describe('a default install', () => {
  test('holds no video package and no rrweb, takes at most 40 MiB, and runs nothing', async () => {
    const installed = await readdir(join(project, 'node_modules'), { recursive: true });
    for (const name of [...VIDEO_PACKAGES, 'rrweb', 'rrdom', 'rrweb-snapshot']) expect(installed).not.toContain(name);
    const bytes = await diskUsage(join(project, 'node_modules'));
    expect(bytes, `node_modules: ${(bytes / 2 ** 20).toFixed(1)} MiB`).toBeLessThanOrEqual(MAX_INSTALL_BYTES);
    // npm names a package whose install scripts (preinstall, install, postinstall, prepare) it runs or holds back.
    expect(installLog).not.toMatch(/install-scripts|prepare/);
  });

  test('types resolve under moduleResolution node10 and from a CommonJS project on module nodenext or node20', async () => {
    expect(await typeCheck('node10/tsconfig.json'), 'node10').toBe('');
    expect(await typeCheck('cjs/tsconfig.json'), 'CommonJS, nodenext').toBe('');
    expect(await typeCheck('cjs/tsconfig.node20.json'), 'CommonJS, node20').toBe('');
    // The CommonJS build runs: its require() of each entry loads the ES modules (require(esm)).
    const out = (
      await run(process.execPath, ['-e', "console.log(require('./cjs/out/entries.js').all.length)"], {
        cwd: project,
      })
    ).stdout;
    expect(out.trim()).toBe(String(ALL_ENTRIES.length));
  }, 300_000);
});

describe('the installed tarball', () => {
  test('every entry imports, and requires from CommonJS with the same names', async () => {
    const list = JSON.stringify(ENTRIES);
    const imported = await nodeIn(
      'import.mjs',
      `const out = {}; for (const s of ${list}) out[s] = Object.keys(await import(s)).sort(); console.log(JSON.stringify(out));`,
    );
    const required = await nodeIn(
      'require.cjs',
      `const out = {}; for (const s of ${list}) out[s] = Object.keys(require(s)).sort(); console.log(JSON.stringify(out));`,
    );
    const names = JSON.parse(imported) as Record<string, string[]>;
    expect(names['replay-export']).toContain('replayEvents');
    expect(JSON.parse(required)).toEqual(names);
  });

  test('the entries and the examples type-check: strict, skipLibCheck false, no DOM library', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(11);
    expect(await typeCheck('tsconfig.json'), 'tsc on the installed package and the examples').toBe('');
  }, 300_000);

  // Runs what the type-check test above emitted into out/ (tests of a file run in order).
  test('each README and docs example runs as written against the sandbox', async () => {
    const env = {
      ...process.env,
      PLATFORM_ENDPOINT: sandbox!.url,
      PLATFORM_API_KEY: sandbox!.credentials.apiKey,
      PLATFORM_SECRET_KEY: sandbox!.credentials.secretKey,
      PLATFORM_MANAGEMENT_KEY: sandbox!.credentials.managementKey,
    };
    for (const e of examples) await expectRuns(e.name, process.execPath, [join('out', `${e.name}.js`)], env);
  }, 600_000);

  // Before the shell examples: docs/VIDEO.md's run with the packages this test installs as the message says.
  test('`video` without its packages names them and the command; run as printed, it brings them and video renders', async () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('PLATFORM_') && k !== 'REPLAY_EXPORT_BROWSER'),
    );
    const id = 'ab55062f-dfc4-4c6a-bf1e-e4fbc6fdc3d3/1795308171251';
    await run('npx', ['replay-export', '--sandbox', 'export', id, '--out', 'one.json'], { cwd: project, env });
    const video = ['replay-export', 'video', 'one.json', '--out', 'one.mp4', '--to', '1s'];
    const refused = await run('npx', video, { cwd: project, env }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(refused.code).toBe(2);
    const { peerDependencies } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as PackageJson;
    const install = /: (npm install .*?) {3}\(in (.+)\)$/m.exec(refused.stderr);
    expect(install, refused.stderr).not.toBeNull();
    expect(install![2]).toBe(project);
    for (const name of VIDEO_PACKAGES) expect(install![1]).toContain(`${name}@${peerDependencies[name]}`);
    await run('bash', ['-c', `${install![1]} --prefer-offline --no-audit --no-fund`], { cwd: project });
    await run('npx', video, { cwd: project, env });
    const mp4 = await readFile(join(project, 'one.mp4'));
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
  }, 300_000);

  test("the README's and docs' sandbox commands run with the installed bin through npx", async () => {
    expect(shellExamples.length).toBeGreaterThanOrEqual(3);
    expect(shellExamples.map((e) => e.code).join('\n')).toMatch(/^npx replay-export --sandbox video /m);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PLATFORM_')));
    for (const e of shellExamples) await expectRuns(e.name, 'bash', ['-euo', 'pipefail', '-c', e.code], env);
  }, 300_000);

  test('the browser example plays an exported replay in Chromium', async () => {
    expect(browserExamples.length).toBeGreaterThanOrEqual(1);
    // The page loads rrweb, which the user installs (docs/SINKS.md): the package ships only its player bundle.
    const { rrweb } = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as PackageJson).devDependencies;
    await run('npm', ['install', `rrweb@${rrweb}`, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: project });
    // The archive the example fetches from, as the README's commands make it.
    await run(
      'npx',
      [
        'replay-export',
        '--sandbox',
        'export',
        'ab55062f-dfc4-4c6a-bf1e-e4fbc6fdc3d3/1795308171251',
        '--out',
        'replays',
      ],
      { cwd: project },
    );
    const server = createServer((req, res) => {
      const path = join(project, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      const type = /\.c?js$/.test(path) ? 'text/javascript' : path.endsWith('.json') ? 'application/json' : 'text/html';
      readFile(path).then(
        (body) => res.writeHead(200, { 'content-type': type }).end(body),
        () => res.writeHead(404).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const browser = await launchChromium();
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const e of browserExamples) {
        const page = `<!doctype html><div id="player"></div><script src="node_modules/rrweb/dist/rrweb.umd.cjs"></script>
<script type="module">try {\n${e.code}\nwindow.exampleResult = 'ran'; } catch (err) { window.exampleResult = String(err); }</script>`;
        await writeFile(join(project, `${e.name}.html`), page);
        const tab = await browser.newPage();
        await tab.goto(`${base}/${e.name}.html`);
        await tab.waitForFunction(
          () => (window as unknown as { exampleResult?: string }).exampleResult !== undefined,
          null,
          { timeout: 60_000 },
        );
        expect(await tab.evaluate(() => (window as unknown as { exampleResult: string }).exampleResult), e.name).toBe(
          'ran',
        );
        // rrweb's Replayer builds its iframe inside the root it was given.
        expect(await tab.locator('#player iframe').count(), e.name).toBe(1);
        await tab.close();
      }
    } finally {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 300_000);
});
