/**
 * The settings of one run, resolved once at the edge (the CLI's program, the library's entry functions) from the
 * caller's options or flags, the environment and the defaults (`defaults.ts`), checked, and frozen. Everything
 * below receives the resolved object (or the part it needs) and never reads `process.env`: this is the one module
 * that does. Precedence: option or flag > environment variable > default.
 *
 * decoders/ and sinks/ do not import this module; they get plain options from it (`fastPath`, `hashWorker: false`,
 * the S3 sink's `region`).
 */
import { MAX_EVENT_BYTES_CAP } from '../../decoders/limits.js';
import type { OpenSinkOptions } from '../../sinks/open.js';
import type { HashWorkerOptions } from '../../sinks/output-hash.js';
import { defaultChecksums } from '../../sinks/s3-defaults.js';
import type { S3SinkOptions } from '../../sinks/s3.js';
import type { PlayerOptions } from '../../sinks/player-page.js';
import type { OutputFormat, OutputSpec } from '../../sinks/sink.js';
import { formatByteSize } from './byte-size.js';
import { stripUndefined } from '../http/options.js';
import type { TransportOptions } from '../http/options.js';
import { DEFAULTS } from './defaults.js';
import { formatDuration } from './duration.js';
import { ConfigError } from './errors.js';
import { present, resolveShard, type Shard } from './shard.js';
import { RUN_NAME } from '../../sinks/work-claims.js';
import { compileRedactionPolicy, type RedactionPolicy, type RedactionPolicySpec } from '../redaction/policy.js';
import type { FileVersion } from './types.js';
import type { AssetCaptureSettings } from '../assets/capture.js';
import { originOf } from '../assets/fetch.js';

export { DEFAULTS, PIPELINE_DEFAULTS } from './defaults.js';

/**
 * The environment variables the settings read. The shard's (`JOB_COMPLETION_INDEX`, `REPLAY_EXPORT_SHARD_COUNT`,
 * `AWS_BATCH_JOB_ARRAY_INDEX`, `AWS_BATCH_JOB_ARRAY_SIZE`) are read through `resolveShard`, and `balance`, only for a
 * job's run (`jobEnvironment`). The platform's (`PLATFORM_*`) are read by `platform.ts`, in the same pass; the AWS
 * SDK reads its own.
 */
export const ENV = Object.freeze({
  /** `0`: decode with the TypeScript code alone (`fastPath: false`). */
  wasm: 'REPLAY_EXPORT_WASM',
  /** `0`: hash every local output on the calling thread (`hashWorker: false`). */
  hashWorker: 'REPLAY_EXPORT_HASH_WORKER',
  /** The S3 sink's region with a custom endpoint, when none is given (else the SDK's own chain reads it). */
  awsRegion: 'AWS_REGION',
  awsDefaultRegion: 'AWS_DEFAULT_REGION',
  /** The archive command's `--balance <run>` when the flag is not given. */
  balance: 'REPLAY_EXPORT_BALANCE',
  /** Where catalogues of archives are cached (`catalogueDir`; default `~/.cache/replay-export/catalogues`). */
  catalogueDir: 'REPLAY_EXPORT_CATALOGUE_DIR',
});

export type Environment = Readonly<Record<string, string | undefined>>;

/** The environment a run reads: the source's, else the process's (the one place that reads `process.env`). */
export function environmentOf(source: { env?: Environment | undefined }): Environment {
  return source.env ?? process.env;
}

/** The catalogue folder: the option, else `REPLAY_EXPORT_CATALOGUE_DIR`, else undefined (the catalogue's default). */
function catalogueDirOf(
  option: string | undefined,
  source: { env?: Environment | undefined } = {},
): string | undefined {
  const dir = option ?? environmentOf(source)[ENV.catalogueDir];
  return dir === undefined || dir === '' ? undefined : dir;
}

