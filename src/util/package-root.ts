import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InternalError } from '../errors.js';

let cached: string | undefined;

/**
 * The folder that holds replay-export's package.json, found by walking up from this module
 * (works from `src/` under vitest and from `dist/src/` when built), never from `process.cwd()`.
 */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'samples'))) {
      cached = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new InternalError('replay-export: cannot find the package root from ' + import.meta.url);
    dir = parent;
  }
}

let version: string | undefined;

/** replay-export's version, from its package.json (read once). */
export function packageVersion(): string {
  if (version !== undefined) return version;
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  version = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  return version;
}
