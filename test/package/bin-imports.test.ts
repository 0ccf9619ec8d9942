import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, test } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

/** The package's public entry modules (package.json `exports`), as source files. */
async function publicModules(): Promise<Set<string>> {
  const pkg = JSON.parse(await readFile(join(packageRoot(), 'package.json'), 'utf8')) as {
    exports: Record<string, { import?: string } | string>;
  };
  const out = new Set<string>();
  for (const target of Object.values(pkg.exports)) {
    if (typeof target === 'string') continue;
    out.add(target.import!.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
  }
  return out;
}

/** The relative modules `file` imports or re-exports from (`exports`: only `export ... from`), as source files. */
async function importsOf(root: string, file: string, exportsOnly = false): Promise<string[]> {
  const source = await readFile(join(root, file), 'utf8');
  const statement = exportsOnly
    ? /^\s*export\b[^'"]*?from\s+'([^']+)'/gm
    : /^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm;
  const dynamic = exportsOnly ? [] : [...source.matchAll(/\bimport\('([^']+)'\)/g)];
  return [...source.matchAll(statement), ...dynamic]
    .map((m) => m[1]!)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) =>
      relative(root, resolve(root, dirname(file), spec))
        .split(sep)
        .join('/')
        .replace(/\.js$/, '.ts'),
    );
}

/** The public entry modules and every module they re-export from, transitively: the modules of the public names. */
async function publicNameModules(root: string): Promise<Set<string>> {
  const found = await publicModules();
  const queue = [...found];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    for (const target of await importsOf(root, file, true)) {
      if (found.has(target)) continue;
      found.add(target);
      queue.push(target);
    }
  }
  return found;
}

/** Modules bin/ may import though no public name is theirs, each with its reason. */
const BIN_SUPPORT: Readonly<Record<string, string>> = {
  'sinks/temp-file.ts': "`decode --out` and a one-replay export write their file whole, as the sinks' outputs are",
  'src/util/package-root.ts': '`--version` reads the package version and loads nothing else',
  'src/sandbox/cli.ts': "the `sandbox` command's runner: the sandbox served until stopped, its URL and keys printed",
  'src/sandbox/options-flag.ts': '`sandbox --options`: any other sandbox option as key=value pairs or JSON',
  'src/util/peer-packages.ts':
    "`video` and `view`'s videos: which optional packages are missing, and how to install them",
  'src/pipeline/byte-size.ts': "the flags' sizes (`256MiB`): the CLI's form, read and shown, not published",
  'src/pipeline/duration.ts': "the flags' durations (`5m`, `1h30m`): the CLI's form, read and shown, not published",
  'src/catalogue/sqlite-warning.ts':
    "node:sqlite's ExperimentalWarning (Node 22) dropped, as the catalogue's build thread drops it, not published",
};

describe('bin/ is thin over the public entry points', () => {
  test('every import of bin/ is a dependency, a module of bin/ itself, or a module of the public names', async () => {
    const root = packageRoot();
    const allowed = await publicNameModules(root);
    const files = (await readdir(join(root, 'bin'), { recursive: true })).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(2);
    const outside: string[] = [];
    for (const file of files) {
      for (const target of await importsOf(root, join('bin', file))) {
        if (!target.startsWith('bin/') && !allowed.has(target) && BIN_SUPPORT[target] === undefined)
          outside.push(`bin/${file} imports ${target}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
