import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
    if (parent === dir) throw new Error('replay-export: cannot find the package root from ' + import.meta.url);
    dir = parent;
  }
}
