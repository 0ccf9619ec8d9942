import type { Command } from 'commander';
import { EXIT_CODES } from '../../src/cli/base.js';
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
const COMMANDS: Readonly<Record<string, () => Promise<CliCommand<never>>>> = {
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
};

/** Parses `argv` (full process.argv), runs the command and resolves with the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const args = argv.slice(2);
  if (versionRequested(args, Object.keys(COMMANDS))) {
    io.stdout.write(versionLine());
    return EXIT.ok;
  }
  // Loaded past `--version`: that answer needs nothing else.
  const [
    { CommanderError },
    { applyEnv, commandWord, globalFlags, jsonRequested },
    { addExamples, EXAMPLES },
    { CliSession },
  ] = await Promise.all([
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
    const names =
      word !== undefined && word !== 'completion' && Object.hasOwn(COMMANDS, word) ? [word] : Object.keys(COMMANDS);
    for (const name of names) {
      const command = await COMMANDS[name]!();
      const examples = (EXAMPLES as Record<string, readonly (readonly [string, string])[] | undefined>)[name];
      const cmd = command.register(program);
      if (examples !== undefined) addExamples(cmd, examples);
      cmd.action(async (...parsed: unknown[]) => {
        const c = parsed[parsed.length - 1] as Command;
        applyEnv(c, io.env);
        const context = session.context(c, async (request) =>
          (await import('./cli-run.js')).openCliRun(context, request),
        );
        code = await command.run({ ...c.opts<Record<string, unknown>>(), args: c.args } as never, context);
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
