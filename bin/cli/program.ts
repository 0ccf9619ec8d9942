import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { randomUUID } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
// Only the package's public entry modules (the same a library user imports: root and subpaths).
import { MAX_EVENT_BYTES_CAP } from '../../decoders/index.js';
import { defaultChecksums, type S3Checksums, type S3SinkOptions } from '../../sinks/index.js';
import {
  archiveReplays,
  ConfigError,
  EXIT_CODES,
  exitCodeOf,
  exportReplays,
  InterruptedError,
  openRun,
  planArchive,
  resolveSettings,
  type ArchiveEvent,
  type ConnectionOptions,
  type FileVersion,
  type OutputFormat,
  type Settings,
  type SettingsOptions,
} from '../../src/index.js';
import { secretsOf, validatePlatformId, type Region } from '../../src/clients/index.js';
import {
  ByteSizeError,
  DEFAULT_FORGET_REASON,
  DEFAULTS,
  DurationError,
  ENV,
  expiresAtIso,
  formatByteSize,
  formatDuration,
  formatShard,
  parseByteSize,
  parseDuration,
  SHARD_ENV,
} from '../../src/archive-tools.js';
import { loadRedactionPolicy } from '../../src/redaction/index.js';
import { parseFaultsFlag, runSandboxCommand, SANDBOX_DEFAULTS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { addApiCommand } from './api-command.js';
import { decodeFiles } from './decode-command.js';
import { runForget } from './forget-command.js';
import { runViewCommand } from './view-command.js';
import { addVideoCommand } from './video-command.js';
import { runVerifyCommand } from './verify-command.js';
import { Reporter, type LogFormat, type ReporterOptions } from './reporter.js';
import { printListRecord } from './list-output.js';
import { COMPLETION_SHELLS, completionScript, type CompletionShell } from './completion.js';
import { printPlan } from './dry-run.js';
import { addExamples, configureHelpText, EXAMPLES } from './help-text.js';
import { checkReplayIdArg } from './replay-ids.js';
import { checkStdoutExport, exportToStdout, isStdoutTarget } from './stdout-export.js';
import { versionLine, versionRequested } from './version.js';
import { countListed, noMatchMessage, queryBounds, TIME_FLAG_HELP, timeRangeOf } from './time-flags.js';

/** Exit codes; an error's comes from its category (`EXIT_CODES` in src/errors.ts, the one table). */
export const EXIT = { ok: 0, failed: 1, usage: EXIT_CODES.usage, auth: EXIT_CODES.auth, interrupted: EXIT_CODES.interrupted } as const;

interface GlobalOpts {
  apiKey?: string;
  secretKey?: string;
  region: string;
  endpoint?: string;
  sandbox?: boolean;
  logFormat: string;
  quiet?: boolean;
  progress: boolean;
  verbose?: boolean;
}

interface SinkFlags extends S3ReadFlags {
  out: string;
  format?: string;
  gzip?: boolean;
  fileVersion?: number;
  s3PartSize?: number;
  s3QueueSize?: number;
  concurrency?: number;
  requestDeadline?: string;
  redact?: string;
  captureAssets?: string;
}

interface ForgetFlags extends Pick<SinkFlags, 'out' | 's3Endpoint' | 's3ForcePathStyle' | 's3Region' | 's3Checksums'> {
  user?: string;
  replay?: string[];
  reason?: string;
}

interface LimitFlags {
  maxEventSize?: string;
  maxReplaySize?: string;
}

interface ArchiveFlags {
  user?: string;
  since?: string;
  until?: string;
  settle?: string;
  recheck?: string;
  order?: string;
  shard?: string;
  pageSize?: number;
  dryRun?: boolean;
  /** `false` with `--no-compact`. */
  compact?: boolean;
}

function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(value);
  };
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function usage(message: string): never {
  throw new ConfigError(message);
}

function logFormatOf(g: GlobalOpts): LogFormat {
  if (g.logFormat !== 'text' && g.logFormat !== 'json') usage(`--log-format must be text or json (got ${g.logFormat})`);
  return g.logFormat;
}

/** What the reporter shows, from the global flags. */
function reporterOptions(g: GlobalOpts, extra: ReporterOptions = {}): ReporterOptions {
  return { quiet: g.quiet === true, progress: g.progress, verbose: g.verbose === true, ...extra };
}

/** A warning when `--region` was given (flag or env) but `--endpoint`/`--sandbox` makes it irrelevant. */
function regionIgnored(g: GlobalOpts, cmd: Command): string | undefined {
  const source = rootOf(cmd).getOptionValueSource('region');
  if (source !== 'cli' && source !== 'env') return undefined;
  if (g.sandbox) return `--region ${g.region} is ignored with --sandbox`;
  if (g.endpoint !== undefined) return `--region ${g.region} is ignored with --endpoint (requests go to ${g.endpoint})`;
  return undefined;
}

