/** The flags of the commands that write replays (`export`, `archive`), and how their run is driven and reported. */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { S3SinkOptions } from '../../sinks/index.js';
import type { ArchiveEvent, FileVersion, OutputFormat, SettingsOptions } from '../../src/index.js';
import { EXIT_CODES, exitCodeOf } from '../../src/cli/base.js';
import { formatByteSize } from '../../src/cli/flags.js';
import { DEFAULTS } from '../../src/cli/flags.js';
import {
  addS3AccessFlags,
  deadlineOf,
  durationFlag,
  limitsOf,
  positiveInt,
  REQUEST_DEADLINE_HELP,
  s3ReadOptions,
  usage,
  withDefault,
  type LimitFlags,
  type S3ReadFlags,
} from './flags.js';
import { reportFatal } from './fatal.js';
import type { Reporter } from './reporter.js';

export interface SinkFlags extends S3ReadFlags, LimitFlags {
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

/** `archive`'s own flags that are settings. */
export interface RunFlags {
  settle?: string;
  recheck?: string;
  order?: string;
  /** `false` with `--no-compact`. */
  compact?: boolean;
  quarantineAfter?: number;
  retryQuarantined?: boolean;
}

export function addSinkFlags(cmd: Command): Command {
  const d = DEFAULTS;
  const partSize = `${d.s3.partSize} (${formatByteSize(d.s3.partSize)})`;
  return addS3AccessFlags(
    cmd
      .requiredOption(
        '-o, --out <target>',
        'output folder, s3://bucket/prefix, or - (export: one replay to stdout) (required)',
      )
      .option(
        '--format <format>',
        withDefault(
          'json (one array per replay), ndjson (one event a line) or html (a page that plays the replay offline)',
          d.format,
        ),
      )
      .option('--gzip', withDefault('gzip each output (.gz)', d.gzip ? 'on' : 'off'))
      .option(
        '--file-version <n>',
        withDefault('replay file version requested from the API: 2 or 3', d.fileVersion),
        positiveInt('--file-version'),
      )
      .option('--concurrency <n>', withDefault('replays exported at once', d.concurrency), positiveInt('--concurrency'))
      .option('--request-deadline <duration>', REQUEST_DEADLINE_HELP)
      .option(
        '--redact <policy.json>',
        withDefault('mask, block and drop what a redaction policy names before writing (docs/REDACTION.md)', 'off'),
      )
      .option(
        '--capture-assets <origins>',
        withDefault(
          'store the stylesheets, fonts and images replays reference from these origins (comma-separated), for offline playing',
          'off',
        ),
      ),
  )
    .option(
      '--s3-part-size <bytes>',
      withDefault(
        `multipart part size in bytes, at least ${d.s3.minPartSize} (${formatByteSize(d.s3.minPartSize)})`,
        partSize,
      ),
      positiveInt('--s3-part-size'),
    )
    .option(
      '--s3-queue-size <n>',
      withDefault('parts uploaded in parallel per replay', d.s3.queueSize),
      positiveInt('--s3-queue-size'),
    );
}

/** The S3 options of the `--s3-*` flags given. */
function s3OptionsOf(f: SinkFlags): S3SinkOptions {
  return {
    ...s3ReadOptions(f),
    ...(f.s3PartSize !== undefined ? { partSize: f.s3PartSize } : {}),
    ...(f.s3QueueSize !== undefined ? { queueSize: f.s3QueueSize } : {}),
  };
}

/**
 * The library's options from the flags of `export` or `archive` (each flag's syntax is checked here; values, ranges
 * and the environment by `resolveSettings`, which names the flags in its errors).
 */
export async function sinkSettingsOf(f: SinkFlags & RunFlags, command: 'export' | 'archive'): Promise<SettingsOptions> {
  if (f.out.trim() === '') usage('--out must not be empty');
  // A browser downloads a local .html.gz instead of playing it; S3 serves it with Content-Encoding: gzip, which plays.
  if (f.format === 'html' && f.gzip === true && !f.out.startsWith('s3://')) {
    usage(
      '--format html --gzip writes .html.gz, which a browser does not open from disk: drop --gzip for a local --out (S3 serves it with Content-Encoding: gzip)',
    );
  }
  const s3 = s3OptionsOf(f);
  const settleMs = durationFlag('--settle', f.settle);
  const recheckMs = durationFlag('--recheck', f.recheck);
  const redact =
    f.redact === undefined
      ? undefined
      : await (await import('../../src/redaction/index.js')).loadRedactionPolicy(f.redact);
  return {
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
    ...(f.quarantineAfter !== undefined ? { quarantineAfter: f.quarantineAfter } : {}),
    ...(f.retryQuarantined === true ? { retryQuarantined: true } : {}),
    ...(command === 'archive' ? { runId: randomUUID() } : {}),
    ...(redact !== undefined ? { redact } : {}),
    ...(f.captureAssets !== undefined
      ? { captureAssets: f.captureAssets.split(',').filter((o) => o.trim() !== '') }
      : {}),
  };
}

/** Runs an export/archive stream to the end, reporting as it goes; returns the exit code. */
export async function drive(
  events: AsyncIterable<ArchiveEvent>,
  reporter: Reporter,
  target: string,
  extra: Record<string, unknown>,
): Promise<number> {
  try {
    for await (const ev of events) reporter.onEvent(ev);
  } catch (err) {
    // A run that never started (a configuration error, an unusable --out) has nothing to sum up. One stopped part-way
    // says why before the summary of what it did; an interrupt's line comes after it, from the session.
    if (!reporter.hasBegun) reporter.close();
    else {
      if (exitCodeOf(err) !== EXIT_CODES.interrupted) reportFatal(reporter, err);
      reporter.summary(target, extra);
    }
    throw err;
  }
  reporter.summary(target, extra);
  return reporter.totals.byOutcome.failed + reporter.totals.byOutcome.not_found > 0 ? 1 : 0;
}
