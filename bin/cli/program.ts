import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { randomUUID } from 'node:crypto';
import { MAX_EVENT_BYTES_CAP } from '../../decoders/limits.js';
import type { OpenSinkOptions } from '../../sinks/open.js';
import type { S3Checksums } from '../../sinks/s3.js';
import { secretsOf } from '../../src/http/auth.js';
import type { Region } from '../../src/http/regions.js';
import type { ArchiveEvent } from '../../src/pipeline/archive.js';
import type { ConnectionOptions } from '../../src/pipeline/connection.js';
import { connect } from '../../src/pipeline/connection.js';
import { ByteSizeError, parseByteSize } from '../../src/pipeline/byte-size.js';
import { DurationError, parseDuration } from '../../src/pipeline/duration.js';
import { ConfigError, EXIT_CODES, exitCodeOf, InterruptedError } from '../../src/errors.js';
import { expiresAtIso } from '../../src/pipeline/expiry.js';
import { archiveReplays, exportReplays, type ExportReplayOptions } from '../../src/pipeline/library.js';
import { formatShard, resolveShard } from '../../src/pipeline/shard.js';
import { toIsoUtc } from '../../src/replay/timestamps.js';
import { validatePlatformId, validateReplayId } from '../../src/replay/validation.js';
import { runSandboxCommand, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { decodeFiles } from './decode-command.js';
import { Reporter, type LogFormat } from './reporter.js';

/** Exit codes; an error's comes from its category (`EXIT_CODES` in src/errors.ts, the one table). */
export const EXIT = { ok: 0, failed: 1, usage: EXIT_CODES.usage, auth: EXIT_CODES.auth, interrupted: EXIT_CODES.interrupted } as const;

interface GlobalOpts {
  apiKey?: string;
  secretKey?: string;
  region: string;
  endpoint?: string;
  sandbox?: boolean;
  logFormat: string;
}

interface SinkFlags {
  out: string;
  format: string;
  gzip?: boolean;
  fileVersion: string;
  s3Endpoint?: string;
  s3ForcePathStyle?: boolean;
  s3Region?: string;
  s3PartSize?: number;
  s3QueueSize?: number;
  s3Checksums?: string;
  concurrency?: number;
  requestDeadline?: string;
}

interface LimitFlags {
  maxEventSize?: string;
  maxReplaySize?: string;
}

function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(value);
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function usage(message: string): never {
  throw new ConfigError(message);
}

function logFormatOf(g: GlobalOpts): LogFormat {
  if (g.logFormat !== 'text' && g.logFormat !== 'json') usage(`--log-format must be text or json (got ${g.logFormat})`);
  return g.logFormat;
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

function sinkOptionsOf(f: SinkFlags): Pick<ExportReplayOptions, 'out' | 'format' | 'gzip' | 'fileVersion' | 'sinkOptions'> {
  if (f.format !== 'json' && f.format !== 'ndjson' && f.format !== 'html') {
    usage(`--format must be json, ndjson or html (got ${f.format})`);
  }
  if (f.fileVersion !== '2' && f.fileVersion !== '3') usage(`--file-version must be 2 or 3 (got ${f.fileVersion})`);
  if (f.s3Checksums !== undefined && f.s3Checksums !== 'when-supported' && f.s3Checksums !== 'when-required') {
    usage(`--s3-checksums must be when-supported or when-required (got ${f.s3Checksums})`);
  }
  if (f.out.trim() === '') usage('--out must not be empty');
  const s3: NonNullable<OpenSinkOptions['s3']> = {
    ...(f.s3Endpoint !== undefined ? { endpoint: f.s3Endpoint } : {}),
    ...(f.s3ForcePathStyle ? { forcePathStyle: true } : {}),
    ...(f.s3Region !== undefined ? { region: f.s3Region } : {}),
    ...(f.s3PartSize !== undefined ? { partSize: f.s3PartSize } : {}),
    ...(f.s3QueueSize !== undefined ? { queueSize: f.s3QueueSize } : {}),
    ...(f.s3Checksums !== undefined ? { checksums: f.s3Checksums as S3Checksums } : {}),
  };
  return { out: f.out, format: f.format, gzip: Boolean(f.gzip), fileVersion: Number(f.fileVersion) as 2 | 3, sinkOptions: { s3 } };
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

/** `--max-event-size` and `--max-replay-size` as decoding limits (exit 2 when out of range). */
function limitsOf(f: LimitFlags): { maxEventBytes?: number; maxReplayBytes?: number } {
  const maxEventBytes = sizeFlag('--max-event-size', f.maxEventSize);
  const maxReplayBytes = sizeFlag('--max-replay-size', f.maxReplaySize);
  if (maxEventBytes !== undefined && (maxEventBytes < 1 || maxEventBytes > MAX_EVENT_BYTES_CAP)) {
    usage(`--max-event-size must be from 1 byte to 1GiB (got ${JSON.stringify(f.maxEventSize)})`);
  }
  if (maxReplayBytes !== undefined && maxReplayBytes < 1) usage(`--max-replay-size must be at least 1 byte (got ${JSON.stringify(f.maxReplaySize)})`);
  return { ...(maxEventBytes !== undefined ? { maxEventBytes } : {}), ...(maxReplayBytes !== undefined ? { maxReplayBytes } : {}) };
}

function addLimitFlags(cmd: Command): Command {
  return cmd
    .option('--max-event-size <size>', 'largest event, e.g. 64MiB (default 256MiB, at most 1GiB); a larger one fails its replay')
    .option('--max-replay-size <size>', "inflated bytes one replay may take over its files (default 8GiB); more fails it");
}

/** `--request-deadline`: the transport's per-request deadline (headers and body), as connection options. */
function requestDeadline(value: string | undefined): Pick<ConnectionOptions, 'transportOptions'> {
  const ms = durationFlag('--request-deadline', value);
  if (ms === undefined) return {};
  if (ms < 1) usage(`--request-deadline must be longer than 0 (got ${JSON.stringify(value)})`);
  return { transportOptions: { timeouts: { deadlineMs: ms } } };
}

const REQUEST_DEADLINE_HELP = 'longest time one HTTP request may take, headers and body (default 5m)';

function timeFlag(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const iso = toIsoUtc(value);
  if (iso === null) usage(`${name} must be an ISO 8601 date or time (got ${JSON.stringify(value)})`);
  return iso;
}

function addSinkFlags(cmd: Command): Command {
  return cmd
    .requiredOption('--out <target>', 'output folder or s3://bucket/prefix')
    .option('--format <format>', 'json (one array per replay), ndjson (one event a line) or html (a page that plays the replay offline)', 'json')
    .option('--gzip', 'gzip each output (.gz)')
    .option('--file-version <n>', 'replay file version requested from the API: 2 or 3', '3')
    .option('--concurrency <n>', 'replays exported at once (default 4)', positiveInt('--concurrency'))
    .option('--request-deadline <duration>', REQUEST_DEADLINE_HELP)
    .option('--s3-endpoint <url>', 'S3-compatible endpoint (MinIO, R2, ...)')
    .option('--s3-force-path-style', 'path-style S3 addressing')
    .option('--s3-region <region>', 'S3 region')
    .option('--s3-part-size <bytes>', 'multipart part size in bytes (min 5 MiB)', positiveInt('--s3-part-size'))
    .option('--s3-queue-size <n>', 'parts uploaded in parallel per replay', positiveInt('--s3-queue-size'))
    .option('--s3-checksums <mode>', 'when-supported or when-required');
}

/** Runs an export/archive stream to the end, reporting as it goes; returns the exit code. */
async function drive(events: AsyncIterable<ArchiveEvent>, reporter: Reporter, target: string, extra: Record<string, unknown>): Promise<number> {
  try {
    for await (const ev of events) reporter.onEvent(ev);
  } catch (err) {
    reporter.summary(target, extra);
    throw err;
  }
  reporter.summary(target, extra);
  return reporter.totals.byOutcome.failed > 0 ? EXIT.failed : EXIT.ok;
}

/** Maps an error that ended a command to a message and an exit code (by its category: `EXIT_CODES`). */
function failure(err: unknown): { code: number; message: string } {
  return { code: exitCodeOf(err), message: err instanceof Error ? err.message : String(err) };
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
    .addOption(new Option('--api-key <key>', 'project API key').env('PLATFORM_API_KEY'))
    .addOption(new Option('--secret-key <key>', 'project secret key').env('PLATFORM_SECRET_KEY'))
    .addOption(new Option('--region <region>', 'data-residency region: us or eu').env('PLATFORM_REGION').default('us'))
    .addOption(new Option('--endpoint <url>', 'base URL replacing the region host').env('PLATFORM_ENDPOINT'))
    .option('--sandbox', 'start the embedded sandbox in-process and use it (no credentials needed)')
    .addOption(new Option('--log-format <format>', 'text or json (one JSON line per event on stderr)').default('text'))
    .exitOverride()
    .showHelpAfterError(false);

  program
    .command('list')
    .description('list replays as NDJSON on stdout, one record a line')
    .option('--user <platform_id>', 'only this user (platform id, sent as amplitude_id)')
    .option('--replay <replay_id>', 'only these replays (repeatable, up to 100)', collect, [])
    .option('--sort <order>', 'asc or desc')
    .option('--page-size <n>', 'listing page size (1-200)', positiveInt('--page-size'))
    .option('--max <n>', 'stop after n records', positiveInt('--max'))
    .option('--request-deadline <duration>', REQUEST_DEADLINE_HELP)
    .action(async (opts: { user?: string; replay: string[]; sort?: string; pageSize?: number; max?: number; requestDeadline?: string }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts>();
      reporterFormat = logFormatOf(g);
      if (opts.sort !== undefined && opts.sort !== 'asc' && opts.sort !== 'desc') usage(`--sort must be asc or desc (got ${opts.sort})`);
      if (opts.user !== undefined) validatePlatformId(opts.user);
      for (const id of opts.replay) validateReplayId(id);
      if (opts.replay.length > 100) usage('at most 100 --replay values');
      if (opts.user !== undefined && opts.replay.length > 0) usage('--user and --replay cannot be used together');
      const deadline = requestDeadline(opts.requestDeadline);
      const c = await connection(g);
      secrets = c.secrets;
      const conn = connect({ ...c.conn, ...deadline });
      try {
        let n = 0;
        for await (const r of conn.client.listReplays(
          {
            ...(opts.user !== undefined ? { platformId: opts.user } : {}),
            ...(opts.replay.length > 0 ? { replayIds: opts.replay } : {}),
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
          if (!process.stdout.write(JSON.stringify(line) + '\n')) await new Promise((res) => process.stdout.once('drain', res));
          if (opts.max !== undefined && ++n >= opts.max) break;
        }
      } finally {
        await conn.close();
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
    for (const id of ids) validateReplayId(id);
    const sinkOpts = sinkOptionsOf(opts);
    const deadline = requestDeadline(opts.requestDeadline);
    const limits = limitsOf(opts);
    const c = await connection(g);
    secrets = c.secrets;
    const reporter = new Reporter(reporterFormat, secrets);
    try {
      exitCode = await drive(
        exportReplays(ids, { ...c.conn, ...deadline, ...sinkOpts, ...limits, ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}), signal: abort.signal }),
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
      .option('--user <platform_id>', 'only this user (platform id, sent as amplitude_id)')
      .option('--since <iso>', 'replays that started at or after this time (start_time)')
      .option('--until <iso>', 'replays that started at or before this time (end_time)')
      .option('--settle <duration>', 'skip replays that started less than this long ago (default 24h; 0 with --sandbox)')
      .option('--recheck <duration>', 're-list files of replays archived within this window; re-export if changed')
      .option('--order <order>', 'start (as listed) or expiry (closest to deletion first; lists everything first)', 'start')
      .option('--shard <i/n>', 'only replays of shard i of n (also JOB_COMPLETION_INDEX / AWS_BATCH_JOB_ARRAY_INDEX)'),
  )).action(
    async (
      opts: SinkFlags & LimitFlags & { user?: string; since?: string; until?: string; settle?: string; recheck?: string; order: string; shard?: string },
      cmd: Command,
    ) => {
      const g = cmd.optsWithGlobals<GlobalOpts>();
      reporterFormat = logFormatOf(g);
      const sinkOpts = sinkOptionsOf(opts);
      const limits = limitsOf(opts);
      if (opts.order !== 'start' && opts.order !== 'expiry') usage(`--order must be start or expiry (got ${opts.order})`);
      if (opts.user !== undefined) validatePlatformId(opts.user);
      // The sandbox serves fixed recordings, not a live stream: nothing there is still being written.
      const settleMs = durationFlag('--settle', opts.settle) ?? (g.sandbox ? 0 : undefined);
      const recheckMs = durationFlag('--recheck', opts.recheck);
      const since = timeFlag('--since', opts.since);
      const until = timeFlag('--until', opts.until);
      const shard = resolveShard(opts.shard, process.env);
      const deadline = requestDeadline(opts.requestDeadline);
      const c = await connection(g);
      secrets = c.secrets;
      const reporter = new Reporter(reporterFormat, secrets);
      if (opts.order === 'expiry') reporter.log('info', 'order expiry: listing every replay before the first export');
      try {
        exitCode = await drive(
          archiveReplays({
            ...c.conn,
            ...deadline,
            ...sinkOpts,
            ...limits,
            ...(opts.user !== undefined ? { platformId: opts.user } : {}),
            ...(since !== undefined ? { since } : {}),
            ...(until !== undefined ? { until } : {}),
            ...(settleMs !== undefined ? { settleMs } : {}),
            ...(recheckMs !== undefined ? { recheckMs } : {}),
            order: opts.order,
            ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
            ...(shard ? { shard } : {}),
            runId: randomUUID(),
            signal: abort.signal,
          }),
          reporter,
          opts.out,
          shard ? { shard: formatShard(shard) } : {},
        );
      } finally {
        await c.sandbox?.close();
      }
    },
  );

  addLimitFlags(
    program
      .command('decode')
      .description('decode local replay files (v2/v3, auto-detected) into one JSON array, in the order given (the files of one replay)')
      .argument('<file...>', 'replay files')
      .option('--out <file>', 'write to this file instead of stdout')
      .option('--version <n>', 'force the file version (2 or 3)'),
  ).action(async (files: string[], opts: LimitFlags & { out?: string; version?: string }) => {
    if (opts.version !== undefined && opts.version !== '2' && opts.version !== '3') usage(`--version must be 2 or 3 (got ${opts.version})`);
    await decodeFiles(files, {
      ...(opts.out !== undefined ? { out: opts.out } : {}),
      ...(opts.version !== undefined ? { version: Number(opts.version) as 2 | 3 } : {}),
      ...limitsOf(opts),
    });
  });

  program
    .command('sandbox')
    .description('run the sandbox (a local Session Replay API) until stopped; prints its URL and credentials')
    .option('--port <n>', 'port (default: any free port)', (v) => {
      if (!/^\d+$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError('--port must be 0-65535');
      return Number(v);
    })
    .option('--replicas <n>', 'extra synthetic replays cloned from the samples', (v) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('--replicas must be a non-negative integer');
      return Number(v);
    })
    .action(async (opts: { port?: number; replicas?: number }) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await runSandboxCommand({
        ...(opts.port !== undefined ? { port: opts.port } : {}),
        ...(opts.replicas !== undefined ? { replicas: opts.replicas } : {}),
      });
    });

  try {
    await program.parseAsync(argv as string[]);
    if (abort.signal.aborted) throw abort.signal.reason;
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    const { code, message } = failure(abort.signal.aborted ? abort.signal.reason : err);
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
