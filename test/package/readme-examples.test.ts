/**
 * The README's TypeScript examples type-check, as a user would paste them: each ```ts block of README.md becomes a
 * module that imports the package by its name (the built dist/ through `exports`, as test/package/consumer.ts does)
 * and is checked with `tsc` in strict mode. A block may be a fragment: the names it uses without importing or
 * declaring them (the entry points, `Replayer`, the ids and keys) come from a prelude. An example that drifts from
 * the API fails here with tsc's message.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const root = packageRoot();

/** What a fragment may use without importing it: module → names (a `type ` prefix imports a type). */
const PRELUDE_IMPORTS: Record<string, string[]> = {
  'replay-export': ['replayEvents', 'replayEventBytes', 'exportReplay', 'exportReplays', 'archiveReplays', 'decodeEvents', 'openSink', 'type ReplayEvent'],
  rrweb: ['Replayer'],
};
const PRELUDE_DECLARATIONS = ['declare const replayId: string;', 'declare const apiKey: string;', 'declare const secretKey: string;', 'declare const managementKey: string;'];

function tsBlocks(readme: string): { line: number; text: string }[] {
  const blocks: { line: number; text: string }[] = [];
  const lines = readme.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```ts') continue;
    const end = lines.indexOf('```', i + 1);
    blocks.push({ line: i + 1, text: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** The block as a module: the prelude's imports it does not make itself, the declarations, then the block. */
function moduleOf(block: string): string {
  const own = new Set<string>();
  const code = block.replace(/\/\/.*$/gm, ''); // an import named in a comment is not made
  for (const m of code.matchAll(/import\s*\{([^}]*)\}\s*from\s*'[^']+'/g)) {
    for (const name of m[1]!.split(',')) own.add(name.trim().replace(/^type\s+/, ''));
  }
  const imports = Object.entries(PRELUDE_IMPORTS)
    .map(([from, names]) => [from, names.filter((n) => !own.has(n.replace(/^type\s+/, '')))] as const)
    .filter(([, names]) => names.length > 0)
    .map(([from, names]) => `import { ${names.join(', ')} } from '${from}';`);
  return [...imports, ...PRELUDE_DECLARATIONS, 'export {};', '', block, ''].join('\n');
}

test("the README's TypeScript examples type-check against the published package", async () => {
  const blocks = tsBlocks(await readFile(join(root, 'README.md'), 'utf8'));
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  // Inside the package (the package's own name resolves there, and rrweb from its node_modules); a dot folder, which
  // the project's own tsconfig patterns do not take.
  const dir = join(root, 'test', `.readme-examples-${process.pid}`);
  await mkdir(dir, { recursive: true });
  try {
    for (const [i, b] of blocks.entries()) await writeFile(join(dir, `readme-line-${b.line}-block-${i + 1}.ts`), moduleOf(b.text));
    const config = { extends: '../../tsconfig.test.json', compilerOptions: { noEmit: true, rootDir: '.' }, include: ['*.ts'] };
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(config));
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: root }).then(
      () => '',
      (err: { stdout?: string; message: string }) => err.stdout || err.message,
    );
    expect(result, 'tsc on the README examples').toBe('');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);
