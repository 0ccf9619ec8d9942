/**
 * One run: the composition root of everything a command or a library entry does. `openRun` resolves the
 * configuration once — the caller's options (or the CLI's flags), then the environment, then the defaults — into
 * frozen settings and platform, and the `Run` it returns builds each part once, when first needed, and owns it:
 * one transport (one undici Agent and limiter for the API, the storage downloads and the asset fetches), the session
 * replay client, the other API families' clients, the archive (the target opened once), the asset capture and the
 * logger. Close it with `await using` (AsyncDisposable) or `close()`; a part the caller handed in (a transport, a
 * client, a sink) is used, never closed.
 */
import { archiveOfSink, openArchive, type Archive, type SinkNeed } from '../../sinks/archive.js';
import type { Sink } from '../../sinks/sink.js';
import type { Logger } from '../http/logger.js';
import { Transport } from '../http/transport.js';
import { DEFAULT_CONCURRENCY, DEFAULT_HOST_CONCURRENCY, type TransportOptions } from '../http/options.js';
import { SessionReplayClient } from '../replay/client.js';
import type { ApiClients } from '../clients/catalogue.js';
import type { AssetCapture } from '../assets/capture.js';
import { ConfigError } from './errors.js';
import {
  PLATFORM_ENV,
  requireProjectKeys,
  resolvePlatform,
  type PlatformOptions,
  type PlatformSettings,
} from './platform.js';
import type { ReplayNotice } from './replay-stream.js';
import {
  environmentOf,
  givenTunables,
  resolveSettings,
  type Settings,
  type SettingsOptions,
  type SettingsSource,
} from './settings.js';
import { fairShareStart, type Shard } from './shard.js';
import type { Downloader, ReplayApi } from './types.js';
import { systemClock, type Clock } from '../util/clock.js';

export type { ReplayApi } from './types.js';

/**
 * The replay family's starting window: the shard's fair share of the project's limit (`fairShareStart`), unless the
 * caller gave one or turned the adaptive windows off. The limit is the host's cap, within the family's maximum.
 */
function replayStart(tuning: TransportOptions, shard: Readonly<Shard> | undefined): Pick<TransportOptions, 'adaptive'> {
  const given = tuning.adaptive;
  if (given === false || given?.initial?.replay !== undefined) return { adaptive: given };
  const limit = Math.min(
    tuning.hostConcurrency ?? DEFAULT_HOST_CONCURRENCY,
    tuning.concurrency?.replay ?? DEFAULT_CONCURRENCY.replay,
  );
  return { adaptive: { ...given, initial: { ...given?.initial, replay: fairShareStart(limit, shard) } } };
}

/** Parts a caller may hand in instead of the ones a run builds (tests, a shared transport, your own client). */
export interface RunParts {
  /** A transport to share; the run uses it and never closes it. */
  transport?: Transport | undefined;
  /** A session replay client instead of one on the run's transport. */
  client?: ReplayApi | undefined;
  /** A downloader for presigned URLs instead of the transport's. */
  download?: Downloader | undefined;
  /** An archive of your own instead of one opened from `out`; the run uses it and never closes it. */
  sink?: Sink | undefined;
}

/**
 * Everything a run is configured with: how to reach the platform, every tunable (or `settings` resolved
 * beforehand, not both), where outputs go, and the caller's hooks.
 */
export interface RunOptions extends PlatformOptions, SettingsOptions, RunParts {
  /**
   * Settings resolved by `resolveSettings` (once for many runs). When given, no tunable may be given beside them
   * (a `ConfigError` names it), and the environment is not read for them.
   */
  settings?: Settings | undefined;
  /** Where outputs go: a folder (`./replays`) or `s3://bucket/prefix`, opened with `sinkOptions`. */
  out?: string | undefined;
  /**
   * A listing (replays, or a replay's files) returning this many pages in a row with no new replay id or file key
   * is stopped with ListingStalledError (default 3).
   */
  listingStallPages?: number | undefined;
  /** Structured log events: every wait (429 with its limit, Retry-After, backoff), retry and failure. */
  logger?: Logger | undefined;
  signal?: AbortSignal | undefined;
  /** The clock the run waits and reads time on, its transport's included (default: the real one; tests). */
  clock?: Clock | undefined;
  onNotice?: ((notice: ReplayNotice) => void) | undefined;
}

/** How to reach the platform: the platform options and the parts a caller may share (a subset of `RunOptions`). */
export type ConnectionOptions = PlatformOptions &
  Pick<RunOptions, 'transport' | 'client' | 'download' | 'listingStallPages' | 'logger' | 'transportOptions'>;

/** Where the configuration comes from beyond the options: the environment (default: the process's), a job's or not. */
export interface RunSource extends SettingsSource {
  /** The platform's values below the environment's (`PLATFORM_*`): the CLI's sandbox gives its management key. */
  platformDefaults?: PlatformOptions | undefined;
}

/**
 * How a run opens its archive: `create: false` for the tools (`forget`, `verify`, `view`, `video`), which refuse a
 * target without a manifest (`ArchiveNotFoundError`) and never make one; `create: true` for writers. `readOnly`: read
 * as it is (no temporary files swept, no hashing worker: nothing is written). `needs`: what a caller's `sink` must
 * be able to do (checked when it is adapted).
 */