function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

/** Credentials and hosts from flags/env, or an in-process sandbox. Checked before any request (exit 2). */
async function connection(g: GlobalOpts): Promise<{ conn: ConnectionOptions; secrets: string[]; sandbox?: Sandbox }> {
  if (g.region !== 'us' && g.region !== 'eu') usage(`--region must be us or eu (got ${g.region})`);
  const region = g.region as Region;
  if (g.sandbox) {
    const sandbox = await startSandbox({});
    return {
      conn: { endpoint: sandbox.url, apiKey: sandbox.credentials.apiKey, secretKey: sandbox.credentials.secretKey, region },
      secrets: secretsOf(sandbox.credentials),
      sandbox,
    };
  }
  const missing: string[] = [];
  if (!g.apiKey) missing.push('an API key (--api-key or PLATFORM_API_KEY)');
  if (!g.secretKey) missing.push('a secret key (--secret-key or PLATFORM_SECRET_KEY)');
  if (missing.length > 0) usage(`missing credentials: ${missing.join(' and ')}; or use --sandbox`);
  if (g.endpoint !== undefined) {
    try {
      const u = new URL(g.endpoint);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      usage(`--endpoint must be an http(s) URL (got ${JSON.stringify(g.endpoint)})`);
    }
  }
  return {
    conn: { apiKey: g.apiKey!, secretKey: g.secretKey!, region, ...(g.endpoint !== undefined ? { endpoint: g.endpoint } : {}) },
    secrets: secretsOf({ apiKey: g.apiKey!, secretKey: g.secretKey! }),
  };
}

/** A flag's value read by `parse`; the parser's own error (`refusal`) is a usage error naming the flag. */
function parsedFlag<T>(name: string, value: string | undefined, parse: (text: string) => T, refusal: abstract new (...args: never[]) => Error): T | undefined {
  if (value === undefined) return undefined;
  try {
    return parse(value);
  } catch (err) {
    if (err instanceof refusal) usage(`${name}: ${err.message}`);
    throw err;
  }
}

function durationFlag(name: string, value: string | undefined): number | undefined {
  return parsedFlag(name, value, parseDuration, DurationError);
}

function sizeFlag(name: string, value: string | undefined): number | undefined {
  return parsedFlag(name, value, parseByteSize, ByteSizeError);
}

/** `--max-event-size` and `--max-replay-size` as settings (their range is checked by `resolveSettings`). */
function limitsOf(f: LimitFlags): Pick<SettingsOptions, 'maxEventBytes' | 'maxReplayBytes'> {
  const maxEventBytes = sizeFlag('--max-event-size', f.maxEventSize);
  const maxReplayBytes = sizeFlag('--max-replay-size', f.maxReplaySize);
  return { ...(maxEventBytes !== undefined ? { maxEventBytes } : {}), ...(maxReplayBytes !== undefined ? { maxReplayBytes } : {}) };
}

/** `--request-deadline` as a setting (the transport's `timeouts.deadlineMs`). */
function deadlineOf(value: string | undefined): Pick<SettingsOptions, 'transportOptions'> {
  const deadlineMs = durationFlag('--request-deadline', value);
  return deadlineMs === undefined ? {} : { transportOptions: { timeouts: { deadlineMs } } };
}

/** `text (default: shown)`: a flag's help with its default, as commander prints its own. */
function withDefault(text: string, shown: string | number): string {
  return `${text} (default: ${shown})`;
}

/** `--max-event-size` and `--max-replay-size`; `reading` (`verify`): going over makes an object undecodable. */
function addLimitFlags(cmd: Command, reading = false): Command {
  const eventText = `largest event, e.g. 64MiB, at most ${formatByteSize(MAX_EVENT_BYTES_CAP)}; a larger one ${reading ? 'makes its object undecodable' : 'fails its replay'}`;
  const replayText = reading ? 'inflated bytes one stored object may take; more makes it undecodable' : 'inflated bytes one replay may take over its files; more fails it';
  return cmd
    .option('--max-event-size <size>', withDefault(eventText, formatByteSize(DEFAULTS.maxEventBytes)))
    .option('--max-replay-size <size>', withDefault(replayText, formatByteSize(DEFAULTS.maxReplayBytes)));
}

const REQUEST_DEADLINE_HELP = withDefault('longest time one HTTP request may take, headers and body', formatDuration(DEFAULTS.requestDeadlineMs));