/** Tuning of file fetching and decoding; every field defaults to `DEFAULTS`. */
interface FetchSettingsOptions {
  /** File version requested from the API (default 3). Either version decodes to the same events. */
  fileVersion?: FileVersion | undefined;
  filesPageSize?: number | undefined;
  /** A replay listing more files than this fails with `TOO_MANY_FILES` (default 100,000). */
  maxFilesPerReplay?: number | undefined;
  filesAhead?: number | undefined;
  /** Compressed bytes held for files fetched ahead (shared by a run). */
  prefetchBytes?: number | undefined;
  urlTtlMs?: number | undefined;
  urlRefreshMarginMs?: number | undefined;
  fileRetries?: number | undefined;
  urlRefreshes?: number | undefined;
  retryBaseMs?: number | undefined;
  retryMaxMs?: number | undefined;
  /**
   * The largest event in bytes (default 256 MiB, at most 1 GiB): a larger one, or a larger array element of a file,
   * fails its replay with `EVENT_TOO_LARGE`, checked while inflating. Peak memory for one event is about this.
   */
  maxEventBytes?: number | undefined;
  /**
   * Inflated bytes one replay may take (default 8 GiB): its files' bytes after gzip, plus each version 2 packed
   * event's inflated payload. More fails the replay with `REPLAY_TOO_LARGE`, checked while inflating.
   */
  maxReplayBytes?: number | undefined;
  /**
   * The decoders' WebAssembly fast paths (default true; `REPLAY_EXPORT_WASM=0` makes it false). False decodes with
   * the TypeScript code alone: the same events and errors, slower.
   */
  fastPath?: boolean | undefined;
  /**
   * A redaction policy (docs/REDACTION.md) applied to every event as it streams, before it is handed on or written:
   * masked text and input values, blocked elements, dropped attributes, patterns. The manifest records its digest
   * (`redaction`), and a resumed archive counts as done only the replays archived under the same policy. Absent:
   * events pass as decoded, byte for byte.
   */
  redact?: RedactionPolicySpec | RedactionPolicy | undefined;
}

/** Asset capture: the allowed origins, and limits (each defaults to `DEFAULTS.assets`). */
export interface AssetCaptureOptions extends Partial<Omit<AssetCaptureSettings, 'origins'>> {
  origins: readonly string[];
}

/** How outputs are written. */
interface OutputSettingsOptions {
  /**
   * Capture the assets the replays reference (stylesheets, fonts, images) from these origins only, stored once per
   * archive under `_assets/<sha256>` (see docs/SINKS.md); the `html` format and `view` then play them offline.
   * Absent (default): nothing is fetched.
   */
  captureAssets?: readonly string[] | AssetCaptureOptions | undefined;
  /** Options of the sink opened for `out` (`local.hashWorker`, `s3.region`, ...). */
  sinkOptions?: OpenSinkOptions | undefined;
  format?: OutputFormat | undefined;
  gzip?: boolean | undefined;
  /**
   * `html`: the player's options, named like rrweb-player's props (`width`/`height` of the replay area, 100–10,000
   * px; `autoPlay`; `speed` 0.5, 1, 2, 4, 8 or 16; `showController`; `skipInactive`); docs/PLAYER.md.
   */
  player?: PlayerOptions | undefined;
}

/** Runs over many replays. */
interface RunSettingsOptions {
  /** Skip replays that started less than this long ago (ms, default 24h; 0 never skips). */
  settleMs?: number | undefined;
  /** Re-check replays recorded `ok` that started within this window (ms); re-export those whose files changed. */
  recheckMs?: number | undefined;
  /** `start` (as listed, default) or `expiry` (closest to deletion first; lists everything before exporting). */
  order?: 'start' | 'expiry' | undefined;
  /** Replays exported at once (default 4). */
  concurrency?: number | undefined;
  shard?: Shard | undefined;
  /** Written into every manifest line of the run. */
  runId?: string | undefined;
  /**
   * Shards sharing one target share out the work (`--balance <run>`): each claims a replay in the target before
   * exporting it, and a shard done with its own replays takes the last unclaimed ones of the others, so the shards end
   * together. `run` names the run, alike for every shard of it and new for each run (a Job's name, a date); letters,
   * digits, `.`, `_`, `-`, at most 64. `waitMs`: how long a shard waits at its end for its replays another one took
   * before exporting them itself (default 10 minutes). Needs a shard of more than one.
   */
  balance?: { run: string; waitMs?: number } | undefined;
  /** Fold the manifest into a snapshot at the end of an archive run and while it grows (default true). */
  compactManifest?: boolean | undefined;
  /** Entries appended between two folds during a run (default `DEFAULTS.compactEvery`). */
  compactEvery?: number | undefined;
  /**
   * Where catalogues of archives are cached (default `REPLAY_EXPORT_CATALOGUE_DIR`, else
   * `~/.cache/replay-export/catalogues`): an archive's catalogue found there is brought up to date at each fold.
   */
  catalogueDir?: string;
  /**
   * An archive quarantines a replay that failed with the same permanent cause (bad data) in this many runs in a row
   * (default 3): recorded `quarantined`, no longer tried, no longer failing the run.
   */
  quarantineAfter?: number | undefined;
  /** An archive tries its quarantined replays again (default false). */
  retryQuarantined?: boolean | undefined;
}