export interface ArchiveAccess {
  create: boolean;
  readOnly?: boolean | undefined;
  needs?: readonly SinkNeed[] | undefined;
}

/** Resolves the configuration of a run: checked (`ConfigError` naming the option: its `problem`) and frozen. */
function resolveRunConfig(
  options: RunOptions,
  source: RunSource = {},
): { settings: Settings; platform: PlatformSettings } {
  const env = environmentOf(source);
  if (options.settings !== undefined) {
    const loose = givenTunables(options);
    if (loose.length > 0) {
      throw new ConfigError(
        `pass either resolved \`settings\` or tunables, not both: got \`settings\` and ${loose.map((k) => `\`${k}\``).join(', ')}`,
      );
    }
  }
  const settings = options.settings ?? resolveSettings(options, { ...source, env });
  const platform = resolvePlatform(options, env, source.platformDefaults);
  return { settings, platform };
}

export class Run implements AsyncDisposable {
  readonly settings: Settings;
  readonly platform: PlatformSettings;
  readonly logger: Logger | undefined;
  readonly signal: AbortSignal | undefined;
  readonly clock: Clock;
  readonly now: () => number;
  readonly onNotice: ((notice: ReplayNotice) => void) | undefined;
  readonly #options: RunOptions;
  #transport: Transport | undefined;
  #ownedTransport: Transport | undefined;
  #replays: ReplayApi | undefined;
  #clients: ApiClients | undefined;
  #archive: Promise<Archive> | undefined;
  #assets: AssetCapture | undefined;
  #closed: Promise<void> | undefined;

  constructor(options: RunOptions, source: RunSource = {}) {
    const { settings, platform } = resolveRunConfig(options, source);
    this.settings = settings;
    this.platform = platform;
    this.#options = options;
    this.logger = options.logger;
    this.signal = options.signal;
    this.clock = options.clock ?? systemClock;
    this.now = () => this.clock.now();
    this.onNotice = options.onNotice;
  }

  #open(): void {
    if (this.#closed !== undefined) throw new ConfigError('this run is closed');
  }

  /** The run's transport: the caller's, or one built here on first use (the settings' request deadline and retries, the logger). */
  transport(): Transport {
    this.#open();
    if (this.#transport !== undefined) return this.#transport;
    if (this.#options.transport !== undefined) return (this.#transport = this.#options.transport);
    const tuning = this.#options.settings === undefined ? (this.#options.transportOptions ?? {}) : {};
    const transport = new Transport({
      ...tuning,
      clock: this.clock,
      ...replayStart(tuning, this.settings.shard),
      timeouts: { ...tuning.timeouts, deadlineMs: this.settings.requestDeadlineMs },
      retry: {
        ...tuning.retry,
        retries: this.settings.apiRetries,
        maxWaitMs: this.settings.maxWaitMs,
      },
      region: this.platform.region,
      endpoint: this.platform.endpoint,
      credentials: { ...this.platform.credentials },
      logger: this.logger,
    });
    this.#ownedTransport = transport;
    return (this.#transport = transport);
  }

  /** The session replay client (the caller's, or one on the run's transport); needs the project's keys. */
  replays(): ReplayApi {
    this.#open();
    if (this.#replays !== undefined) return this.#replays;
    if (this.#options.client !== undefined) return (this.#replays = this.#options.client);
    if (this.#options.transport === undefined) requireProjectKeys(this.platform);
    const stall = this.#options.listingStallPages;
    return (this.#replays = new SessionReplayClient(
      this.transport(),
      stall !== undefined ? { stallPages: stall } : {},
    ));
  }

  /** One client of each API family on the run's transport (loaded on first use: a replay export never loads them). */
  async clients(): Promise<ApiClients> {
    this.#open();
    if (this.#clients !== undefined) return this.#clients;
    const { ApiClients: Clients } = await import('../clients/catalogue.js');
    return (this.#clients ??= new Clients(this.transport()));
  }

  /** Streams a presigned URL: the caller's downloader, or the transport's (no auth header, the storage family). */
  readonly download: Downloader = (url, o) => {
    const own = this.#options.download;
    if (own !== undefined) return own(url, o);
    return this.transport()
      .download(url, { signal: o.signal })
      .then((res) => ({ chunks: res.body, size: contentLength(res.headers) }));
  };

  /** Resolves once no request of the replay family waits for a slot; immediate with a caller's client and no transport. */
  room(signal: AbortSignal): Promise<void> {
    if (this.#options.client !== undefined && this.#options.transport === undefined) return Promise.resolve();
    return this.transport().room('replay', signal);
  }

  /**
   * The run's archive — the one way every entry and tool opens one: the caller's `sink` (adapted by `archiveOfSink`,
   * never closed here), or `out` opened once with `openArchive` as `access` says (later calls get the same one).
   * Without either: a `ConfigError`.
   */
  archive(access: ArchiveAccess = { create: true }): Promise<Archive> {
    this.#open();
    if (this.#archive !== undefined) return this.#archive;
    const { sink, out } = this.#options;
    if (sink !== undefined) {
      const needs = [
        ...(access.needs ?? []),
        ...(this.settings.captureAssets !== undefined ? ['assets' as const] : []),
      ];
      return (this.#archive = Promise.resolve().then(() => archiveOfSink(sink, needs)));
    }
    if (out === undefined)
      return Promise.reject(
        ConfigError.of({ option: 'out', say: (name) => `an archive is needed: pass ${name('out')} or a sink` }),
      );
    const { local, s3 } = this.settings.sinkOptions;
    // A reader writes nothing: no temporary files to sweep, no hashing worker.
    const reader = access.readOnly === true ? { ...local, hashWorker: false as const, cleanStaleTemp: false } : local;
    const opening = openArchive(out, { create: access.create, local: reader, s3 });
    // A refused opening (no archive there) is not kept: nothing to close, and the error is the caller's.
    opening.catch(() => {
      if (this.#archive === opening) this.#archive = undefined;
    });
    return (this.#archive = opening);
  }

  /**
   * The run's asset capture (`settings.captureAssets`), on the run's archive and transport: each asset URL fetched
   * and stored once per run, whatever the number of replays (and entries) referencing it. Undefined when off.
   * The capture's module is loaded on this first call.
   */
  async assets(): Promise<AssetCapture | undefined> {
    if (this.settings.captureAssets === undefined) return undefined;
    if (this.#assets !== undefined) return this.#assets;
    const archive = await this.archive();
    // Loaded here, not with the run: only runs that capture assets use it.
    const { AssetCapture } = await import('../assets/capture.js');
    return (this.#assets ??= new AssetCapture(this.settings.captureAssets, archive.assets, {
      dispatcher: this.transport().dispatcher,
      signal: this.signal,
      clock: this.clock,
    }));
  }

  /** Closes what the run built (never a caller's part); safe to call more than once. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      const errors: unknown[] = [];
      const step = async (f: () => Promise<void> | undefined): Promise<void> => {
        try {
          await f();
        } catch (err) {
          errors.push(err);
        }
      };
      await step(() => this.#assets?.close());
      const archive = this.#archive;
      // A caller's sink is adapted with a close that leaves it open.
      await step(async () => (await archive?.catch(() => undefined))?.close());
      await step(() => this.#ownedTransport?.close());
      if (errors.length > 0) throw errors[0];
    })();
    return this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function contentLength(headers: Record<string, string | string[] | undefined>): number | undefined {
  const raw = headers['content-length'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

/**
 * Opens a run: the configuration resolved and checked now (a bad option throws here, before any request or file);
 * the parts are built when first used. `await using run = await openRun({ out: './replays' })`.
 */
export async function openRun(options: RunOptions = {}, source: RunSource = {}): Promise<Run> {
  return new Run(options, source);
}

/** Every entry's and tool's options: a run's (`RunOptions`), or an open `run` to go through (then nothing else of a run's). */
export interface EntryOptions extends RunOptions {
  /** An open run (`openRun`) to use; it is not closed by the entry. No other run option may be given beside it. */
  run?: Run | undefined;
}

/** Options of a run that are neither tunables nor the platform's. */
const RUN_KEYS = 'settings out sink transport client download logger listingStallPages signal clock onNotice'.split(
  ' ',
);

/** The options of a run given in `o` (set, not undefined), by name. */
function runOptionsIn(o: EntryOptions): string[] {
  const given = (k: string): boolean => (o as Record<string, unknown>)[k] !== undefined;
  return [...givenTunables(o), ...RUN_KEYS.filter(given), ...Object.keys(PLATFORM_ENV).filter(given)];
}

/** An entry's run: the caller's `run` (not closed by the entry), or one opened from the options (`owned`: closed by it). */
export type EntryRun = Readonly<{ run: Run; owned: boolean }>;

/** The entry's run: the caller's (not closed here), or one opened from the options (closed by `releaseRun`). */
export function entryRun(o: EntryOptions, source: RunSource = {}): EntryRun {
  if (o.run === undefined) return { run: new Run(o, source), owned: true };
  const loose = runOptionsIn(o);
  if (loose.length > 0)
    throw new ConfigError(
      `pass either an open \`run\` or a run's options, not both: got \`run\` and ${loose.map((k) => `\`${k}\``).join(', ')}`,
    );
  return { run: o.run, owned: false };
}

/** Closes the entry's run when the entry opened it. */
export async function releaseRun(entry: EntryRun): Promise<void> {
  if (entry.owned) await entry.run.close();
}

/**
 * The options of an entry or tool to go through `run` (opened from these same options): its own options (what to
 * list, what to forget, the port) with `run`, the run's options left out.
 */
export function onRun<T extends EntryOptions>(options: T, run: Run): T {
  const runKeys = new Set(runOptionsIn({ ...options, run: undefined }));
  const own = Object.entries(options).filter(([k]) => !runKeys.has(k) && k !== 'run');
  return { ...(Object.fromEntries(own) as T), run };
}
