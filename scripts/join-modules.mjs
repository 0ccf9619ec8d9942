// Joins small TypeScript ES modules into one classic script, for code that must run as one inline <script> (the
// player's browser code, scripts/build-inlined.mjs). Each module is transpiled on its own (types removed), its
// `import` lines and `export` keywords are removed, and the modules are put, dependencies first, in one function
// scope. It refuses what that would change: an import cycle, a default, namespace or renamed import, a value imported
// from a package, an `export` other than on a declaration, two modules declaring the same top-level name, or one
// declaring the name of a global (which it would hide from the others).

import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

/** Why the modules cannot be joined (the message names the module). */
export class JoinError extends Error {}

/** One module, transpiled: the paths it imports, its top-level names, and its code with imports and `export` removed. */
function transpiled(path, source, where) {
  const js = ts.transpileModule(source, {
    fileName: path,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      verbatimModuleSyntax: true,
      removeComments: true,
    },
  }).outputText;
  const file = ts.createSourceFile(path, js, ts.ScriptTarget.ES2022, true);
  const imports = [];
  const names = [];
  const cuts = []; // [from, to) ranges of the output to remove
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const spec = statement.moduleSpecifier.text;
      const clause = statement.importClause;
      if (!spec.startsWith('./'))
        throw new JoinError(
          `${where}: imports a value from ${spec}: only types may come from a package (its code is a global)`,
        );
      if (!clause || clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) {
        throw new JoinError(
          `${where}: import from ${spec}: only named imports (\`import { a } from './m.js'\`) can be joined`,
        );
      }
      for (const element of clause.namedBindings.elements) {
        if (element.propertyName)
          throw new JoinError(
            `${where}: import { ${element.propertyName.text} as ${element.name.text} }: renamed imports cannot be joined`,
          );
      }
      imports.push(join(dirname(path), spec.replace(/\.js$/, '.ts')));
      cuts.push([statement.getFullStart(), statement.getEnd()]);
      continue;
    }
    if (ts.isExportDeclaration(statement) || ts.isExportAssignment(statement)) {
      // `export {};` (a module of types only) says nothing once joined.
      const empty =
        ts.isExportDeclaration(statement) &&
        !statement.moduleSpecifier &&
        statement.exportClause &&
        ts.isNamedExports(statement.exportClause) &&
        statement.exportClause.elements.length === 0;
      if (!empty)
        throw new JoinError(
          `${where}: \`${statement.getText().slice(0, 60)}\`: only \`export\` on a declaration can be joined`,
        );
      cuts.push([statement.getFullStart(), statement.getEnd()]);
      continue;
    }
    const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
    const exported = modifiers.find((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (exported) {
      if (modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword))
        throw new JoinError(`${where}: a default export cannot be joined`);
      cuts.push([exported.getStart(), exported.getEnd() + 1]);
    }
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) names.push(...bindingNames(d.name));
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) {
      names.push(statement.name.text);
    }
  }
  let code = js;
  for (const [from, to] of cuts.sort((a, b) => b[0] - a[0])) code = code.slice(0, from) + code.slice(to);
  return { path, imports, names, code: code.replace(/^\s*\n/, '').trimEnd() };
}

function bindingNames(name) {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/**
 * The module `entry` and every module it imports, joined into one script: `(function () { 'use strict'; … })();`.
 * `read(path)` gives a module's source; `globals` the names a top-level declaration may not take; paths in messages
 * and in the script's section comments are relative to `root`.
 */
export async function joinModules({ entry, read, globals, root }) {
  const rel = (path) => relative(root, path).split('\\').join('/');
  const done = new Set();
  const order = [];
  const visiting = [];
  async function visit(path) {
    if (visiting.includes(path))
      throw new JoinError(`import cycle: ${[...visiting.slice(visiting.indexOf(path)), path].map(rel).join(' → ')}`);
    if (done.has(path)) return;
    visiting.push(path);
    const mod = transpiled(path, await read(path), rel(path));
    for (const dep of mod.imports) await visit(dep);
    visiting.pop();
    done.add(path);
    order.push(mod);
  }
  await visit(entry);
  const owner = new Map();
  for (const mod of order) {
    for (const name of mod.names) {
      if (owner.has(name))
        throw new JoinError(
          `${rel(mod.path)} and ${rel(owner.get(name))} both declare \`${name}\` at top level: they share one scope once joined`,
        );
      if (globals.has(name))
        throw new JoinError(
          `${rel(mod.path)} declares \`${name}\` at top level, which would hide the global of that name once joined`,
        );
      owner.set(name, mod.path);
    }
  }
  const body = order.map((mod) => `// ---- ${rel(mod.path)}\n${mod.code}`).join('\n\n');
  return { script: `(function () {\n'use strict';\n\n${body}\n})();\n`, files: order.map((mod) => rel(mod.path)) };
}
