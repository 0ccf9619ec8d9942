#!/usr/bin/env node
// Builds the code that ships as a string inside the library, from TypeScript sources the compiler checks:
//
//   sinks/player/browser/*.ts → sinks/player/player-script.ts (PLAYER_SCRIPT): the player's browser code, type-checked
//     with the DOM lib (tsconfig.player.json) and joined into one script, inlined into the one-page format (the CSP
//     allows it by its hash, computed from this string when a page is built) and served by `view`.
//   src/video/browser/*.ts → src/video/encoder-script.ts (ENCODER_SCRIPT): the video encoder page's code, type-checked
//     with the DOM lib (tsconfig.video.json) and joined into one script the same way, evaluated in that page.
//   sinks/hash-worker-main.ts → sinks/hash-worker-source.ts (HASH_WORKER_SOURCE): the hashing worker as CommonJS,
//     started with `eval`, so that it runs alike from the sources (tests), dist and a bundled application.
//   src/catalogue/build-worker-main.ts → src/catalogue/build-worker-source.ts (BUILD_WORKER_SOURCE): the catalogue
//     build's thread, bundled by rolldown with the project modules it imports (rows, schema, manifest lines) into
//     one CommonJS script, started with `eval` the same way.
//
// The generated modules are committed, so that neither the library nor its users need this step.
//
//   node scripts/build-inlined.mjs           rebuild them
//   node scripts/build-inlined.mjs --check   exit 1 when one is not the build of its sources (or the browser code does not type-check)
//
// The browser modules are ES modules joined into one script by scripts/join-modules.mjs (its rules are there).

import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown, VERSION as ROLLDOWN_VERSION } from 'rolldown';
import ts from 'typescript';
import { JoinError, joinModules } from './join-modules.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The browser code built into scripts: its program's config, its folder and entry module, and the module built. */
const PLAYER = {
  what: "the player's browser code",
  config: join(root, 'tsconfig.player.json'),
  dir: join(root, 'sinks', 'player', 'browser'),
  entry: join(root, 'sinks', 'player', 'browser', 'main.ts'),
  target: join(root, 'sinks', 'player', 'player-script.ts'),
};
const ENCODER = {
  what: "the video encoder page's code",
  config: join(root, 'tsconfig.video.json'),
  dir: join(root, 'src', 'video', 'browser'),
  entry: join(root, 'src', 'video', 'browser', 'encoder-page.ts'),
  target: join(root, 'src', 'video', 'encoder-script.ts'),
};
const WORKER_SOURCE = join(root, 'sinks', 'hash-worker-main.ts');
const WORKER_TARGET = join(root, 'sinks', 'hash-worker-source.ts');
const BUILD_WORKER_SOURCE = join(root, 'src', 'catalogue', 'build-worker-main.ts');
const BUILD_WORKER_TARGET = join(root, 'src', 'catalogue', 'build-worker-source.ts');

const rel = (path) => relative(root, path).split('\\').join('/');

/** Why the build cannot be done (the message says what to change). */
class BuildError extends Error {}

/** The program of browser code (its tsconfig, with the DOM lib); fails with the compiler's diagnostics. */
function browserProgram(code) {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    code.config,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail(code, [d]) },
  );
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const diagnostics = [...parsed.errors, ...ts.getPreEmitDiagnostics(program)];
  if (diagnostics.length > 0) fail(code, diagnostics);
  return program;
}

function fail(code, diagnostics) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  throw new BuildError(`${code.what} does not compile:\n${ts.formatDiagnostics(diagnostics, host)}`);
}

/** Every name a browser global has (from the DOM and ES libs): a module's top-level name may not hide one. */
function globalNames(program, entryPath) {
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(entryPath);
  const names = new Set();
  for (const symbol of checker.getSymbolsInScope(entry, ts.SymbolFlags.Value)) {
    const decls = symbol.declarations ?? [];
    if (decls.length > 0 && decls.every((d) => program.isSourceFileDefaultLibrary(d.getSourceFile())))
      names.add(symbol.name);
  }
  return names;
}

/** Browser code's modules joined into one script, dependencies first. */
async function browserScript(code) {
  const program = browserProgram(code);
  const read = (path) => {
    const file = program.getSourceFile(path);
    if (file === undefined) throw new BuildError(`${rel(path)} is imported but not in ${rel(code.config)}`);
    return file.text;
  };
  const globals = globalNames(program, code.entry);
  const { script, files } = await joinModules({ entry: code.entry, read, globals, root });
  // Inlined into <script>: a closing tag or a comment opening inside would end or change the element.
  if (/<\/script|<!--/i.test(script))
    throw new BuildError(`${code.what} contains \`</script\` or \`<!--\` and cannot be inlined`);
  return { script, files };
}

/** The modules the script was joined from, for the generated module's first line. */
const sourcesOf = (code, files) =>
  `${rel(code.dir)}/*.ts (${files.map((f) => f.slice(rel(code.dir).length + 1)).join(', ')})`;

