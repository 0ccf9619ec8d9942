#!/usr/bin/env node
// Copies the two files of rrweb the `html` format and `view` inline into a page — its minified UMD bundle and its
// style sheet — from the locked devDependency `rrweb` into vendor/rrweb/ (committed, shipped in the package). The
// package then depends on none of rrweb's ~13 MB of installed files (rrweb, rrdom, rrweb-snapshot, postcss, …).
//
//   node scripts/vendor-rrweb.mjs           copy them (after changing rrweb's version in package.json)
//   node scripts/vendor-rrweb.mjs --check   exit 1 when a copy differs from the installed rrweb's file
//
// vendor/rrweb/NOTICE.md names the version and rrweb's licence (MIT); --check also checks the version named there.

import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FILES = ['rrweb.umd.min.cjs', 'style.min.css'];
const target = join(root, 'vendor', 'rrweb');
const require = createRequire(join(root, 'package.json'));
const source = dirname(require.resolve('rrweb'));
const { version } = JSON.parse(await readFile(join(source, '..', 'package.json'), 'utf8'));

const notice = `# rrweb ${version}, vendored

\`rrweb.umd.min.cjs\` and \`style.min.css\` are copied unchanged from the npm package \`rrweb@${version}\` (its \`dist/\`;
https://github.com/rrweb-io/rrweb, MIT licence) by \`scripts/vendor-rrweb.mjs\`, which \`--check\`s them against the
installed devDependency. The \`html\` format and \`view\` inline them into the pages they make.
`;

const check = process.argv.includes('--check');
const stale = [];
for (const [name, want] of [
  ...(await Promise.all(FILES.map(async (f) => [f, await readFile(join(source, f))]))),
  ['NOTICE.md', Buffer.from(notice)],
]) {
  if (!check) {
    await writeFile(join(target, name), want);
    continue;
  }
  const have = await readFile(join(target, name)).catch(() => undefined);
  if (have === undefined || !have.equals(want)) stale.push(name);
}
if (stale.length > 0) {
  console.error(`vendor/rrweb/ is not rrweb ${version}'s: ${stale.join(', ')} (run node scripts/vendor-rrweb.mjs)`);
  process.exit(1);
}