/** Every tunable a caller can give, under the library's option names. */
export interface SettingsOptions extends FetchSettingsOptions, OutputSettingsOptions, RunSettingsOptions {
  /**
   * Only `timeouts.deadlineMs`, `retry.retries` and `retry.maxWaitMs` are settings of the run (`requestDeadlineMs`,
   * `apiRetries`, `maxWaitMs`); the rest goes to the transport.
   */
  transportOptions?: TransportTuning | undefined;
}

/** The transport's tuning a caller may give (retries, timeouts, per-family caps); the run sets the rest. */
type TransportTuning = Omit<TransportOptions, 'region' | 'endpoint' | 'credentials' | 'logger'>;

/**
 * Every tunable of `SettingsOptions`, by name (the compiler keeps it whole). A caller passing resolved `settings`
 * together with one of these gets a `ConfigError`: one of the two would be silently ignored.
 */
const TUNABLES: Readonly<Record<keyof SettingsOptions, true>> = {
  fileVersion: true,
  filesPageSize: true,
  maxFilesPerReplay: true,
  filesAhead: true,
  prefetchBytes: true,
  urlTtlMs: true,
  urlRefreshMarginMs: true,
  fileRetries: true,
  urlRefreshes: true,
  retryBaseMs: true,
  retryMaxMs: true,
  maxEventBytes: true,
  maxReplayBytes: true,
  fastPath: true,
  redact: true,
  captureAssets: true,
  sinkOptions: true,
  format: true,
  gzip: true,
  player: true,
  settleMs: true,
  recheckMs: true,
  order: true,
  concurrency: true,
  shard: true,
  runId: true,
  balance: true,
  compactManifest: true,
  compactEvery: true,
  catalogueDir: true,
  quarantineAfter: true,
  retryQuarantined: true,
  transportOptions: true,
};

/** The tunables set in `o` (not undefined), by name. */
export function givenTunables(o: object): string[] {
  return Object.keys(TUNABLES).filter((k) => (o as Record<string, unknown>)[k] !== undefined);
}

/** Where the settings come from, beyond the options: the environment. */
export interface SettingsSource {
  /** Default `process.env`. */
  env?: Environment | undefined;
  /**
   * A job's run (the CLI's `archive`): without a `shard` option the shard comes from the job's environment
   * (`resolveShard`: a Kubernetes Indexed Job's or an AWS Batch array job's variables), and without a `balance`
   * option the balanced run from `REPLAY_EXPORT_BALANCE`. Default false: neither is read.
   */
  jobEnvironment?: boolean | undefined;
}

/** The local sink's hashing worker as resolved: every option set, or off. */
type HashWorkerSetting = Readonly<Required<HashWorkerOptions>> | false;

/** The sink options of a run, resolved (the caller's objects inside, e.g. an S3 client, are theirs, not frozen). */
interface SinkSettings {
  readonly local: Readonly<
    Omit<NonNullable<OpenSinkOptions['local']>, 'hashWorker'> & { hashWorker: HashWorkerSetting }
  >;
  readonly s3: Readonly<S3SinkOptions>;
}

