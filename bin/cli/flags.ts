/**
 * The flags several commands share: their definitions (with the defaults their help shows) and their parsing into
 * the library's options. Imports only the modules of the constants it shows, so that a command's registration loads
 * no client, sink or sandbox.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { MAX_EVENT_BYTES_CAP } from '../../decoders/limits.js';
import { defaultChecksums } from '../../sinks/s3-defaults.js';
import type { S3Checksums, S3SinkOptions } from '../../sinks/index.js';
import type { RunOptions } from '../../src/index.js';
import { ConfigError } from '../../src/errors.js';
import { stripUndefined } from '../../src/http/options.js';
import { ByteSizeError, formatByteSize, parseByteSize } from '../../src/pipeline/byte-size.js';
import { DEFAULTS } from '../../src/pipeline/defaults.js';
import { DurationError, formatDuration, parseDuration } from '../../src/pipeline/duration.js';
import { ENV } from '../../src/pipeline/settings.js';

export function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
      throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(value);
  };
}

/** `--port <n>`: 0-65535. */
export function portFlag(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('--port must be 0-65535');
  return Number(value);
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A usage error (exit 2). */
export function usage(message: string): never {
  throw new ConfigError(message);
}

/** `text (default: shown)`: a flag's help with its default, as commander prints its own. */
export function withDefault(text: string, shown: string | number): string {
  return `${text} (default: ${shown})`;
}

/** A flag's value read by `parse`; the parser's own error (`refusal`) is a usage error naming the flag. */
function parsedFlag<T>(
  name: string,
  value: string | undefined,
  parse: (text: string) => T,
  refusal: abstract new (...args: never[]) => Error,
): T | undefined {
  if (value === undefined) return undefined;
  try {
    return parse(value);
  } catch (err) {
    if (err instanceof refusal) usage(`${name}: ${err.message}`);
    throw err;
  }
}

export function durationFlag(name: string, value: string | undefined): number | undefined {
  return parsedFlag(name, value, parseDuration, DurationError);
}

function sizeFlag(name: string, value: string | undefined): number | undefined {
  return parsedFlag(name, value, parseByteSize, ByteSizeError);
}

export interface LimitFlags {
  maxEventSize?: string;
  maxReplaySize?: string;
}

/** `--max-event-size` and `--max-replay-size` as options (their range is checked by the run). */
export function limitsOf(f: LimitFlags): Pick<RunOptions, 'maxEventBytes' | 'maxReplayBytes'> {
  return {
    maxEventBytes: sizeFlag('--max-event-size', f.maxEventSize),
    maxReplayBytes: sizeFlag('--max-replay-size', f.maxReplaySize),
  };
}

/** `--request-deadline` as an option (the transport's `timeouts.deadlineMs`). */
export function deadlineOf(value: string | undefined): Pick<RunOptions, 'transportOptions'> {
  return { transportOptions: { timeouts: stripUndefined({ deadlineMs: durationFlag('--request-deadline', value) }) } };
}

/**
 * `--request-deadline`, `--max-wait` and `--no-retry` (commander's `retry: false`) as settings: the transport's
 * `timeouts.deadlineMs`, `retry.maxWaitMs` and `retry.retries`.
 */
export function requestLimitsOf(f: {
  requestDeadline?: string;
  maxWait?: string;
  retry?: boolean;
}): Pick<RunOptions, 'transportOptions'> {
  const retries = f.retry === false ? 0 : undefined;
  return {
    transportOptions: {
      ...deadlineOf(f.requestDeadline).transportOptions,
      retry: stripUndefined({ retries, maxWaitMs: durationFlag('--max-wait', f.maxWait) }),
    },
  };
}

/** `--max-event-size` and `--max-replay-size`; `reading` (`verify`): going over makes an object undecodable. */
export function addLimitFlags(cmd: Command, reading = false): Command {
  const eventText = `largest event, e.g. 64MiB, at most ${formatByteSize(MAX_EVENT_BYTES_CAP)}; a larger one ${reading ? 'makes its object undecodable' : 'fails its replay'}`;
  const replayText = reading
    ? 'inflated bytes one stored object may take; more makes it undecodable'
    : 'inflated bytes one replay may take over its files; more fails it';
  return cmd
    .option('--max-event-size <size>', withDefault(eventText, formatByteSize(DEFAULTS.maxEventBytes)))
    .option('--max-replay-size <size>', withDefault(replayText, formatByteSize(DEFAULTS.maxReplayBytes)));
}

export const REQUEST_DEADLINE_HELP = withDefault(
  'longest time one HTTP request may take, headers and body',
  formatDuration(DEFAULTS.requestDeadlineMs),
);

export interface S3ReadFlags {
  s3Endpoint?: string;
  s3ForcePathStyle?: boolean;
  s3Region?: string;
  s3Checksums?: string;
}

/** The S3 flags that reach a bucket (`archive`'s, without the upload tuning): `--s3-endpoint`, path style, region, checksums. */
export function addS3AccessFlags(cmd: Command): Command {
  const s3Region = `with --s3-endpoint ${ENV.awsRegion}, else ${ENV.awsDefaultRegion}, else ${DEFAULTS.s3.endpointRegion}; on AWS the SDK's chain`;
  return cmd
    .option('--s3-endpoint <url>', withDefault('S3-compatible endpoint (MinIO, R2, ...)', 'AWS'))
    .option('--s3-force-path-style', withDefault('path-style S3 addressing', 'off'))
    .option('--s3-region <region>', withDefault('S3 region', s3Region))
    .option(
      '--s3-checksums <mode>',
      withDefault(
        'when-supported or when-required',
        `${defaultChecksums(undefined)} on AWS, ${defaultChecksums('--s3-endpoint')} with --s3-endpoint`,
      ),
    );
}

/** The archive of `--out` (or the archive argument) with the S3 flags, as a run's options. */
export function archiveOf(out: string, f: S3ReadFlags): Pick<RunOptions, 'out' | 'sinkOptions'> {
  return { out, sinkOptions: { s3: s3ReadOptions(f) } };
}

export function s3ReadOptions(f: S3ReadFlags): S3SinkOptions {
  return {
    endpoint: f.s3Endpoint,
    forcePathStyle: f.s3ForcePathStyle,
    region: f.s3Region,
    checksums: f.s3Checksums as S3Checksums | undefined,
  };
}
