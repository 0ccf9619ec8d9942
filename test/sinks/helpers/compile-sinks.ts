import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SINKS = fileURLToPath(new URL('../../../sinks/', import.meta.url));

/**
 * Transpiles the sinks' modules to plain ESM in a temp folder, so that child `node` processes can run the real local
 * sink (Node 20 cannot run TypeScript). The S3 sink is transpiled too but never loaded: the local sink does not
 * import it (nor the AWS SDK).
 */
export async function compileLocalSink(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sinks-js-'));
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
  const names = (await readdir(SINKS)).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3));
  for (const name of names) {
    const source = await readFile(join(SINKS, `${name}.ts`), 'utf8');
    const out = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    });
    await writeFile(join(dir, `${name}.js`), out.outputText);
  }
  return dir;
}