/** `T`'s fields, each set and read-only: an option as the run resolves it. */
type Resolved<T> = { readonly [K in keyof T]-?: Exclude<T[K], undefined> };

/** One run's settings: read-only, every field set. The one options shape of the pipeline's internals. */
export interface Settings
  extends Resolved<Omit<FetchSettingsOptions, 'filesPageSize' | 'redact'>>,
    Resolved<Pick<RunSettingsOptions, 'concurrency' | 'order' | 'settleMs' | 'quarantineAfter' | 'retryQuarantined'>> {
  readonly filesPageSize: number | undefined;
  readonly output: Readonly<OutputSpec>;
  /** The run's redaction policy, compiled; undefined: none (events pass as decoded). */
  readonly redaction: RedactionPolicy | undefined;
  readonly sinkOptions: SinkSettings;
  readonly recheckMs: number | undefined;
  readonly shard: Readonly<Shard> | undefined;
  readonly runId: string | undefined;
  /** A balanced run (`balance`): its name and wait; undefined: each shard exports its own replays only. */
  readonly balance: Readonly<{ run: string; waitMs: number; tail: number }> | undefined;
  /** Entries appended between two folds of the manifest during an archive run; `undefined`: never folded. */
  readonly compactEvery: number | undefined;
  /** The catalogue folder given (option or environment); undefined: the catalogue's default. */
  readonly catalogueDir: string | undefined;
  /** The transport's deadline for one HTTP attempt, headers and body. */
  readonly requestDeadlineMs: number;
  /** The transport's retries of one API request after its first attempt (`retry.retries`; 0: `--no-retry`). */
  readonly apiRetries: number;
  /** The most time the transport's waits (retries, budgets, pauses) may take together (`retry.maxWaitMs`); undefined: no bound. */
  readonly maxWaitMs: number | undefined;
  /** Asset capture; undefined: off (nothing fetched, the events scanned for nothing). */
  readonly captureAssets: Readonly<AssetCaptureSettings> | undefined;
}

type Kind = 'count' | 'bytes' | 'ms';

/** Checks values, each a `ConfigError` naming its option (`OptionProblem`: a caller may name it otherwise). */
class Checker {
  /**
   * A count, a number of bytes or a duration (ms) from `min` to `max`: a whole number, except a duration unless
   * `whole`. Shown in bytes and milliseconds, or in units (`256MiB`, `5m`) when the caller's problem says so.
   */
  number(
    key: string,
    value: number,
    kind: Kind,
    min: number,
    max = Number.MAX_SAFE_INTEGER,
    whole = kind !== 'ms',
  ): number {
    const ok =
      typeof value === 'number' &&
      (whole ? Number.isSafeInteger(value) : Number.isFinite(value)) &&
      value >= min &&
      value <= max;
    if (ok) return value;
    throw ConfigError.of({
      option: key,
      say: (name, units) => rangeText(name(key), { value, kind, min, max, whole }, units),
    });
  }

  oneOf<T extends string | number | boolean>(key: string, value: T, allowed: readonly T[]): T {
    if (allowed.includes(value)) return value;
    const text = `must be ${allowed.map((a) => JSON.stringify(a)).join(' or ')}, got ${JSON.stringify(value) ?? String(value)}`;
    throw ConfigError.of({ option: key, say: (name) => `${name(key)} ${text}` });
  }
}

/** `<name> must be <range>, got <value>`: in bytes and milliseconds, or with `units` in the flags' units. */
function rangeText(
  name: string,
  r: { value: unknown; kind: Kind; min: number; max: number; whole: boolean },
  units: boolean,
): string {
  const { kind, min, max } = r;
  const show = (n: number): string =>
    units && kind === 'bytes' ? formatByteSize(n) : units && kind === 'ms' ? formatDuration(n) : String(n);
  const what = units
    ? { count: 'a whole number', bytes: 'a size', ms: 'a duration' }[kind]
    : {
        count: 'a whole number',
        bytes: 'a whole number of bytes',
        ms: r.whole ? 'a whole number of milliseconds' : 'a number of milliseconds',
      }[kind];
  const range =
    max !== Number.MAX_SAFE_INTEGER
      ? `${what} from ${show(min)} to ${show(max)}`
      : kind === 'ms' && min === 1
        ? `longer than 0 (${what})`
        : `${what} of at least ${show(min)}`;
  const got =
    typeof r.value === 'number' && Number.isSafeInteger(r.value)
      ? show(r.value)
      : (JSON.stringify(r.value) ?? String(r.value));
  return `${name} must be ${range}, got ${got}`;
}

