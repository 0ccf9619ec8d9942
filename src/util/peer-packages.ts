/**
 * The packages a video needs beyond the package's own dependencies — `playwright-core`, `@sparticuz/chromium` (unless
 * a Chromium is named) and `mediabunny`, ~90 MB — are optional peer dependencies: npm does not install them. Which are
 * missing is found by resolving them (none is loaded), and the message names all of them at once with the command
 * that installs them where this copy of replay-export is installed (a project, a global install, `npx`), each at the
 * version range of package.json's `peerDependencies`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
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
 * The command that installs `names` beside this copy of replay-export: `npx -p …` when npx runs it, `npm install -g`
 * when it is a global install (a `node_modules` folder with no project above it), else `npm install` in its project.
 */
export function installCommand(names: readonly string[], root: string = packageRoot()): string {
  const peers = peerRanges(root);
  const specs = names.map((name) => withRange(name, peers));
  // A range such as ^1.65.1 is quoted: `^` and `~` mean something to some shells.
  const quoted = specs.map((s) => (/^[\w@./=-]+$/.test(s) ? s : `'${s}'`));
  if (root.split(sep).includes('_npx')) {
    return `npx ${['replay-export', ...quoted].map((s) => `-p ${s}`).join(' ')} replay-export …`;
  }
  const modules = dirname(root);
  if (basename(modules) === 'node_modules') {
    const project = dirname(modules);
    if (!existsSync(join(project, 'package.json'))) return `npm install -g ${quoted.join(' ')}`;
    return `npm install ${quoted.join(' ')}   (in ${project})`;
  }
  return `npm install ${quoted.join(' ')}`;
}

/** Why a video cannot be made with `missing` packages, and what to run: one sentence, every package named. */
export function missingPackagesMessage(missing: readonly string[]): string {
  const list = missing.length === 1 ? missing[0]! : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)!}`;
  const verb = missing.length === 1 ? 'is' : 'are';
  return `videos need ${list}, which ${verb} not installed (optional peer dependencies, left out of a default install): ${installCommand(missing)}`;
}
