/**
 * The packages a video needs beyond the package's own dependencies — `playwright-core`, `@sparticuz/chromium` (unless
 * a Chromium is named) and `mediabunny`, ~90 MB — are optional peer dependencies: npm does not install them. Which are
 * missing is found by resolving them (none is loaded), and the message names all of them at once with the command
 * that installs them where this copy of replay-export is installed (a project, a global install, `npx`), each at the
 * version range of package.json's `peerDependencies`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { packageRoot } from './package-root.js';

/** The packages a video needs: the muxer, the browser's driver, and the browser unless one is named. */
export function videoPackages(browserNamed: boolean): string[] {
  return ['playwright-core', ...(browserNamed ? [] : ['@sparticuz/chromium']), 'mediabunny'];
}

/** Those of `names` that do not resolve from this package. */
export function missingPackages(names: readonly string[]): string[] {
  return names.filter((name) => {
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/** `name@range` as package.json's `peerDependencies` gives it (the name alone when it has none). */
function withRange(name: string, peers: Readonly<Record<string, string>>): string {
  const range = peers[name];
  return range === undefined ? name : `${name}@${range}`;
}

function peerRanges(root: string): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependencies?: unknown };
  const peers = pkg.peerDependencies;
  return typeof peers === 'object' && peers !== null ? (peers as Record<string, string>) : {};
}

/**
 * The command that installs `names` beside this copy of replay-export: `npx -p …` when npx runs it; else, when it is
 * inside a `node_modules` folder, `npm install` in the project that folder belongs to (the folder above the outermost
 * `node_modules`, pnpm's `.pnpm/` store included), or `npm install -g` when no project is there (a global install);
 * from a clone, `npm install`.
 */
export function installCommand(names: readonly string[], root: string = packageRoot()): string {
  const peers = peerRanges(root);
  // A range such as ^1.65.1 is quoted: `^` and `~` mean something to some shells.
  const quoted = names.map((name) => withRange(name, peers)).map((s) => (/^[\w@./=-]+$/.test(s) ? s : `'${s}'`));
  const parts = root.split(sep);
  if (parts.includes('_npx')) {
    return `npx ${['replay-export', ...quoted].map((s) => `-p ${s}`).join(' ')} replay-export …`;
  }
  const outer = parts.indexOf('node_modules');
  if (outer < 0) return `npm install ${quoted.join(' ')}`;
  const project = parts.slice(0, outer).join(sep) || sep;
  if (!existsSync(join(project, 'package.json'))) return `npm install -g ${quoted.join(' ')}`;
  return `npm install ${quoted.join(' ')}   (in ${project})`;
}

/** Why a video cannot be made with `missing` packages, and what to run: one sentence, every package named. */
export function missingPackagesMessage(missing: readonly string[]): string {
  const list = missing.length === 1 ? missing[0]! : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)!}`;
  const verb = missing.length === 1 ? 'is' : 'are';
  return `videos need ${list}, which ${verb} not installed (optional peer dependencies, left out of a default install): ${installCommand(missing)}`;
}
