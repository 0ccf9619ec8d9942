/**
 * How a run reaches the platform: region, endpoint and credentials, resolved once with the same precedence for the
 * CLI and the library — the caller's option (a CLI flag), then the `PLATFORM_*` environment variable, then the
 * default — and checked before any request. The one module besides `settings.ts` that reads the environment.
 */
import type { Credentials } from '../http/auth.js';
import { stripUndefined } from '../http/options.js';
import type { Region } from '../http/regions.js';
import { DEFAULTS } from './defaults.js';
import { ConfigError } from './errors.js';
import type { Environment } from './settings.js';

/** The platform's environment variables, each the fallback of the option (and flag) beside it. */
export const PLATFORM_ENV = Object.freeze({
  apiKey: 'PLATFORM_API_KEY',
  secretKey: 'PLATFORM_SECRET_KEY',
  managementKey: 'PLATFORM_MANAGEMENT_KEY',
  region: 'PLATFORM_REGION',
  endpoint: 'PLATFORM_ENDPOINT',
});

/** The platform options a caller gives (each falls back to its `PLATFORM_*` variable). */
export interface PlatformOptions {
  apiKey?: string | undefined;
  secretKey?: string | undefined;
  /** The management API's key (experiments and flags; spec document 1). */
  managementKey?: string | undefined;
  /** Data-residency region: `us` (default) or `eu`, in any case. */
  region?: Region | undefined;
  /** Base URL replacing the region's host (sandbox, proxy): an http(s) URL. */
  endpoint?: string | undefined;
}

/** The platform of a run, resolved: read-only. Credentials stay out of its printable fields. */
export interface PlatformSettings {
  readonly region: Region;
  /** Whether the region was given (option or `PLATFORM_REGION`) rather than the default. */
  readonly regionGiven: boolean;
  readonly endpoint: string | undefined;
  readonly credentials: Readonly<Credentials>;
}

function given(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** `option`, else its environment variable, else the caller's default, else undefined (empty counts as unset). */
function pick(
  o: PlatformOptions,
  env: Environment,
  key: keyof typeof PLATFORM_ENV,
  defaults: PlatformOptions = {},
): string | undefined {
  return given(o[key]) ?? given(env[PLATFORM_ENV[key]]) ?? given(defaults[key]);
}

/** A `ConfigError` about the platform option `option`: `<option> <text>`. */
function refused(option: keyof typeof PLATFORM_ENV, text: string): ConfigError {
  return ConfigError.of({ option, say: (name) => `${name(option)} ${text}` });
}

/**
 * Resolves and checks the platform options — each the option, else its `PLATFORM_*` variable, else `defaults`'
 * (the caller's: the CLI's sandbox gives its management key), else the built-in default: a bad region or endpoint
 * is a `ConfigError` naming the option.
 */
export function resolvePlatform(
  o: PlatformOptions,
  env: Environment,
  defaults: PlatformOptions = {},
): PlatformSettings {
  const given = pick(o, env, 'region');
  const regionText = given ?? DEFAULTS.region;
  const region = regionText.trim().toLowerCase();
  if (region !== 'us' && region !== 'eu')
    throw refused('region', `must be us or eu, got ${JSON.stringify(regionText)}`);
  const endpoint = pick(o, env, 'endpoint');
  if (endpoint !== undefined) {
    let protocol: string | undefined;
    try {
      protocol = new URL(endpoint).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'http:' && protocol !== 'https:')
      throw refused('endpoint', `must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  }
  const credentials: Credentials = stripUndefined({
    apiKey: pick(o, env, 'apiKey'),
    secretKey: pick(o, env, 'secretKey'),
    managementKey: pick(o, env, 'managementKey', defaults),
  });
  return Object.freeze({ region, regionGiven: given !== undefined, endpoint, credentials: Object.freeze(credentials) });
}

/**
 * Refuses a platform without the project's API key and secret key (what every API family but management needs),
 * before any request: a `ConfigError` saying where each comes from.
 */
export function requireProjectKeys(p: PlatformSettings): void {
  const missing: Array<['apiKey' | 'secretKey', string]> = [];
  if (p.credentials.apiKey === undefined) missing.push(['apiKey', 'an API key']);
  if (p.credentials.secretKey === undefined) missing.push(['secretKey', 'a secret key']);
  if (missing.length === 0) return;
  const say = (name: (option: string) => string): string =>
    `missing credentials: ${missing.map(([key, what]) => `${what} (${name(key)} or ${PLATFORM_ENV[key]})`).join(' and ')}`;
  throw ConfigError.of({ option: missing[0]![0], say });
}
