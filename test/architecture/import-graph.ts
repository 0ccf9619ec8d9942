/**
 * The project's import graph, read from the sources' text: every relative `import`/`export … from` (type-only ones
 * included) and dynamic `import('…')` of the TypeScript under decoders/, sinks/, src/ and bin/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { packageRoot } from '../../src/util/package-root.js';

export const ROOT = packageRoot();

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      // AssemblyScript compiled to WebAssembly, not part of the TypeScript program.
      if (path === join(ROOT, 'decoders', 'wasm')) continue;
      walk(path, out);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
}

const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

/** File (relative to the root, `/` separators) → the project files it imports. */
export function importGraph(folders: readonly string[] = ['decoders', 'sinks', 'src', 'bin']): Map<string, string[]> {
  const files: string[] = [];
  for (const f of folders) walk(join(ROOT, f), files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const edges: string[] = [];
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec === undefined || !spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      edges.push(relative(ROOT, target).split('\\').join('/'));
    }
    graph.set(relative(ROOT, file).split('\\').join('/'), edges);
  }
  return graph;
}

/** Every cycle's files (one per strongly connected component of more than one file, or a file importing itself). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}
