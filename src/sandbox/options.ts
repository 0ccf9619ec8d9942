import { ReplayExportError } from '../errors.js';
import { stripUndefined } from '../http/options.js';
import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';
import { REPLAY } from './spec-values.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { Faults } from './faults.js';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from './rate-limits.js';

/** An explicit extra replay served with the files and expected events of a named sample. */
export interface ExtraReplay {
  /** Any id in device_id/session_id form (split at the last slash): `../x`, `a%2Fb/c`, unicode, long device ids. */
  replay_id: string;
  /** The sample (its `name` in samples/index.json) whose files this replay serves. */
  sample: string;
  start_time?: string;
  end_time?: string;
  retention_in_days?: number;
  platform_id?: number;
}

export interface SandboxOptions {
  /** 0 = an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  apiKey?: string;
  secretKey?: string;
  /** The experiment and flag management key (`Authorization: Bearer <key>`). Default `sandbox-management-key`. */
  managementKey?: string;
  /** A folder in the samples layout (index.json, expected/, files/). Default `<package root>/samples`. */
  samplesDir?: string;
  /** Synthetic replays cloned from the samples (see docs/SANDBOX.md for their deterministic shapes). */
  replicas?: number;
  extraReplays?: ExtraReplay[];
  /** Lifetime of presigned file URLs; sent in whole seconds as X-Amz-Expires. Default 900000 (15 minutes). */
  urlTtlMs?: number;
  faults?: Partial<Faults>;
  /**
   * The clock of the sandbox's waits (the `latencyMs` fault) and, unless `now` is given, of its time readings. Default:
   * the real one. A test that moves it itself decides when a delayed answer goes.
   */
  clock?: Clock;
  /**
   * Time readings: URL signatures and their expiry, limit windows, arrivals, records' times. Default: the clock's.
   */
  now?: () => number;
  /** Replay ids whose files endpoint answers 404 "no files yet" until released. */
  held?: string[];
  /**
   * A listing that keeps growing: after each of the first `pages` listing pages served, `perPage` new replays that
   * started that moment (`now`) join the catalogue (files of the first sample), as replays arriving while a run pages.
   */
  listGrowth?: { perPage: number; pages: number };
  /** The order of a listing that names none (`sort_order`). Default desc. */
  sortOrder?: 'asc' | 'desc';
  /** `{ replayId: n }`: the last n files (of each version) of the replay are not listed until released. */
  hiddenTail?: Record<string, number>;
  /**
   * Requests the API host serves at once (spec: "5 concurrent requests across all REST endpoints"); one more is
   * answered 429 with Retry-After: 1. 0 turns the limit off. Default 5.
   */
  apiConcurrency?: number;
  /**
   * The documented limits of the other families (dashboard cost, user activity, taxonomy, mapping); each left out
   * keeps the spec's value (`DEFAULT_RATE_LIMITS`). A request over one is answered 429 with Retry-After.
   */
  limits?: Partial<RateLimitSettings>;
  /**
   * Multiplies the length of every limit window (five minutes, one hour, 30 s): 0.01 makes the dashboard's five
   * minutes 3 s, so that tests can fill and drain a window. Default 1. The windows run on `now`.
   */
  timeScale?: number;
  /**
   * `start_time`/`end_time` of the replay list are not named by the spec ("Query parameters … beyond those named
   * above: not shown"); the sandbox applies them by default (an assumption, docs/SANDBOX.md). `true` ignores them,
   * as the platform may: every replay is listed whatever they say (to test that a client filters on its own).
   */
  ignoreTimeFilters?: boolean;
}

/** The options with every default filled in, `limits` whole. */
export interface ResolvedSandboxOptions extends Required<Omit<SandboxOptions, 'limits'>> {
  limits: RateLimitSettings;
}

/** Every default of the sandbox, in one place. */
export const SANDBOX_DEFAULTS = Object.freeze({
  port: 0,
  host: '127.0.0.1',
  apiKey: 'sandbox-api-key',
  secretKey: 'sandbox-secret-key',
  managementKey: 'sandbox-management-key',
  replicas: 0,
  urlTtlMs: REPLAY.presignedUrlMs,
  /** Records of a list page without `page_size` (the spec states no default and no maximum; none is applied). */
  listPageSize: 50,
  filesPageSize: 100,
  maxReplayIds: REPLAY.maxReplayIds,
  fileVersion: 3 as 2 | 3,
  sortOrder: 'desc' as 'asc' | 'desc',
  /** The spec's limit of concurrent requests across all REST endpoints of a project. */
  apiConcurrency: 5,
});

