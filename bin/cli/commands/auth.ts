/**
 * `replay-export auth login|status|logout [--profile <name>]`: the profile store (../profiles.ts), as `gh auth`.
 * `login` stores a project's API key and secret key — from `--api-key`/`--secret-key` on the line, else asked for on
 * a terminal (not echoed), else read from stdin (two lines: API key, secret key) — with `--region`, `--endpoint` and
 * `--management-key` when given. `status` names each profile and what it holds; no command prints a key.
 */
import type { Command } from 'commander';
import { Writable } from 'node:stream';
import { flagsOf, type CliContext, type Invocation } from '../context.js';
import { usage } from '../flags.js';
import {
  chosenProfile,
  type Profile,
  PROFILE_ENV,
  PROFILE_FIELDS,
  type ProfileField,
  profilesPath,
  readProfiles,
  SECRET_FIELDS,
  writeProfiles,
} from '../profiles.js';

interface AuthFlags {
  managementKey?: string;
}

const ACTIONS = ['login', 'status', 'logout'] as const;

export function register(program: Command): Command {
  return program
    .command('auth')
    .description("store a project's keys as a profile (login), list the profiles (status), or remove one (logout)")
    .argument('<action>', 'login, status or logout')
    .option('--management-key <key>', 'login: also store the management key (experiments and flags: api)');
}

/**
 * Lines from a terminal, not echoed: one interface for all the questions, made before the first is shown, so that the
 * terminal is out of its echoing mode before anything can be typed.
 */
async function askHidden(questions: readonly string[], context: CliContext): Promise<string[]> {
  const { createInterface } = await import('node:readline');
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: context.stdin, output: silent, terminal: true });
  try {
    const answers: string[] = [];
    for (const question of questions) {
      context.stderr.write(question);
      answers.push(await new Promise<string>((resolve) => rl.question('', resolve)));
      context.stderr.write('\n');
    }
    return answers;
  } finally {
    rl.close();
  }
}

/** The API key and secret key: the flags on the line, else a terminal's answers, else stdin's first two lines. */
async function keysOf(context: CliContext): Promise<[string, string]> {
  const root = context.command.parent!;
  const fromLine = (key: string): string | undefined =>
    root.getOptionValueSource(key) === 'cli' ? (root.getOptionValue(key) as string) : undefined;
  const [apiKey, secretKey] = [fromLine('apiKey'), fromLine('secretKey')];
  if (apiKey !== undefined && secretKey !== undefined) return [apiKey, secretKey];
  if ((context.stdin as { isTTY?: boolean }).isTTY === true) {
    const [api, secret] = await askHidden(['API key: ', 'Secret key: '], context);
    return [api ?? '', secret ?? ''];
  }
  let text = '';
  for await (const chunk of context.stdin) text += chunk.toString();
  const [first, second] = text.split(/\r?\n/).map((l) => l.trim());
  return [apiKey ?? first ?? '', secretKey ?? second ?? ''];
}

async function login(name: string, opts: Invocation<AuthFlags>, context: CliContext): Promise<void> {
  const [apiKey, secretKey] = await keysOf(context);
  if (apiKey === '' || secretKey === '') {
    usage('auth login: give the API key and the secret key (--api-key, --secret-key, or two lines on stdin)');
  }
  const root = context.command.parent!;
  const profile: Profile = { api_key: apiKey, secret_key: secretKey };
  for (const field of ['region', 'endpoint'] as const)
    if (root.getOptionValueSource(field) === 'cli') profile[field] = root.getOptionValue(field) as string;
  if (opts.managementKey !== undefined) profile.management_key = opts.managementKey;
  const profiles = await readProfiles(context.env);
  const path = await writeProfiles(context.env, { ...profiles, [name]: profile });
  context.stderr.write(`saved profile ${name} (${describe(profile)}) in ${path}\n`);
}

/** What a profile holds, without a key: the fields' names, region and endpoint as they are. */
function describe(profile: Profile): string {
  const parts: string[] = [];
  for (const field of Object.keys(PROFILE_FIELDS) as ProfileField[]) {
    const value = profile[field];
    if (value === undefined) continue;
    parts.push(SECRET_FIELDS.includes(field) ? field.replace('_', ' ') : `${field} ${value}`);
  }
  return parts.join(', ');
}

async function status(active: string, context: CliContext): Promise<void> {
  const profiles = await readProfiles(context.env);
  const names = Object.keys(profiles).sort();
  if (names.length === 0) {
    context.stdout.write(`no profiles in ${profilesPath(context.env)} (replay-export auth login)\n`);
    return;
  }
  for (const name of names) {
    context.stdout.write(`${name}${name === active ? ' (in use)' : ''}: ${describe(profiles[name]!)}\n`);
  }
  const over = Object.values(PROFILE_FIELDS).filter((v) => context.env[v] !== undefined);
  if (over.length > 0) context.stdout.write(`set in the environment, over the profile: ${over.join(', ')}\n`);
}

async function logout(name: string, context: CliContext): Promise<void> {
  const profiles = await readProfiles(context.env);
  if (!Object.hasOwn(profiles, name)) usage(`auth logout: no profile ${name} in ${profilesPath(context.env)}`);
  delete profiles[name];
  await writeProfiles(context.env, profiles);
  context.stderr.write(`removed profile ${name}\n`);
}

export async function run(context: CliContext): Promise<number> {
  const opts = flagsOf<AuthFlags>(context);
  const action = opts.args[0]!;
  if (!(ACTIONS as readonly string[]).includes(action))
    usage(`auth: the action is login, status or logout (got ${action})`);
  const flag = context.globals.profile;
  const args =
    flag !== undefined && context.command.parent!.getOptionValueSource('profile') === 'cli' ? ['--profile', flag] : [];
  const { name } = chosenProfile(args, { [PROFILE_ENV]: context.env[PROFILE_ENV] });
  if (action === 'login') await login(name, opts, context);
  else if (action === 'status') await status(name, context);
  else await logout(name, context);
  return 0;
}