/**
 * The run's settings from the flags of `export` or `archive` (each flag's syntax is checked here; values, ranges and
 * the environment by `resolveSettings`, which names the flags in its errors).
 */
async function settingsOf(f: SinkFlags & LimitFlags & ArchiveFlags, g: GlobalOpts, command: 'export' | 'archive'): Promise<Settings> {
  if (f.out.trim() === '') usage('--out must not be empty');
  const s3 = s3OptionsOf(f);
  const settleMs = durationFlag('--settle', f.settle);
  const recheckMs = durationFlag('--recheck', f.recheck);
  const options: SettingsOptions = {
    ...(f.format !== undefined ? { format: f.format as OutputFormat } : {}),
    ...(f.gzip ? { gzip: true } : {}),
    ...(f.fileVersion !== undefined ? { fileVersion: f.fileVersion as FileVersion } : {}),
    ...(f.concurrency !== undefined ? { concurrency: f.concurrency } : {}),
    ...limitsOf(f),
    ...deadlineOf(f.requestDeadline),
    sinkOptions: { s3 },
    ...(settleMs !== undefined ? { settleMs } : {}),
    ...(recheckMs !== undefined ? { recheckMs } : {}),
    ...(f.order !== undefined ? { order: f.order as 'start' | 'expiry' } : {}),
    ...(f.compact === false ? { compactManifest: false } : {}),
    ...(command === 'archive' ? { runId: randomUUID() } : {}),
    ...(f.redact !== undefined ? { redact: await loadRedactionPolicy(f.redact) } : {}),
    ...(f.captureAssets !== undefined ? { captureAssets: f.captureAssets.split(',').filter((o) => o.trim() !== '') } : {}),
  };
  return resolveSettings(options, { cli: { sandbox: g.sandbox, ...(command === 'archive' ? { shard: { flag: f.shard } } : {}) } });
}

/** The S3 flags that reach a bucket (`archive`'s, without the upload tuning): `--s3-endpoint`, path style, region, checksums. */
function addS3AccessFlags(cmd: Command): Command {
  const s3Region = `with --s3-endpoint ${ENV.awsRegion}, else ${ENV.awsDefaultRegion}, else ${DEFAULTS.s3.endpointRegion}; on AWS the SDK's chain`;
  return cmd
    .option('--s3-endpoint <url>', withDefault('S3-compatible endpoint (MinIO, R2, ...)', 'AWS'))
    .option('--s3-force-path-style', withDefault('path-style S3 addressing', 'off'))
    .option('--s3-region <region>', withDefault('S3 region', s3Region))
    .option(
      '--s3-checksums <mode>',
      withDefault('when-supported or when-required', `${defaultChecksums(undefined)} on AWS, ${defaultChecksums('--s3-endpoint')} with --s3-endpoint`),
    );
}

/** The S3 options of the `--s3-*` flags given. */
function s3OptionsOf(f: Pick<SinkFlags, 's3Endpoint' | 's3ForcePathStyle' | 's3Region' | 's3PartSize' | 's3QueueSize' | 's3Checksums'>): S3SinkOptions {
  return {
    ...s3ReadOptions(f),
    ...(f.s3PartSize !== undefined ? { partSize: f.s3PartSize } : {}),
    ...(f.s3QueueSize !== undefined ? { queueSize: f.s3QueueSize } : {}),
  };
}

function addSinkFlags(cmd: Command): Command {
  const d = DEFAULTS;
  const partSize = `${d.s3.partSize} (${formatByteSize(d.s3.partSize)})`;
  return addS3AccessFlags(
    cmd
      .requiredOption('--out <target>', 'output folder, s3://bucket/prefix, or - (export: one replay to stdout) (required)')
      .option('--format <format>', withDefault('json (one array per replay), ndjson (one event a line) or html (a page that plays the replay offline)', d.format))
      .option('--gzip', withDefault('gzip each output (.gz)', d.gzip ? 'on' : 'off'))
      .option('--file-version <n>', withDefault('replay file version requested from the API: 2 or 3', d.fileVersion), positiveInt('--file-version'))
      .option('--concurrency <n>', withDefault('replays exported at once', d.concurrency), positiveInt('--concurrency'))
      .option('--request-deadline <duration>', REQUEST_DEADLINE_HELP)
      .option('--redact <policy.json>', withDefault('mask, block and drop what a redaction policy names before writing (docs/REDACTION.md)', 'off'))
      .option(
        '--capture-assets <origins>',
        withDefault('store the stylesheets, fonts and images replays reference from these origins (comma-separated), for offline playing', 'off'),
      ),
  )
    .option('--s3-part-size <bytes>', withDefault(`multipart part size in bytes, at least ${d.s3.minPartSize} (${formatByteSize(d.s3.minPartSize)})`, partSize), positiveInt('--s3-part-size'))
    .option('--s3-queue-size <n>', withDefault('parts uploaded in parallel per replay', d.s3.queueSize), positiveInt('--s3-queue-size'));
}