export class SandboxConfigError extends ReplayExportError {
  constructor(message: string) {
    super(message, { code: 'SANDBOX_CONFIG', category: 'usage' });
  }
}

export function resolveOptions(o: SandboxOptions = {}): ResolvedSandboxOptions {
  const r: ResolvedSandboxOptions = {
    port: o.port ?? SANDBOX_DEFAULTS.port,
    host: o.host ?? SANDBOX_DEFAULTS.host,
    apiKey: o.apiKey ?? SANDBOX_DEFAULTS.apiKey,
    secretKey: o.secretKey ?? SANDBOX_DEFAULTS.secretKey,
    managementKey: o.managementKey ?? SANDBOX_DEFAULTS.managementKey,
    samplesDir: o.samplesDir ?? join(packageRoot(), 'samples'),
    replicas: o.replicas ?? SANDBOX_DEFAULTS.replicas,
    extraReplays: o.extraReplays ?? [],
    urlTtlMs: o.urlTtlMs ?? SANDBOX_DEFAULTS.urlTtlMs,
    faults: o.faults ?? {},
    clock: o.clock ?? systemClock,
    now: o.now ?? (o.clock !== undefined ? () => o.clock!.now() : Date.now),
    held: o.held ?? [],
    listGrowth: { perPage: 0, pages: 0, ...o.listGrowth },
    sortOrder: o.sortOrder ?? SANDBOX_DEFAULTS.sortOrder,
    hiddenTail: o.hiddenTail ?? {},
    apiConcurrency: o.apiConcurrency ?? SANDBOX_DEFAULTS.apiConcurrency,
    limits: { ...DEFAULT_RATE_LIMITS, ...stripUndefined(o.limits ?? {}) },
    timeScale: o.timeScale ?? 1,
    ignoreTimeFilters: o.ignoreTimeFilters ?? false,
  };
  if (!Number.isInteger(r.port) || r.port < 0 || r.port > 65535) throw new SandboxConfigError('port must be 0..65535');
  if (!Number.isInteger(r.replicas) || r.replicas < 0)
    throw new SandboxConfigError('replicas must be a non-negative integer');
  const g = r.listGrowth;
  if (!Number.isInteger(g.perPage) || g.perPage < 0 || !Number.isInteger(g.pages) || g.pages < 0)
    throw new SandboxConfigError('listGrowth.perPage and .pages must be non-negative integers');
  if (r.sortOrder !== 'asc' && r.sortOrder !== 'desc') throw new SandboxConfigError('sortOrder must be asc or desc');
  if (!Number.isInteger(r.apiConcurrency) || r.apiConcurrency < 0)
    throw new SandboxConfigError('apiConcurrency must be a non-negative integer (0: no limit)');
  for (const [name, v] of Object.entries(r.limits)) {
    if (!(name in DEFAULT_RATE_LIMITS))
      throw new SandboxConfigError(
        `limits.${name} is not a limit (known: ${Object.keys(DEFAULT_RATE_LIMITS).join(', ')})`,
      );
    if (!Number.isInteger(v) || v < 1) throw new SandboxConfigError(`limits.${name} must be a positive integer`);
  }
  if (typeof r.timeScale !== 'number' || !(r.timeScale > 0) || !Number.isFinite(r.timeScale))
    throw new SandboxConfigError('timeScale must be a positive number');
  if (!(r.urlTtlMs >= 1000)) throw new SandboxConfigError('urlTtlMs must be at least 1000');
  if (r.apiKey.includes(':')) throw new SandboxConfigError('apiKey cannot contain ":" (HTTP Basic user name)');
  if (!/^[\x21-\x7e]+$/.test(r.managementKey))
    throw new SandboxConfigError('managementKey must be non-empty printable ASCII without spaces (a Bearer token)');
  for (const [id, n] of Object.entries(r.hiddenTail)) {
    if (!Number.isInteger(n) || n < 0)
      throw new SandboxConfigError(`hiddenTail of ${id} must be a non-negative integer`);
  }
  return r;
}
