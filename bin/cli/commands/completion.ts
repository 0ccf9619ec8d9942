import type { Command } from 'commander';
import { COMPLETION_SHELLS, completionScript, type CompletionShell } from '../completion.js';
import { operationNames } from '../../../src/clients/index.js';
import type { CliContext } from '../context.js';
import { usage } from '../flags.js';

export function register(program: Command): Command {
  return program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish) for commands, flags and api operations')
    .argument('<shell>', 'bash, zsh or fish');
}

/** Needs every command registered (the program's main registers them all for `completion`). */
export async function run(context: CliContext): Promise<number> {
  const shell = context.command.args[0]!;
  if (!(COMPLETION_SHELLS as readonly string[]).includes(shell))
    usage(`completion: the shell must be bash, zsh or fish (got ${JSON.stringify(shell)})`);
  let program = context.command;
  while (program.parent) program = program.parent;
  // `api`'s argument is an operation name: the one list of them (operationNames), for every shell's script.
  const extra = { api: operationNames(), auth: ['login', 'status', 'logout'] };
  context.stdout.write(completionScript(program, shell as CompletionShell, extra));
  return 0;
}
