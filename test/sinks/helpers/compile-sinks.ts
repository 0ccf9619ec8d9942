import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SINKS = fileURLToPath(new URL('../../../sinks/', import.meta.url));

/**
 * Transpiles the local sink's modules (no AWS SDK) to plain ESM in a temp folder, so that child `node` processes
 * can run the real code (Node 20 cannot run TypeScript).
 */
export async function compileLocalSink(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sinks-js-'));
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
  for (const name of ['local', 'encode', 'errors', 'keys', 'manifest-lines', 'player-page', 'sink']) {
    const source = await readFile(join(SINKS, `${name}.ts`), 'utf8');
    const out = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    });
    await writeFile(join(dir, `${name}.js`), out.outputText);
  }
  return dir;
}
