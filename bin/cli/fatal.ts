/**
 * A run's fatal error as the CLI prints it: one `fatal` line with the error's message and exit code. A run that stops
 * part-way prints it before the summary of what it did (gh's and rclone's order: what went wrong, then the counts),
 * and the session then prints it no second time.
 */
import { ConfigError, exitCodeOf } from '../../src/errors.js';
import { inFlagWords } from './option-flags.js';
import type { Reporter } from './reporter.js';

/**
 * An error as the CLI says it: a `ConfigError` about an option names its flag; a mistake a system or SDK reports in
 * its own words is the usage error it is (exit 2), naming what to give: the AWS SDK's "Region is missing" (an S3
 * target on AWS with no region configured).
 */
export function usageOf(err: unknown): unknown {
  if (err instanceof ConfigError) return inFlagWords(err);
  if (err instanceof Error && /\bRegion is missing\b/.test(err.message)) {
    return new ConfigError(
      'the S3 target needs a region: give --s3-region <region> (e.g. us-east-1) or set AWS_REGION',
      'S3_REGION_MISSING',
    );
  }
  return err;
}

const reported = new WeakSet<object>();

/** Prints `err` as the fatal line with `reporter`, now; the session will not print it again. */
export function reportFatal(reporter: Reporter, err: unknown): void {
  const cause = usageOf(err);
  reporter.log('error', cause instanceof Error ? cause.message : String(cause), {
    event: 'fatal',
    exit_code: exitCodeOf(cause),
  });
  if (typeof err === 'object' && err !== null) reported.add(err);
}

/** Whether `err` was printed already by `reportFatal`. */
export function wasReported(err: unknown): boolean {
  return typeof err === 'object' && err !== null && reported.has(err);
}