/** The html player's options, each checked (the page checks them again, as it checks its URL's). */
function playerSettings(o: PlayerOptions, c: Checker): PlayerOptions {
  const sw = [true, false];
  return Object.freeze(
    stripUndefined({
      width: o.width === undefined ? undefined : c.number('player.width', o.width, 'count', 100, 10000),
      height: o.height === undefined ? undefined : c.number('player.height', o.height, 'count', 100, 10000),
      autoPlay: o.autoPlay === undefined ? undefined : c.oneOf('player.autoPlay', o.autoPlay, sw),
      speed: o.speed === undefined ? undefined : c.oneOf('player.speed', o.speed, [0.5, 1, 2, 4, 8, 16]),
      showController:
        o.showController === undefined ? undefined : c.oneOf('player.showController', o.showController, sw),
      skipInactive: o.skipInactive === undefined ? undefined : c.oneOf('player.skipInactive', o.skipInactive, sw),
    }),
  );
}

/** A `0`/`1` switch from the environment: undefined when unset or empty; anything else is a ConfigError. */
function envSwitch(env: Environment, name: string): boolean | undefined {
  const raw = env[name];
  if (!present(raw)) return undefined;
  if (raw.trim() === '0') return false;
  if (raw.trim() === '1') return true;
  throw new ConfigError(`${name} must be 0 or 1, got ${JSON.stringify(raw)}`);
}

function sinkSettings(o: OpenSinkOptions | undefined, env: Environment, c: Checker): SinkSettings {
  const local = o?.local ?? {};
  const given = local.hashWorker;
  const hashWorker: HashWorkerSetting =
    given === false || (given === undefined && envSwitch(env, ENV.hashWorker) === false)
      ? false
      : Object.freeze({ ...DEFAULTS.hashWorker, ...stripUndefined(given ?? {}) });
  const s3 = o?.s3 ?? {};
  const endpoint = s3.endpoint;
  // Without a custom endpoint the SDK's chain finds the region (AWS_REGION, config files); with one, ours does.
  const envRegion = [env[ENV.awsRegion], env[ENV.awsDefaultRegion]].find(present);
  const region = s3.region ?? (endpoint === undefined ? undefined : (envRegion ?? DEFAULTS.s3.endpointRegion));
  return Object.freeze({
    local: Object.freeze({ ...local, hashWorker }),
    s3: Object.freeze({
      ...s3,
      region,
      partSize: c.number('s3.partSize', s3.partSize ?? DEFAULTS.s3.partSize, 'bytes', DEFAULTS.s3.minPartSize),
      queueSize: c.number('s3.queueSize', s3.queueSize ?? DEFAULTS.s3.queueSize, 'count', 1),
      checksums: c.oneOf('s3.checksums', s3.checksums ?? defaultChecksums(endpoint), [
        'when-supported',
        'when-required',
      ] as const),
    }),
  });
}

const ORIGINS = 'captureAssets.origins';

