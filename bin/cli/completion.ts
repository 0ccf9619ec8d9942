import type { Command, Option } from 'commander';

/** Values offered after a flag that takes one of a few words (others complete as file names). */
const VALUE_WORDS: Readonly<Record<string, readonly string[]>> = {
  '--format': ['json', 'ndjson', 'html'],
  '--log-format': ['text', 'json'],
  '--region': ['us', 'eu'],
  '--order': ['start', 'expiry'],
  '--sort': ['asc', 'desc'],
  '--s3-checksums': ['when-supported', 'when-required'],
  '--file-version': ['2', '3'],
};

export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** Words a command's first argument completes to, beyond file names: `api`'s operation names, `auth`'s actions. */
export type ArgumentWords = Readonly<Record<string, readonly string[]>>;

/** The words `command`'s argument completes to (the shells for `completion`). */
function argumentWords(command: string, extra: ArgumentWords): readonly string[] | undefined {
  return command === 'completion' ? COMPLETION_SHELLS : extra[command];
}

function flagsOf(options: readonly Option[]): string[] {
  return options.flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined));
}

function valueFlagsOf(options: readonly Option[]): string[] {
  return flagsOf(options.filter((o) => o.required || o.optional));
}

/** A shell word list (flags, command and operation names are plain ASCII; checked so the script stays well-formed). */
function words(list: readonly string[]): string {
  for (const w of list) if (!/^[\w.-]+$/.test(w)) throw new Error(`completion: unexpected word ${JSON.stringify(w)}`);
  return [...new Set(list)].join(' ');
}

/**
 * The bash completion function of a program, generated from its commander definition: command names, each command's
 * flags plus the global ones, `-h/--help` and `-V/--version`, the words of flags with a fixed set of values, and
 * file names for other values and arguments. Static: no process is started on Tab.
 */
function bashFunction(program: Command, fn: string, extra: ArgumentWords): string {
  const globals = [...flagsOf(program.options), '--help', '-h', '--version', '-V'];
  const commands = program.commands.map((c) => c.name());
  const valueFlags = [...valueFlagsOf(program.options), ...program.commands.flatMap((c) => valueFlagsOf(c.options))];
  const choice = Object.entries(VALUE_WORDS)
    .filter(([flag]) => valueFlags.includes(flag))
    .map(([flag, values]) => `    ${flag}) COMPREPLY=($(compgen -W "${words(values)}" -- "$cur")); return ;;`);
  const perCommand = program.commands.map((c) => {
    const flags = [...flagsOf(c.options), ...flagsOf(program.options), '--help', '-h'];
    const args = argumentWords(c.name(), extra);
    return `    ${c.name()}) opts="${words(flags)}"${args !== undefined ? `; args="${words(args)}"` : ''} ;;`;
  });
  return [
    `${fn}() {`,
    '  local cur prev cmd opts args i',
    '  cur="${COMP_WORDS[COMP_CWORD]}"',
    '  prev=""',
    '  [[ $COMP_CWORD -gt 0 ]] && prev="${COMP_WORDS[COMP_CWORD-1]}"',
    '  cmd=""',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    case "${COMP_WORDS[i]}" in',
    `      ${commands.join('|')}) cmd="\${COMP_WORDS[i]}"; break ;;`,
    '    esac',
    '  done',
    '  case "$prev" in',
    ...choice,
    `    ${[...new Set(valueFlags)].filter((f) => VALUE_WORDS[f] === undefined).join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return ;;`,
    '  esac',
    '  args=""',
    '  case "$cmd" in',
    `    "") opts="${words([...commands, ...globals])}" ;;`,
    ...perCommand,
    '  esac',
    '  if [[ -z "$cmd" || "$cur" == -* ]]; then',
    '    COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
    '  elif [[ -n "$args" ]]; then',
    '    COMPREPLY=($(compgen -W "$args" -- "$cur"))',
    '  else',
    '    COMPREPLY=($(compgen -f -- "$cur"))',
    '  fi',
    '}',
  ].join('\n');
}

/**
 * The completion script of `replay-export completion <shell>`. zsh uses the same function through zsh's own
 * `bashcompinit` (part of zsh), so both shells complete the same words.
 */
export function completionScript(program: Command, shell: CompletionShell, extra: ArgumentWords = {}): string {
  const name = program.name();
  if (shell === 'fish') return fishScript(program, extra);
  const fn = `_${name.replace(/[^\w]/g, '_')}_complete`;
  const body = bashFunction(program, fn, extra);
  if (shell === 'bash') {
    return `# bash completion for ${name}: source <(${name} completion bash)\n${body}\ncomplete -o default -F ${fn} ${name}\n`;
  }
  return (
    `#compdef ${name}\n# zsh completion for ${name}: source <(${name} completion zsh)\n` +
    `autoload -U +X bashcompinit && bashcompinit\n${body}\ncomplete -o default -F ${fn} ${name}\n`
  );
}

/** A fish string: single-quoted, its `\\` and `'` escaped (the only escapes fish reads there). */
function fishQuote(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`).replace(/[\x00-\x1f]/g, ' ')}'`;
}

/** The `complete` lines of one option: its long and short names, its fixed words, or a value that is a file. */
function fishOption(prefix: string, o: Option): string {
  const names = [o.long ? `-l ${o.long.slice(2)}` : '', o.short ? `-s ${o.short.slice(1)}` : ''].filter(Boolean);
  const fixed = o.long !== undefined ? VALUE_WORDS[o.long] : undefined;
  const value = !(o.required || o.optional) ? '' : fixed !== undefined ? ` -x -a ${fishQuote(words(fixed))}` : ' -r -F';
  return `${prefix} ${names.join(' ')}${value} -d ${fishQuote(o.description)}`;
}

/**
 * The fish completion script (`replay-export completion fish | source`, or saved as
 * ~/.config/fish/completions/replay-export.fish): the commands with their descriptions, the global flags everywhere,
 * each command's flags after it, fixed words, and the argument words (`api`'s operations, `auth`'s actions).
 */
function fishScript(program: Command, extra: ArgumentWords): string {
  const name = program.name();
  const commands = program.commands.map((c) => c.name());
  const lines = [`# fish completion for ${name}: ${name} completion fish | source`, `complete -c ${name} -e`];
  for (const c of program.commands) {
    lines.push(`complete -c ${name} -f -n __fish_use_subcommand -a ${c.name()} -d ${fishQuote(c.description())}`);
  }
  for (const o of program.options) lines.push(fishOption(`complete -c ${name}`, o));
  for (const c of program.commands) {
    const prefix = `complete -c ${name} -n ${fishQuote(`__fish_seen_subcommand_from ${c.name()}`)}`;
    for (const o of c.options) lines.push(fishOption(prefix, o));
    const args = argumentWords(c.name(), extra);
    if (args !== undefined) lines.push(`${prefix} -f -a ${fishQuote(words(args))}`);
  }
  words(commands);
  return `${lines.join('\n')}\n`;
}
