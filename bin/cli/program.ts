import type { Command } from 'commander';
import { EXIT_CODES } from '../../src/errors.js';
import { processIo, type CliCommand, type CliIo } from './context.js';
import { versionLine, versionRequested } from './version.js';

/** Exit codes; an error's comes from its category (`EXIT_CODES` in src/errors.ts, the one table). */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: EXIT_CODES.usage,
  auth: EXIT_CODES.auth,
  interrupted: EXIT_CODES.interrupted,
} as const;

/** The commands, in the order help lists them; each module is loaded only when its command is run or listed. */
const COMMANDS: Readonly<Record<string, () => Promise<CliCommand>>> = {
  list: () => import('./commands/list.js'),
  export: () => import('./commands/export.js'),
  archive: () => import('./commands/archive.js'),
  forget: () => import('./commands/forget.js'),
  decode: () => import('./commands/decode.js'),
  api: () => import('./commands/api.js'),
  sandbox: () => import('./commands/sandbox.js'),
  view: () => import('./commands/view.js'),
  verify: () => import('./commands/verify.js'),
  find: () => import('./commands/find.js'),
  video: () => import('./commands/video.js'),
  completion: () => import('./commands/completion.js'),
  auth: () => import('./commands/auth.js'),
  version: () => import('./commands/version.js'),
};

/** The commands that read no configuration: the profile store is not read for them. */
const UNCONFIGURED = new Set(['auth', 'completion', 'version']);

/**
 * The command a line names that does not exist, when commander would not say so: with `--help`/`-h` it prints the
 * root help (exit 0), and so does `help <name>`. gh and rclone refuse those as unknown commands.
 */
function unknownCommand(args: readonly string[], word: string | undefined): string | undefined {
  if (word === 'help') {
    const named = args[args.indexOf('help') + 1];
    return named !== undefined && !named.startsWith('-') && !Object.hasOwn(COMMANDS, named) ? named : undefined;
  }
  const help = args.some((a) => a === '--help' || a === '-h');
  return help && word !== undefined && !Object.hasOwn(COMMANDS, word) ? word : undefined;
}

/** Parses `argv` (full process.argv), runs the command and resolves with the exit code. */
export async function main(argv: readonly string[], given: CliIo = processIo()): Promise<number> {
  const args = argv.slice(2);
  // The environment is the caller's with the chosen profile under it, once the command is known (see profiles.ts).
  const io: CliIo = { ...given };
  if (versionRequested(args, Object.keys(COMMANDS))) {
    io.stdout.write(versionLine());
    return EXIT.ok;
  }
  // Loaded past `--version`: that answer needs nothing else.
  const [{ CommanderError }, { commandWord, globalFlags, jsonRequested }, { addExamples, EXAMPLES }, { CliSession }] =
    await Promise.all([
      import('commander'),
      import('./global-flags.js'),
      import('./help-text.js'),
      import('./session.js'),
    ]);
  const session = new CliSession(io);
  const program = globalFlags(io, jsonRequested(args));
  let code: number = EXIT.ok;
  try {
    // Only the named command's module is loaded; without one (help, a mistyped name, completion) every command's.
    const word = commandWord(args, program);
    const unknown = unknownCommand(args, word);
    if (unknown !== undefined) {
      program.error(`error: unknown command '${unknown}' (replay-export --help lists the commands)`, {
        code: 'commander.unknownCommand',
        exitCode: EXIT.usage,
      });
    }
    if (word !== undefined && Object.hasOwn(COMMANDS, word) && !UNCONFIGURED.has(word)) {
      io.env = await (await import('./profiles.js')).withProfile(args, given.env);
    }
    const names =
      word !== undefined && word !== 'completion' && Object.hasOwn(COMMANDS, word) ? [word] : Object.keys(COMMANDS);
    for (const name of names) {
      const command = await COMMANDS[name]!();
      const examples = (EXAMPLES as Record<string, readonly (readonly [string, string])[] | undefined>)[name];
      const cmd = command.register(program);
      if (examples !== undefined) addExamples(cmd, examples);
      cmd.action(async (...parsed: unknown[]) => {
        const c = parsed[parsed.length - 1] as Command;
        const context = session.context(c, async (options, how) =>
          (await import('./cli-run.js')).openCliRun(context, options, how),
        );
        code = await command.run(context);
      });
    }
    await program.parseAsync(argv as string[]);
    if (session.signal.aborted) throw session.signal.reason;
    return code;
  } catch (err) {
    if (err instanceof CommanderError)
      return err.code === 'commander.helpDisplayed' || err.code === 'commander.help' ? EXIT.ok : EXIT.usage;
    return session.fail(err);
  } finally {
    session.close();
  }
}
