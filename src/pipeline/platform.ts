/**
 * How a run reaches the platform: region, endpoint and credentials, resolved once with the same precedence for the
 * CLI and the library — the caller's option (a CLI flag), then the `PLATFORM_*` environment variable, then the
 * default — and checked before any request. The one module besides `settings.ts` that reads the environment.
 */
import type { Credentials } from '../http/auth.js';
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
  readonly endpoint: string | undefined;
  readonly credentials: Readonly<Credentials>;
}

/** The CLI's flag for each platform option, named in errors when the CLI gave it. */
const FLAGS: Readonly<Record<keyof typeof PLATFORM_ENV, string>> = {
  apiKey: '--api-key',
  secretKey: '--secret-key',
  managementKey: '--management-key',
  region: '--region',
  endpoint: '--endpoint',
};

function given(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** `option`, else its environment variable, else undefined (empty counts as unset). */
function pick(o: PlatformOptions, env: Environment, key: keyof typeof PLATFORM_ENV): string | undefined {
  return given(o[key]) ?? given(env[PLATFORM_ENV[key]]);
}

/** Resolves and checks the platform options: a bad region or endpoint is a `ConfigError` naming the option or flag. */
export function resolvePlatform(o: PlatformOptions, env: Environment, cli = false): PlatformSettings {
  const name = (key: keyof typeof PLATFORM_ENV): string => (cli ? FLAGS[key] : key);
  const regionText = pick(o, env, 'region') ?? DEFAULTS.region;
  const region = regionText.trim().toLowerCase();
  if (region !== 'us' && region !== 'eu')
    throw new ConfigError(`${name('region')} must be us or eu, got ${JSON.stringify(regionText)}`);
  const endpoint = pick(o, env, 'endpoint');
  if (endpoint !== undefined) {
    let protocol: string | undefined;
    try {
      protocol = new URL(endpoint).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'http:' && protocol !== 'https:')
      throw new ConfigError(`${name('endpoint')} must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  }
  const credentials: Credentials = {};
  const apiKey = pick(o, env, 'apiKey');
  const secretKey = pick(o, env, 'secretKey');
  const managementKey = pick(o, env, 'managementKey');
  if (apiKey !== undefined) credentials.apiKey = apiKey;
  if (secretKey !== undefined) credentials.secretKey = secretKey;
  if (managementKey !== undefined) credentials.managementKey = managementKey;
  return Object.freeze({ region, endpoint, credentials: Object.freeze(credentials) });
}

/**
 * Refuses a platform without the project's API key and secret key (what every API family but management needs),
 * before any request: a `ConfigError` saying where each comes from.
 */
export function requireProjectKeys(p: PlatformSettings, cli = false): void {
  const missing: string[] = [];
  if (p.credentials.apiKey === undefined)
    missing.push(`an API key (${cli ? '--api-key' : 'apiKey'} or ${PLATFORM_ENV.apiKey})`);
  if (p.credentials.secretKey === undefined)
    missing.push(`a secret key (${cli ? '--secret-key' : 'secretKey'} or ${PLATFORM_ENV.secretKey})`);
  if (missing.length > 0)
    throw new ConfigError(`missing credentials: ${missing.join(' and ')}${cli ? '; or use --sandbox' : ''}`);
}