function assetSettings(o: SettingsOptions['captureAssets'], c: Checker): Readonly<AssetCaptureSettings> | undefined {
  if (o === undefined) return undefined;
  const given: AssetCaptureOptions = Array.isArray(o)
    ? { origins: o as readonly string[] }
    : (o as AssetCaptureOptions);
  const origins = given.origins.map((text) => {
    const origin = originOf(text);
    if (origin === undefined)
      throw ConfigError.of({
        option: ORIGINS,
        say: (name) => `${name(ORIGINS)} takes http(s) origins (https://cdn.example.com), got ${JSON.stringify(text)}`,
      });
    return origin;
  });
  if (origins.length === 0)
    throw ConfigError.of({ option: ORIGINS, say: (name) => `${name(ORIGINS)} needs at least one origin` });
  const d = DEFAULTS.assets;
  return Object.freeze({
    origins: Object.freeze([...new Set(origins)]),
    concurrency: c.number('captureAssets.concurrency', given.concurrency ?? d.concurrency, 'count', 1),
    maxBytes: c.number('captureAssets.maxBytes', given.maxBytes ?? d.maxBytes, 'bytes', 1),
    timeoutMs: c.number('captureAssets.timeoutMs', given.timeoutMs ?? d.timeoutMs, 'ms', 1, undefined, true),
    maxRedirects: c.number('captureAssets.maxRedirects', given.maxRedirects ?? d.maxRedirects, 'count', 0),
    maxUrls: c.number('captureAssets.maxUrls', given.maxUrls ?? d.maxUrls, 'count', 1),
    cssDepth: c.number('captureAssets.cssDepth', given.cssDepth ?? d.cssDepth, 'count', 0),
    retries: c.number('captureAssets.retries', given.retries ?? d.retries, 'count', 0),
    retryBaseMs: c.number('captureAssets.retryBaseMs', given.retryBaseMs ?? d.retryBaseMs, 'ms', 0),
    failureMemoryMs: c.number('captureAssets.failureMemoryMs', given.failureMemoryMs ?? d.failureMemoryMs, 'ms', 0),
  });
}

/** The shard: the option, else (a job's run) the job's environment (`resolveShard`), else none. */
function shardSetting(
  o: SettingsOptions,
  source: SettingsSource,
  env: Environment,
  c: Checker,
): Readonly<Shard> | undefined {
  if (o.shard === undefined) {
    const shard = source.jobEnvironment === true ? resolveShard(undefined, env) : undefined;
    return shard === undefined ? undefined : Object.freeze(shard);
  }
  const count = c.number('shard.count', o.shard.count, 'count', 1);
  return Object.freeze({ index: c.number('shard.index', o.shard.index, 'count', 0, count - 1), count });
}

/** The balanced run: the option, else (a job's run) `REPLAY_EXPORT_BALANCE`, else none; it needs shards. */
function balanceSetting(
  o: SettingsOptions,
  source: SettingsSource,
  env: Environment,
  c: Checker,
  shard: Readonly<Shard> | undefined,
): Settings['balance'] {
  const fromEnv = o.balance === undefined && source.jobEnvironment === true && present(env[ENV.balance]);
  const run = fromEnv ? env[ENV.balance]!.trim() : o.balance?.run;
  if (run === undefined) return undefined;
  const named = (name: (option: string) => string): string => (fromEnv ? ENV.balance : name('balance'));
  if (typeof run !== 'string' || !RUN_NAME.test(run)) {
    throw ConfigError.of({
      option: 'balance',
      say: (name) =>
        `${named(name)} takes the run's name: 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit, got ${JSON.stringify(run)}`,
    });
  }
  if (shard === undefined || shard.count < 2) {
    throw ConfigError.of({
      option: 'balance',
      say: (name) => `${named(name)} shares the work of shards: it needs ${name('shard')} with more than one shard`,
    });
  }
  const waitMs = c.number('balance.waitMs', o.balance?.waitMs ?? DEFAULTS.balance.waitMs, 'ms', 0);
  return Object.freeze({ run, waitMs, tail: DEFAULTS.balance.tail });
}

/**
 * Resolves one run's settings: each field from the options, else the environment (where a variable exists), else
 * `DEFAULTS`; checked once here (out of range: `ConfigError` naming the option, its `problem` for a caller to name
 * it otherwise; a bad shard in the environment: `ShardConfigError`), and frozen. Called by the run alone (`openRun`).
 */
