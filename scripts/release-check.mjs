#!/usr/bin/env node
// The release's facts agree (npm run release:check; run by `prepack`, so by `npm pack` and `npm publish`):
//   - package.json has the metadata a registry page shows (repository, homepage, bugs, keywords, license, engines);
//   - package-lock.json is package.json's version;
//   - CHANGELOG.md's top section is package.json's version, `## [x.y.z] - YYYY-MM-DD` once released or
//     `## [x.y.z] - Unreleased` while it is being made; every section below it is dated, versions and dates descend;
//   - with --publish (prepublishOnly): the top section is dated, so nothing is published as "Unreleased".
// Exit 1 with one line per disagreement.
//
//   node scripts/release-check.mjs [--publish] [--root <dir>]

import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--root');
const root = rootAt >= 0 ? args[rootAt + 1] : join(dirname(fileURLToPath(import.meta.url)), '..');
const publish = args.includes('--publish');

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?$/;
const HEADING = /^## \[([^\]]+)\](?: - (.+))?$/;

/** -1, 0 or 1 as version a is before, equal to or after version b (their numeric parts). */
function compareVersions(a, b) {
  const pa = SEMVER.exec(a).slice(1, 4).map(Number);
  const pb = SEMVER.exec(b).slice(1, 4).map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  return 0;
}

function isDate(text) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

function metadataProblems(pkg) {
  const out = [];
  for (const field of ['description', 'license', 'homepage', 'repository', 'bugs', 'keywords', 'engines']) {
    if (pkg[field] === undefined || pkg[field] === '') out.push(`package.json has no "${field}"`);
  }
  if (!SEMVER.test(pkg.version ?? '')) out.push(`package.json's version ${pkg.version} is not semver`);
  if (pkg.scripts?.prepare !== undefined) out.push('package.json has a "prepare" script: every install would run it');
  return out;
}

function lockProblems(pkg, lock) {
  const out = [];
  if (lock.version !== pkg.version) out.push(`package-lock.json is ${lock.version}, package.json ${pkg.version}`);
  const own = lock.packages?.['']?.version;
  if (own !== pkg.version) out.push(`package-lock.json's root package is ${own}, package.json ${pkg.version}`);
  return out;
}

/** The CHANGELOG's `## [version] - date` headings, in order. */
function sectionsOf(changelog) {
  return changelog
    .split('\n')
    .map((line, i) => ({ match: HEADING.exec(line), line: i + 1 }))
    .filter((h) => h.match !== null)
    .map((h) => ({ version: h.match[1], date: h.match[2], line: h.line }));
}

function changelogProblems(version, sections) {
  if (sections.length === 0) return ['CHANGELOG.md has no `## [version] - date` section'];
  const out = [];
  const [top] = sections;
  if (top.version !== version) {
    out.push(`CHANGELOG.md's top section is [${top.version}] (line ${top.line}), package.json's version ${version}`);
  }
  if (top.date !== 'Unreleased' && !isDate(top.date ?? '')) {
    out.push(`CHANGELOG.md's top section [${top.version}] has neither a date (YYYY-MM-DD) nor "Unreleased"`);
  }
  if (publish && top.date === 'Unreleased')
    out.push(`CHANGELOG.md's [${top.version}] is not dated: date it to publish`);
  for (let i = 1; i < sections.length; i++) {
    const [above, s] = [sections[i - 1], sections[i]];
    if (!isDate(s.date ?? ''))
      out.push(`CHANGELOG.md's [${s.version}] (line ${s.line}) is below the top and not dated`);
    if (!SEMVER.test(s.version) || !SEMVER.test(above.version) || compareVersions(above.version, s.version) <= 0) {
      out.push(`CHANGELOG.md's [${above.version}] is not a later version than [${s.version}] below it`);
    } else if (isDate(above.date ?? '') && isDate(s.date ?? '') && above.date < s.date) {
      out.push(`CHANGELOG.md's [${above.version}] (${above.date}) is dated before [${s.version}] (${s.date})`);
    }
  }
  return out;
}

const read = async (file) => readFile(join(root, file), 'utf8');
const pkg = JSON.parse(await read('package.json'));
const lock = JSON.parse(await read('package-lock.json'));
const problems = [
  ...metadataProblems(pkg),
  ...lockProblems(pkg, lock),
  ...changelogProblems(pkg.version, sectionsOf(await read('CHANGELOG.md'))),
];
for (const p of problems) console.error(`release:check: ${p}`);
if (problems.length > 0) process.exit(1);
console.log(`release:check: ${pkg.name} ${pkg.version} — package.json, package-lock.json and CHANGELOG.md agree`);
