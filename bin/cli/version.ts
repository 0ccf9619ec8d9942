import { packageVersion } from '../../src/util/package-root.js';

export const VERSION_FLAGS = '-V, --version';

/**
 * Whether `replay-export [global options] --version` (or `-V`) was asked for: the flag before the command's name.
 * After it, `--version` is `decode`'s own (`decode --version 2`), so commander's program-wide version flag (which
 * would take it anywhere on the line) is not used.
 */
export function versionRequested(args: readonly string[], commands: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--version' || arg === '-V') return true;
    if (arg === '--' || commands.includes(arg)) return false;
  }
  return false;
}

export function versionLine(): string {
  return `replay-export ${packageVersion()}\n`;
}
