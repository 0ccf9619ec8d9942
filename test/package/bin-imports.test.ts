import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
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

describe('bin/ is thin over the public entry points', () => {
  test('every import of bin/ is a dependency, a module of bin/ itself, a public entry module, or the CLI support layer (src/cli/)', async () => {
    const root = packageRoot();
    const allowed = await publicModules();
    const files = (await readdir(join(root, 'bin'), { recursive: true })).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      const source = await readFile(join(root, 'bin', file), 'utf8');
      for (const match of source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)) {
        const spec = match[1]!;
        if (!spec.startsWith('.')) continue; // node: built-ins and dependencies
        const target = relative(root, resolve(root, 'bin', file, '..', spec))
          .split(sep)
          .join('/')
          .replace(/\.js$/, '.ts');
        if (target.startsWith('bin/') || target.startsWith('src/cli/')) continue;
        expect(allowed, `${file} imports ${spec}`).toContain(target);
      }
    }
  });
});

describe('the CLI support layer', () => {
  test('src/cli/ holds re-exports only, and only bin/ imports it', async () => {
    const root = packageRoot();
    for (const file of await readdir(join(root, 'src', 'cli'))) {
      const source = await readFile(join(root, 'src', 'cli', file), 'utf8');
      const code = source
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .split('\n')
        .filter((l) => l.trim() !== '');
      for (const line of code) expect(line, `src/cli/${file}`).toMatch(/^export (type )?\{[^}]*\} from '[^']+';$/);
    }
    for (const folder of ['src', 'decoders', 'sinks']) {
      for (const file of (await readdir(join(root, folder), { recursive: true })).filter((f) => f.endsWith('.ts'))) {
        if (folder === 'src' && file.startsWith(`cli${sep}`)) continue;
        const source = await readFile(join(root, folder, file), 'utf8');
        expect(source, `${folder}/${file}`).not.toMatch(/from '[^']*\/cli\/[^']*'/);
      }
    }
  });
});