interface S3ReadFlags {
  s3Endpoint?: string;
  s3ForcePathStyle?: boolean;
  s3Region?: string;
  s3Checksums?: string;
}

function s3ReadOptions(f: S3ReadFlags): S3SinkOptions {
  return {
    ...(f.s3Endpoint !== undefined ? { endpoint: f.s3Endpoint } : {}),
    ...(f.s3ForcePathStyle ? { forcePathStyle: true } : {}),
    ...(f.s3Region !== undefined ? { region: f.s3Region } : {}),
    ...(f.s3Checksums !== undefined ? { checksums: f.s3Checksums as S3Checksums } : {}),
  };
}

/** Runs an export/archive stream to the end, reporting as it goes; returns the exit code. */
async function drive(events: AsyncIterable<ArchiveEvent>, reporter: Reporter, target: string, extra: Record<string, unknown>): Promise<number> {
  try {
    for await (const ev of events) reporter.onEvent(ev);
  } catch (err) {
    // A run that never started (a configuration error, an unusable --out) has nothing to sum up.
    if (reporter.hasBegun) reporter.summary(target, extra);
    else reporter.close();
    throw err;
  }
  reporter.summary(target, extra);
  return reporter.totals.byOutcome.failed + reporter.totals.byOutcome.not_found > 0 ? EXIT.failed : EXIT.ok;
}

/** Maps an error that ended a command to a message and an exit code (by its category: `EXIT_CODES`). */
function failure(err: unknown): { code: number; message: string } {
  return { code: exitCodeOf(err), message: err instanceof Error ? err.message : String(err) };
}

