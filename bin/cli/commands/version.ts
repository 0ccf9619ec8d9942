/** `replay-export version`: the version line, as `--version` prints it (gh's and rclone's habit). */
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { versionLine } from '../version.js';

export function register(program: Command): Command {
  return program.command('version').description('print the version (as --version)');
}

export async function run(context: CliContext): Promise<number> {
  context.stdout.write(versionLine());
  return 0;
}
