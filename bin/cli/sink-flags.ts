/** The flags of the commands that write replays (`export`, `archive`), and how their run is driven and reported. */
import type { Command } from 'commander';
import { locateArchive } from '../../sinks/archive.js';
import type { ArchiveEvent, FileVersion, OutputFormat, RunOptions } from '../../src/index.js';
import { EXIT_CODES, exitCodeOf } from '../../src/errors.js';
import { formatByteSize } from '../../src/pipeline/byte-size.js';
import { DEFAULTS } from '../../src/pipeline/defaults.js';
import {
  addLimitFlags,
  addS3AccessFlags,
  deadlineOf,
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

/** The flags of the commands that write replays, the limit flags last. */
export function addSinkFlags(cmd: Command): Command {
  const d = DEFAULTS;
  const partSize = `${d.s3.partSize} (${formatByteSize(d.s3.partSize)})`;
  const flags = addS3AccessFlags(
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
  return addLimitFlags(flags);
}

/** What the writing commands' flags bind into: the options of a run that writes replays. */
export type WriteOptions = Pick<
  RunOptions,
  | 'out'
  | 'format'
  | 'gzip'
  | 'fileVersion'
  | 'concurrency'
  | 'maxEventBytes'
  | 'maxReplayBytes'
  | 'transportOptions'
  | 'sinkOptions'
  | 'redact'
  | 'captureAssets'
>;

/**
 * The options of `export` or `archive` from their shared flags (each flag's syntax is checked here; values, ranges
 * and the environment by the run, whose errors name the options: the CLI says them with its flags).
 */
export async function writeOptionsOf(f: SinkFlags): Promise<WriteOptions> {
  if (f.out.trim() === '') usage('--out must not be empty');
  // A browser downloads a local .html.gz instead of playing it; S3 serves it with Content-Encoding: gzip, which plays.
  if (f.format === 'html' && f.gzip === true && locateArchive(f.out).kind !== 's3') {
    usage(
      '--format html --gzip writes .html.gz, which a browser does not open from disk: drop --gzip for a local --out (S3 serves it with Content-Encoding: gzip)',
    );
  }
  const redact =
    f.redact === undefined
      ? undefined
      : await (await import('../../src/redaction/index.js')).loadRedactionPolicy(f.redact);
  return {
    out: f.out,
    format: f.format as OutputFormat | undefined,
    gzip: f.gzip,
    fileVersion: f.fileVersion as FileVersion | undefined,
    concurrency: f.concurrency,
    ...limitsOf(f),
    ...deadlineOf(f.requestDeadline),
    sinkOptions: { s3: { ...s3ReadOptions(f), partSize: f.s3PartSize, queueSize: f.s3QueueSize } },
    redact,
    captureAssets: f.captureAssets?.split(',').filter((o) => o.trim() !== ''),
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
