/**
 * The flags several commands share: their definitions (with the defaults their help shows) and their parsing into
 * the library's options. Imports only the modules of the constants it shows, so that a command's registration loads
 * no client, sink or sandbox.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { MAX_EVENT_BYTES_CAP } from '../../src/cli/flags.js';
import { defaultChecksums } from '../../src/cli/flags.js';
import type { S3Checksums, S3SinkOptions } from '../../sinks/index.js';
import type { SettingsOptions } from '../../src/index.js';
import { ByteSizeError, formatByteSize, parseByteSize } from '../../src/cli/flags.js';
import { DEFAULTS } from '../../src/cli/flags.js';
import { DurationError, formatDuration, parseDuration } from '../../src/cli/flags.js';
import { ConfigError } from '../../src/cli/flags.js';
import { ENV } from '../../src/cli/flags.js';

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

/** `--max-event-size` and `--max-replay-size` as settings (their range is checked by `resolveSettings`). */
export function limitsOf(f: LimitFlags): Pick<SettingsOptions, 'maxEventBytes' | 'maxReplayBytes'> {
  const maxEventBytes = sizeFlag('--max-event-size', f.maxEventSize);
  const maxReplayBytes = sizeFlag('--max-replay-size', f.maxReplaySize);
  return {
    ...(maxEventBytes !== undefined ? { maxEventBytes } : {}),
    ...(maxReplayBytes !== undefined ? { maxReplayBytes } : {}),
  };
}

/** `--request-deadline` as a setting (the transport's `timeouts.deadlineMs`). */
export function deadlineOf(value: string | undefined): Pick<SettingsOptions, 'transportOptions'> {
  const deadlineMs = durationFlag('--request-deadline', value);
  return deadlineMs === undefined ? {} : { transportOptions: { timeouts: { deadlineMs } } };
}

/**
 * `--request-deadline`, `--max-wait` and `--no-retry` (commander's `retry: false`) as settings: the transport's
 * `timeouts.deadlineMs`, `retry.maxWaitMs` and `retry.retries`.
 */
export function requestLimitsOf(f: {
  requestDeadline?: string;
  maxWait?: string;
  retry?: boolean;
}): Pick<SettingsOptions, 'transportOptions'> {
  const maxWaitMs = durationFlag('--max-wait', f.maxWait);
  const retry = { ...(f.retry === false ? { retries: 0 } : {}), ...(maxWaitMs !== undefined ? { maxWaitMs } : {}) };
  const timeouts = deadlineOf(f.requestDeadline).transportOptions?.timeouts;
  return { transportOptions: { ...(timeouts !== undefined ? { timeouts } : {}), retry } };
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

export function s3ReadOptions(f: S3ReadFlags): S3SinkOptions {
  return {
    ...(f.s3Endpoint !== undefined ? { endpoint: f.s3Endpoint } : {}),
    ...(f.s3ForcePathStyle ? { forcePathStyle: true } : {}),
    ...(f.s3Region !== undefined ? { region: f.s3Region } : {}),
    ...(f.s3Checksums !== undefined ? { checksums: f.s3Checksums as S3Checksums } : {}),
  };
}
