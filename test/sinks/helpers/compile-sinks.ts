import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SINKS = fileURLToPath(new URL('../../../sinks/', import.meta.url));
/**
 * What the sinks may import below them (the error base and its table of codes, src/util): transpiled beside them, at
 * the same relative path.
 */
const ERRORS = ['errors', 'error-codes'].map((name) =>
  fileURLToPath(new URL(`../../../src/${name}.ts`, import.meta.url)),
);
const UTIL = fileURLToPath(new URL('../../../src/util/', import.meta.url));

/**
 * Transpiles the sinks' modules to plain ESM in a temp folder, so that child `node` processes can run the real local
 * sink (Node 20 cannot run TypeScript). The S3 sink is transpiled too but never loaded: the local sink does not
 * import it (nor the AWS SDK).
 */
export async function compileLocalSink(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'sinks-js-'));
  const dir = join(root, 'sinks');
  await mkdir(join(root, 'src'), { recursive: true });
  await mkdir(dir);
  await writeFile(join(root, 'package.json'), '{"type":"module"}');
  // Every module, subfolders included (sinks/player/), at the same relative path.
  const names = (await readdir(SINKS, { recursive: true })).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3));
  for (const name of names) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await transpile(join(SINKS, `${name}.ts`), join(dir, `${name}.js`));
  }
  for (const from of ERRORS) await transpile(from, join(root, 'src', `${basename(from, '.ts')}.js`));
  await mkdir(join(root, 'src', 'util'));
  for (const name of (await readdir(UTIL)).filter((f) => f.endsWith('.ts')))
    await transpile(join(UTIL, name), join(root, 'src', 'util', `${name.slice(0, -3)}.js`));
  return dir;
}

async function transpile(from: string, to: string): Promise<void> {
  const out = ts.transpileModule(await readFile(from, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  });
  await writeFile(to, out.outputText);
}