/** The hashing worker as CommonJS; it may require only Node's own modules. */
async function workerScript() {
  const js = ts.transpileModule(await readFile(WORKER_SOURCE, 'utf8'), {
    fileName: WORKER_SOURCE,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      verbatimModuleSyntax: false,
      esModuleInterop: false,
    },
  }).outputText;
  onlyNodeModules(js, WORKER_SOURCE);
  return js;
}

/** Refuses a script that requires anything but Node's own modules: it runs from a string. */
function onlyNodeModules(js, source) {
  for (const [, spec] of js.matchAll(/\brequire\((["'][^"']*["'])\)/g)) {
    if (!JSON.parse(spec.replace(/^'|'$/g, '"')).startsWith('node:'))
      throw new BuildError(
        `${rel(source)} requires ${spec}: the worker runs from a string and can load only node: modules`,
      );
  }
}

/**
 * The catalogue build's thread as one CommonJS script: its module and the project modules it imports, bundled;
 * Node's own modules required. A package import is refused (it would not be there beside a bundled application).
 */
async function buildWorkerScript() {
  const bundle = await rolldown({
    input: BUILD_WORKER_SOURCE,
    platform: 'node',
    cwd: root,
    logLevel: 'silent',
    external: (id) => id.startsWith('node:'),
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    onLog(_level, log) {
      throw new BuildError(`${rel(BUILD_WORKER_SOURCE)} does not bundle: ${log.message}`);
    },
  });
  try {
    const { output } = await bundle.generate({ format: 'cjs', comments: { legal: false, annotation: false } });
    const js = output[0].code;
    onlyNodeModules(js, BUILD_WORKER_SOURCE);
    const modules = Object.keys(output[0].modules)
      .map((id) => rel(id))
      .filter((id) => !id.startsWith('\0'));
    return { js, modules };
  } finally {
    await bundle.close();
  }
}

/** A module exporting `text` as a string constant, one source line per line of the text. */
function stringModule({ from, name, doc, text, by = `TypeScript ${ts.version}` }) {
  const lines = text.split('\n').map((line) => `  ${JSON.stringify(line)},`);
  return [
    `// Generated by scripts/build-inlined.mjs from ${from} (${by}).`,
    '// Do not edit: change the sources and run `npm run build:inlined`.',
    '',
    `/** ${doc} */`,
    `export const ${name} = [`,
    ...lines,
    "].join('\\n');",
    '',
  ].join('\n');
}

async function targets() {
  const player = await browserScript(PLAYER);
  const encoder = await browserScript(ENCODER);
  const worker = await workerScript();
  const buildWorker = await buildWorkerScript();
  return [
    {
      path: PLAYER.target,
      text: stringModule({
        from: sourcesOf(PLAYER, player.files),
        name: 'PLAYER_SCRIPT',
        doc: "The player's browser code, one script: inlined into the one-page format and served by `view` as player.js.",
        text: player.script,
      }),
    },
    {
      path: ENCODER.target,
      text: stringModule({
        from: sourcesOf(ENCODER, encoder.files),
        name: 'ENCODER_SCRIPT',
        doc: "The video encoder page's code, one script: evaluated in that page, it sets the page's `__video` (browser/encoder-api.ts).",
        text: encoder.script,
      }),
    },
    {
      path: WORKER_TARGET,
      text: stringModule({
        from: rel(WORKER_SOURCE),
        name: 'HASH_WORKER_SOURCE',
        doc: 'The hashing worker (CommonJS), started with `new Worker(HASH_WORKER_SOURCE, { eval: true })`.',
        text: worker,
      }),
    },
    {
      path: BUILD_WORKER_TARGET,
      text: stringModule({
        from: `${rel(BUILD_WORKER_SOURCE)} and the modules it imports (${buildWorker.modules.filter((m) => m !== rel(BUILD_WORKER_SOURCE)).join(', ')})`,
        by: `rolldown ${ROLLDOWN_VERSION}`,
        name: 'BUILD_WORKER_SOURCE',
        doc: "The catalogue build's thread (CommonJS), started with `new Worker(BUILD_WORKER_SOURCE, { eval: true })`.",
        text: buildWorker.js,
      }),
    },
  ];
}

const check = process.argv.includes('--check');
try {
  let stale = false;
  for (const { path, text } of await targets()) {
    const current = await readFile(path, 'utf8').catch(() => '');
    if (current === text) process.stdout.write(`${rel(path)}: up to date\n`);
    else if (check) {
      process.stderr.write(`${rel(path)} is not the build of its sources: run \`npm run build:inlined\`\n`);
      stale = true;
    } else {
      await writeFile(path, text);
      process.stdout.write(`${rel(path)}: written\n`);
    }
  }
  if (stale) process.exit(1);
} catch (err) {
  if (!(err instanceof BuildError || err instanceof JoinError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