/** Where a one-off export wrote `key`, as a user opens it: a full path, or a `file://` link for an html page. */
function writtenPath(out: string, key: string, format: OutputFormat): string {
  if (/^s3:\/\//i.test(out)) return `${out.replace(/\/+$/, '')}/${key}`;
  const path = resolvePath(out, key);
  return format === 'html' ? pathToFileURL(path).href : path;
}

export interface RunIo {
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

/** Parses `argv` (full process.argv), runs the command and resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let exitCode: number = EXIT.ok;
  let secrets: string[] = [];
  let reporterFormat: LogFormat = 'text';
  /** Whether the command (export, archive) resumes when run again: said on Ctrl-C. */
  let resumable = false;
  const abort = new AbortController();
  const onSignal = (): void => abort.abort(new InterruptedError());
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // Process warnings (e.g. the AWS SDK's notice about the Node version, emitted when an S3 client is created) go
  // through the reporter instead of Node's own printer, so that `--log-format json` keeps stderr one JSON object a line.
  const nodeWarningPrinters = process.listeners('warning');
  process.removeAllListeners('warning');
  const onWarning = (warning: Error): void => {
    new Reporter(reporterFormat, secrets).log('warn', `${warning.name}: ${warning.message}`, { event: 'warning', name: warning.name });
  };
  process.on('warning', onWarning);

  const program = new Command()
    .name('replay-export')
    .description('Export recorded browser sessions (rrweb events) from the Session Replay API to a folder or S3.')
    .addOption(new Option('--api-key <key>', 'project API key (required unless --sandbox)').env('PLATFORM_API_KEY'))
    .addOption(new Option('--secret-key <key>', 'project secret key (required unless --sandbox)').env('PLATFORM_SECRET_KEY'))
    .addOption(new Option('--region <region>', 'data-residency region: us or eu').env('PLATFORM_REGION').default(DEFAULTS.region))
    .addOption(new Option('--endpoint <url>', withDefault('base URL replacing the region host', "the region's host")).env('PLATFORM_ENDPOINT'))
    .option('--sandbox', withDefault('start the embedded sandbox in-process and use it (no credentials needed)', 'off'))
    .addOption(new Option('--log-format <format>', 'text or json (one JSON line per event on stderr)').default(DEFAULTS.logFormat))
    .option('-q, --quiet', withDefault('print only errors and the summary', 'off'))
    .option('--no-progress', 'no progress line on a terminal (default: shown when stderr is a terminal, text log format)')
    .option('--verbose', withDefault('also print debug lines (each API retry) in text mode', 'off'))
    .addHelpText(
      'after',
      `\nEnvironment (no flag):\n  ${ENV.wasm}=0         decode without the WebAssembly fast paths (default: on)\n` +
        `  ${ENV.hashWorker}=0  hash local outputs on the calling thread, no hashing worker (default: on)`,
    )
    .exitOverride()
    .showHelpAfterError(false);
  configureHelpText(program);

  program
    .command('list')
    .description('list replays as NDJSON on stdout, one record a line')
    .option('--user <platform_id>', withDefault('only this user (platform id, sent as amplitude_id)', 'all users'))
    .option('--replay <replay_id>', withDefault('only these replays (repeatable, up to 100)', 'all'), collect)
    .option('--sort <order>', withDefault('asc or desc', "the API's"))
    .option('--page-size <n>', withDefault('listing page size (1-200)', "the API's"), positiveInt('--page-size'))
    .option('--max <n>', withDefault('stop after n records', 'all'), positiveInt('--max'))
    .option('--since <time>', withDefault(TIME_FLAG_HELP.since, 'no bound'))
    .option('--until <time>', withDefault(TIME_FLAG_HELP.until, 'no bound'))
    .option('--request-deadline <duration>', REQUEST_DEADLINE_HELP)
    .option('--json', withDefault('NDJSON on stdout even on a terminal', 'a table on a terminal, NDJSON otherwise'))
    .action(async (flags: { user?: string; replay?: string[]; sort?: string; pageSize?: number; max?: number; since?: string; until?: string; requestDeadline?: string; json?: boolean }, cmd: Command) => {
      const opts = { ...flags, replay: flags.replay ?? [] };
      const g = cmd.optsWithGlobals<GlobalOpts>();
      reporterFormat = logFormatOf(g);
      if (opts.sort !== undefined && opts.sort !== 'asc' && opts.sort !== 'desc') usage(`--sort must be asc or desc (got ${opts.sort})`);
      if (opts.user !== undefined) validatePlatformId(opts.user);
      for (const id of opts.replay) checkReplayIdArg(id);
      const range = timeRangeOf(opts);
      const bounds = queryBounds(range);
      if (opts.replay.length > 100) usage('at most 100 --replay values');
      if (opts.user !== undefined && opts.replay.length > 0) usage('--user and --replay cannot be used together');
      const settings = resolveSettings(deadlineOf(opts.requestDeadline), { cli: {} });
      const c = await connection(g);
      secrets = c.secrets;
      const reporter = new Reporter(reporterFormat, secrets, process.stderr, reporterOptions(g));
      const ignored = regionIgnored(g, cmd);
      if (ignored !== undefined) reporter.log('warn', ignored, { event: 'warning' });
      await using run = await openRun({ ...c.conn, settings, logger: (e) => reporter.onHttpLog(e) });
      const table = opts.json !== true && process.stdout.isTTY === true;
      try {
        let n = 0;
        for await (const r of run.replays().listReplays(
          {
            ...(opts.user !== undefined ? { platformId: opts.user } : {}),
            ...(opts.replay.length > 0 ? { replayIds: opts.replay } : {}),
            ...(bounds.since !== undefined ? { startTime: bounds.since } : {}),
            ...(bounds.until !== undefined ? { endTime: bounds.until } : {}),
            ...(opts.sort !== undefined ? { sortOrder: opts.sort as 'asc' | 'desc' } : {}),
            ...(opts.pageSize !== undefined ? { pageSize: opts.pageSize } : {}),
          },
          { signal: abort.signal },
        )) {
          const rec = r as unknown as Record<string, unknown>;
          const line: Record<string, unknown> = {};
          for (const k of ['replay_id', 'session_id', 'device_id', 'platform_id', 'start_time', 'end_time', 'retention_in_days']) line[k] = rec[k];
          const expires = expiresAtIso(r.startMs, r.retention_in_days);
          if (expires !== undefined) line.expires_at = expires;
          if (!printListRecord(process.stdout, line, { table, first: n === 0 })) await new Promise((res) => process.stdout.once('drain', res));
          n++;
          if (opts.max !== undefined && n >= opts.max) break;
        }
        const none = n === 0 ? noMatchMessage(range) : undefined;
        if (none !== undefined) new Reporter(reporterFormat, secrets).log('info', none, { event: 'no_match' });
      } finally {
        await c.sandbox?.close();
      }
    });

  addLimitFlags(addSinkFlags(
    program
      .command('export')
      .description('export the named replays (always, whatever the manifest says)')
      .argument('<replay_id...>', 'replay ids (device_id/session_id)'),
  )).action(async (ids: string[], opts: SinkFlags & LimitFlags, cmd: Command) => {
    const g = cmd.optsWithGlobals<GlobalOpts>();
    reporterFormat = logFormatOf(g);
    for (const id of ids) checkReplayIdArg(id);
    const settings = await settingsOf(opts, g, 'export');
    if (isStdoutTarget(opts.out)) checkStdoutExport(ids, settings);
    const c = await connection(g);
    secrets = c.secrets;
    if (isStdoutTarget(opts.out)) {
      try {
        await exportToStdout(ids[0]!, c.conn, settings, abort.signal);
      } finally {
        await c.sandbox?.close();
      }
      return;
    }
    const reporter = new Reporter(reporterFormat, secrets, process.stderr, reporterOptions(g, { showKey: (key) => writtenPath(opts.out, key, settings.output.format) }));
    const ignored = regionIgnored(g, cmd);
    if (ignored !== undefined) reporter.log('warn', ignored, { event: 'warning' });
    resumable = true;
    try {
      exitCode = await drive(
        exportReplays(ids, { ...c.conn, out: opts.out, settings, signal: abort.signal, logger: (e) => reporter.onHttpLog(e) }),
        reporter,
        opts.out,
        {},
      );
    } finally {
      await c.sandbox?.close();
    }
  });

  addLimitFlags(addSinkFlags(
    program
      .command('archive')
      .description('export every listed replay; resumable (re-run with the same --out to continue)')
      .option('--user <platform_id>', withDefault('only this user (platform id, sent as amplitude_id)', 'all users'))
      .option('--since <time>', withDefault(TIME_FLAG_HELP.since, 'no bound'))
      .option('--until <time>', withDefault(TIME_FLAG_HELP.until, 'no bound'))
      .option(
        '--settle <duration>',
        withDefault('skip replays that started less than this long ago', `${formatDuration(DEFAULTS.settleMs)}; ${formatDuration(DEFAULTS.sandboxSettleMs)} with --sandbox`),
      )
      .option('--recheck <duration>', withDefault('re-list files of replays archived within this window; re-export if changed', 'off'))
      .option('--order <order>', withDefault('start (as listed) or expiry (closest to deletion first; lists everything first)', DEFAULTS.order))
      .option('--page-size <n>', withDefault('replays per listing page (1-200); the next page is read while one is exported', String(DEFAULTS.archiveListPageSize)), positiveInt('--page-size'))
      .option(
        '--shard <i/n>',
        withDefault(
          `only replays of shard i of n (or ${SHARD_ENV.kubernetesIndex} + ${SHARD_ENV.count}, or ${SHARD_ENV.batchIndex} + ${SHARD_ENV.batchSize})`,
          'all',
        ),
      )
      .option('--no-compact', withDefault(`do not fold the manifest into a snapshot (done at the end and every ${DEFAULTS.compactEvery.toLocaleString('en-US')}+ entries)`, 'fold'))
      .option('--dry-run', withDefault('list what would be exported and why others are skipped; no download, no write', 'off')),
  )).action(async (opts: SinkFlags & LimitFlags & ArchiveFlags, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts>();
      reporterFormat = logFormatOf(g);
      if (opts.user !== undefined) validatePlatformId(opts.user);
      if (isStdoutTarget(opts.out)) usage('archive writes to a folder or s3://bucket/prefix; --out - is for `export <one replay id>`');
      const range = timeRangeOf(opts);
      const { since, until } = queryBounds(range);
      const settings = await settingsOf(opts, g, 'archive');
      const c = await connection(g);
      secrets = c.secrets;
      // On a terminal the per-replay lines of a large archive would bury the failures: those and the progress line.
      const replayLines = reporterFormat === 'text' && process.stderr.isTTY === true ? 'failures' : 'all';
      const reporter = new Reporter(reporterFormat, secrets, process.stderr, reporterOptions(g, { replayLines }));
      const ignored = regionIgnored(g, cmd);
      if (ignored !== undefined) reporter.log('warn', ignored, { event: 'warning' });
      const run = {
        ...c.conn,
        out: opts.out,
        settings,
        ...(opts.user !== undefined ? { platformId: opts.user } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(until !== undefined ? { until } : {}),
        ...(opts.pageSize !== undefined ? { listPageSize: opts.pageSize } : {}),
        signal: abort.signal,
      };
      if (opts.dryRun) {
        try {
          const plan = planArchive(run);
          await printPlan(plan, reporterFormat === 'json', reporter);
        } finally {
          await c.sandbox?.close();
        }
        return;
      }
      resumable = true;
      if (settings.order === 'expiry') reporter.log('info', 'order expiry: listing every replay before the first export');
      const counter = { listed: 0 };
      try {
        exitCode = await drive(
          countListed(archiveReplays({ ...run, logger: (e) => reporter.onHttpLog(e) }), counter),
          reporter,
          opts.out,
          settings.shard ? { shard: formatShard(settings.shard) } : {},
        );
        const none = counter.listed === 0 ? noMatchMessage(range) : undefined;
        if (none !== undefined) reporter.log('info', none, { event: 'no_match' });
      } finally {
        await c.sandbox?.close();
      }
    },
  );

  addS3AccessFlags(
    program
      .command('forget')
      .description("remove a user's or replays' outputs from an archive and record tombstones: no later run exports them again")
      .requiredOption('--out <archive>', 'the archive: a folder or s3://bucket/prefix (required)')
      .option('--user <platform_id>', "forget this user: every replay its manifest entries name, and the user's replays listed later")
      .option('--replay <replay_id>', 'forget this replay (repeatable)', collect)
      .option('--reason <text>', withDefault('why, recorded in each tombstone', DEFAULT_FORGET_REASON)),
  ).action(async (opts: ForgetFlags, cmd: Command) => {
    const g = cmd.optsWithGlobals<GlobalOpts>();
    reporterFormat = logFormatOf(g);
    const replayIds = opts.replay ?? [];
    if ((opts.user !== undefined) === replayIds.length > 0) usage('forget takes --user <platform_id> or --replay <replay_id>, not both');
    if (opts.user !== undefined) validatePlatformId(opts.user);
    for (const id of replayIds) checkReplayIdArg(id);
    if (opts.out.trim() === '' || isStdoutTarget(opts.out)) usage('--out must be the archive: a folder or s3://bucket/prefix');
    const settings = resolveSettings({ sinkOptions: { s3: s3OptionsOf(opts) } }, { cli: {} });
    // Interrupted, the same command finishes the job (tombstones already written are not written twice).
    resumable = true;
    const report = await runForget(
      {
        out: opts.out,
        settings,
        ...(opts.user !== undefined ? { platformId: opts.user } : { replayIds }),
        ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
        runId: randomUUID(),
        signal: abort.signal,
      },
      new Reporter(reporterFormat, secrets, process.stderr, reporterOptions(g)),
      new Reporter(reporterFormat, secrets),
    );
    exitCode = report.replays.some((r) => r.error !== undefined) ? EXIT.failed : EXIT.ok;
  });

  addLimitFlags(
    program
      .command('decode')
      .description('decode local replay files (v2/v3, auto-detected) into one JSON array, in the order given (the files of one replay)')
      .argument('<file...>', 'replay files')
      .option('--out <file>', withDefault('write to this file instead of stdout', 'stdout'))
      .option('--version <n>', withDefault('force the file version (2 or 3)', 'sniffed from each file')),
  ).action(async (files: string[], opts: LimitFlags & { out?: string; version?: string }) => {
    if (opts.version !== undefined && opts.version !== '2' && opts.version !== '3') usage(`--version must be 2 or 3 (got ${opts.version})`);
    const settings = resolveSettings(limitsOf(opts), { cli: {} });
    await decodeFiles(files, {
      ...(opts.out !== undefined ? { out: opts.out } : {}),
      ...(opts.version !== undefined ? { version: Number(opts.version) as 2 | 3 } : {}),
      maxEventBytes: settings.maxEventBytes,
      maxReplayBytes: settings.maxReplayBytes,
      fastPath: settings.fastPath,
    });
  });

  addApiCommand(
    program,
    {
      signal: abort.signal,
      connect: async (cmd) => {
        const g = cmd.optsWithGlobals<GlobalOpts>();
        reporterFormat = logFormatOf(g);
        const c = await connection(g);
        secrets = [...secrets, ...c.secrets];
        const managementKey = c.sandbox?.credentials.managementKey;
        return { ...c.conn, region: c.conn.region ?? 'us', ...(managementKey ? { managementKey } : {}), close: async () => void (await c.sandbox?.close()) };
      },
    },
    (secret) => void (secrets = [...secrets, secret]),
  );

  addVideoCommand(program, {
    signal: abort.signal,
    connect: async (cmd) => {
      const c = await connection(cmd.optsWithGlobals<GlobalOpts>());
      secrets = [...secrets, ...c.secrets];
      return { conn: c.conn, close: async () => void (await c.sandbox?.close()) };
    },
  });

  program
    .command('sandbox')
    .description('run the sandbox (a local Session Replay API) until stopped; prints its URL and credentials')
    .option('--port <n>', 'port (default: any free port)', (v) => {
      if (!/^\d+$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError('--port must be 0-65535');
      return Number(v);
    })
    .option('--replicas <n>', withDefault('extra synthetic replays cloned from the samples', SANDBOX_DEFAULTS.replicas), (v) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('--replicas must be a non-negative integer');
      return Number(v);
    })
    .option('--latency <ms>', withDefault('milliseconds added before answering each API and storage request', 0), (v) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('--latency must be a non-negative integer (milliseconds)');
      return Number(v);
    })
    .option('--faults <list>', withDefault('fault switches: key=value,... (e.g. rateLimitEvery=5,serverErrorEvery=7) or a JSON object; see docs', 'none'))
    .action(async (opts: { port?: number; replicas?: number; latency?: number; faults?: string }) => {
      const faults = { ...(opts.faults !== undefined ? parseFaultsFlag(opts.faults) : {}), ...(opts.latency !== undefined ? { latencyMs: opts.latency } : {}) };
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await runSandboxCommand({
        ...(opts.port !== undefined ? { port: opts.port } : {}),
        ...(opts.replicas !== undefined ? { replicas: opts.replicas } : {}),
        ...(Object.keys(faults).length > 0 ? { faults } : {}),
      });
    });

  addS3AccessFlags(
    program
      .command('view')
      .description('browse an archive (a folder or s3://bucket/prefix) in a browser: a web server on 127.0.0.1 with its index and a player; prints its URL')
      .argument('<archive>', 'the archive: a folder (path or file:// URL) or s3://bucket/prefix')
      .option('--port <n>', 'port (default: any free port)', (v) => {
        if (!/^\d+$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError('--port must be 0-65535');
        return Number(v);
      }),
  ).action(async (archive: string, opts: S3ReadFlags & { port?: number }) => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    const settings = resolveSettings({ sinkOptions: { s3: s3ReadOptions(opts) } }, { cli: {} });
    await runViewCommand(archive, { ...(opts.port !== undefined ? { port: opts.port } : {}), s3: settings.sinkOptions.s3 }, abort.signal);
  });

  addLimitFlags(
    addS3AccessFlags(
      program
        .command('verify')
        .description(
          "re-read an archive (a folder or s3://bucket/prefix) against its manifest: each archived replay's object, size, SHA-256, " +
            'events and checks, and stored outputs no entry names; exit 1 on any problem',
        )
        .argument('<archive>', 'the archive: a folder (path or file:// URL) or s3://bucket/prefix')
        .option('--concurrency <n>', withDefault('objects read at once', DEFAULTS.concurrency), positiveInt('--concurrency')),
    ),
    true,
  ).action(async (archive: string, opts: S3ReadFlags & LimitFlags & { concurrency?: number }, cmd: Command) => {
    const g = cmd.optsWithGlobals<GlobalOpts>();
    reporterFormat = logFormatOf(g);
    const settings = resolveSettings(
      { ...limitsOf(opts), ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}), sinkOptions: { s3: s3ReadOptions(opts) } },
      { cli: {} },
    );
    const reporter = new Reporter(reporterFormat, secrets, process.stderr, reporterOptions(g));
    exitCode = await runVerifyCommand(
      archive,
      {
        s3: settings.sinkOptions.s3,
        concurrency: settings.concurrency,
        maxEventBytes: settings.maxEventBytes,
        maxReplayBytes: settings.maxReplayBytes,
        fastPath: settings.fastPath,
        signal: abort.signal,
      },
      reporter,
    );
  });

  program
    .command('completion')
    .description('print a shell completion script (bash or zsh) for commands and flags')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (!(COMPLETION_SHELLS as readonly string[]).includes(shell)) usage(`completion: the shell must be bash or zsh (got ${JSON.stringify(shell)})`);
      process.stdout.write(completionScript(program, shell as CompletionShell));
    });

  for (const cmd of program.commands) {
    const examples = (EXAMPLES as Record<string, readonly (readonly [string, string])[] | undefined>)[cmd.name()];
    if (examples !== undefined) addExamples(cmd, examples);
  }

  try {
    if (versionRequested(argv.slice(2), program.commands.map((c) => c.name()))) {
      process.stdout.write(versionLine());
      return EXIT.ok;
    }
    await program.parseAsync(argv as string[]);
    if (abort.signal.aborted) throw abort.signal.reason;
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    const { code, message } = abort.signal.aborted && resumable
      ? { code: EXIT.interrupted, message: 'interrupted — run the same command again to resume' }
      : failure(abort.signal.aborted ? abort.signal.reason : err);
    const reporter = new Reporter(reporterFormat, secrets);
    reporter.log('error', message, { event: 'fatal', exit_code: code });
    return code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('warning', onWarning);
    for (const printer of nodeWarningPrinters) process.on('warning', printer);
  }
}
