/**
 * The profile store (`replay-export auth login`, as `gh auth login` and `rclone config`): named sets of a project's
 * keys and where its API is, in one JSON file only its owner may read (mode 0600, in a 0700 folder) under the XDG
 * config folder: `$XDG_CONFIG_HOME/replay-export/profiles.json`, else `~/.config/replay-export/profiles.json`.
 *
 * A profile is one more source of the configuration, below the environment: flag, then environment, then the profile,
 * then the defaults. It is applied as the environment's fallback (each field the variable it stands for), so every
 * reader of the environment — the global flags, the settings, the API's management key — sees it in that order.
 * Which profile: `--profile <name>`, else `PLATFORM_PROFILE`, else `default` when it exists. Keys are never printed.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError } from '../../src/errors.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A profile's fields, each named as the environment variable it stands for. */
export const PROFILE_FIELDS = {
  api_key: 'PLATFORM_API_KEY',
  secret_key: 'PLATFORM_SECRET_KEY',
  region: 'PLATFORM_REGION',
  endpoint: 'PLATFORM_ENDPOINT',
  management_key: 'PLATFORM_MANAGEMENT_KEY',
} as const;
export type ProfileField = keyof typeof PROFILE_FIELDS;
export type Profile = Partial<Record<ProfileField, string>>;
/** The fields that are secrets: stored, never printed. */
export const SECRET_FIELDS: readonly ProfileField[] = ['api_key', 'secret_key', 'management_key'];
export const PROFILE_ENV = 'PLATFORM_PROFILE';
export const DEFAULT_PROFILE = 'default';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The store's path for this environment. */
export function profilesPath(env: Env): string {
  const config = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(config, 'replay-export', 'profiles.json');
}

export function checkProfileName(name: string): string {
  if (!NAME.test(name)) {
    throw new ConfigError(`profile name ${JSON.stringify(name)}: letters, digits, '.', '_', '-' (at most 64)`);
  }
  return name;
}

function parseStore(text: string, path: string): Record<string, Profile> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${path}: not JSON (${(err as Error).message})`, 'PROFILE_STORE_INVALID');
  }
  const profiles = (data as { profiles?: unknown } | null)?.profiles;
  if (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles)) {
    throw new ConfigError(`${path}: no "profiles" object`, 'PROFILE_STORE_INVALID');
  }
  const out: Record<string, Profile> = {};
  for (const [name, value] of Object.entries(profiles as Record<string, unknown>)) {
    const fields = Object.entries((value ?? {}) as Record<string, unknown>);
    if (fields.some(([k, v]) => !Object.hasOwn(PROFILE_FIELDS, k) || typeof v !== 'string')) {
      throw new ConfigError(
        `${path}: profile ${name} holds a field that is not a known one's string`,
        'PROFILE_STORE_INVALID',
      );
    }
    out[name] = Object.fromEntries(fields) as Profile;
  }
  return out;
}

/**
 * The stored profiles (none when there is no store). A store others may read or write is refused, as ssh refuses
 * such a key: its keys may have been read, and a file others can write could point the tool elsewhere.
 */
export async function readProfiles(env: Env): Promise<Record<string, Profile>> {
  const path = profilesPath(env);
  const stat = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw new ConfigError(`${path}: ${err.message}`, 'PROFILE_STORE_UNREADABLE');
  });
  if (stat === undefined) return {};
  if (!stat.isFile()) throw new ConfigError(`${path}: not a regular file`, 'PROFILE_STORE_INVALID');
  if ((stat.mode & 0o077) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
    throw new ConfigError(`${path} is open to others (mode ${mode}): chmod 600 ${path}`, 'PROFILE_STORE_MODE');
  }
  return parseStore(await readFile(path, 'utf8'), path);
}

/** Writes the store whole: a new file of mode 0600 renamed over the old one, in a folder of mode 0700. */
export async function writeProfiles(env: Env, profiles: Record<string, Profile>): Promise<string> {
  const path = profilesPath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await chmod(dirname(path), 0o700);
  if (Object.keys(profiles).length === 0) {
    await rm(path, { force: true });
    return path;
  }
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const file = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    await file.writeFile(`${JSON.stringify({ profiles }, null, 2)}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, path);
  return path;
}

/** The profile's name given on the line (`--profile x`, `--profile=x`, before `--`), if any. */
export function profileFlag(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    if (arg === '--profile') return args[i + 1];
    if (arg.startsWith('--profile=')) return arg.slice('--profile='.length);
  }
  return undefined;
}

/** The profile this line uses and where the choice came from; undefined when none is named and there is no default. */
export function chosenProfile(args: readonly string[], env: Env): { name: string; named: boolean } {
  const named = profileFlag(args) ?? (env[PROFILE_ENV] || undefined);
  return named !== undefined ? { name: checkProfileName(named), named: true } : { name: DEFAULT_PROFILE, named: false };
}

/**
 * `env` with the chosen profile's fields under it: a variable set in `env` wins over the profile's field. A profile
 * named (flag or variable) that is not stored is a usage error; the default one may be missing.
 */
export async function withProfile(args: readonly string[], env: Env): Promise<Env> {
  const { name, named } = chosenProfile(args, env);
  const profiles = await readProfiles(env);
  const profile = profiles[name];
  if (profile === undefined) {
    if (!named) return env;
    throw new ConfigError(
      `no profile ${name} in ${profilesPath(env)}: replay-export auth login --profile ${name}`,
      'PROFILE_NOT_FOUND',
    );
  }
  const fallback: Record<string, string> = {};
  for (const [field, value] of Object.entries(profile)) fallback[PROFILE_FIELDS[field as ProfileField]] = value;
  const out: Record<string, string | undefined> = { ...fallback };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