export function resolveSettings(o: SettingsOptions = {}, source: SettingsSource = {}): Settings {
  const env = environmentOf(source);
  const c = new Checker();
  const d = DEFAULTS;
  const recheckMs = o.recheckMs === undefined ? undefined : c.number('recheckMs', o.recheckMs, 'ms', 0);
  const filesPageSize =
    o.filesPageSize === undefined ? undefined : c.number('filesPageSize', o.filesPageSize, 'count', 1);
  const maxWait = o.transportOptions?.retry?.maxWaitMs;
  const shard = shardSetting(o, source, env, c);
  const settings: Settings = {
    fileVersion: c.oneOf('fileVersion', o.fileVersion ?? d.fileVersion, [2, 3] as const),
    filesPageSize,
    maxFilesPerReplay: c.number('maxFilesPerReplay', o.maxFilesPerReplay ?? d.maxFilesPerReplay, 'count', 1),
    filesAhead: c.number('filesAhead', o.filesAhead ?? d.filesAhead, 'count', 0),
    prefetchBytes: c.number('prefetchBytes', o.prefetchBytes ?? d.prefetchBytes, 'bytes', 1),
    urlTtlMs: c.number('urlTtlMs', o.urlTtlMs ?? d.urlTtlMs, 'ms', 0),
    urlRefreshMarginMs: c.number('urlRefreshMarginMs', o.urlRefreshMarginMs ?? d.urlRefreshMarginMs, 'ms', 0),
    fileRetries: c.number('fileRetries', o.fileRetries ?? d.fileRetries, 'count', 0),
    urlRefreshes: c.number('urlRefreshes', o.urlRefreshes ?? d.urlRefreshes, 'count', 0),
    retryBaseMs: c.number('retryBaseMs', o.retryBaseMs ?? d.retryBaseMs, 'ms', 0),
    retryMaxMs: c.number('retryMaxMs', o.retryMaxMs ?? d.retryMaxMs, 'ms', 0),
    maxEventBytes: c.number('maxEventBytes', o.maxEventBytes ?? d.maxEventBytes, 'bytes', 1, MAX_EVENT_BYTES_CAP),
    maxReplayBytes: c.number('maxReplayBytes', o.maxReplayBytes ?? d.maxReplayBytes, 'bytes', 1),
    fastPath: c.oneOf('fastPath', o.fastPath ?? envSwitch(env, ENV.wasm) ?? d.fastPath, [true, false]),
    output: Object.freeze({
      format: c.oneOf('format', o.format ?? d.format, ['json', 'ndjson', 'html'] as const),
      gzip: c.oneOf('gzip', o.gzip ?? d.gzip, [true, false]),
      player: o.player === undefined ? undefined : playerSettings(o.player, c),
    }),
    redaction: o.redact === undefined ? undefined : compileRedactionPolicy(o.redact),
    sinkOptions: sinkSettings(o.sinkOptions, env, c),
    concurrency: c.number('concurrency', o.concurrency ?? d.concurrency, 'count', 1),
    order: c.oneOf('order', o.order ?? d.order, ['start', 'expiry'] as const),
    settleMs: c.number('settleMs', o.settleMs ?? d.settleMs, 'ms', 0),
    recheckMs,
    shard,
    runId: o.runId,
    balance: balanceSetting(o, source, env, c, shard),
    compactEvery: c.oneOf('compactManifest', o.compactManifest ?? true, [true, false])
      ? c.number('compactEvery', o.compactEvery ?? d.compactEvery, 'count', 1)
      : undefined,
    catalogueDir: catalogueDirOf(o.catalogueDir, source),
    quarantineAfter: c.number('quarantineAfter', o.quarantineAfter ?? d.quarantineAfter, 'count', 1),
    retryQuarantined: c.oneOf('retryQuarantined', o.retryQuarantined ?? false, [true, false]),
    requestDeadlineMs: c.number(
      'requestDeadlineMs',
      o.transportOptions?.timeouts?.deadlineMs ?? d.requestDeadlineMs,
      'ms',
      1,
      undefined,
      true,
    ),
    apiRetries: c.number('apiRetries', o.transportOptions?.retry?.retries ?? d.apiRetries, 'count', 0),
    maxWaitMs: maxWait === undefined ? undefined : c.number('maxWaitMs', maxWait, 'ms', 0),
    captureAssets: assetSettings(o.captureAssets, c),
  };
  return Object.freeze(settings);
}
