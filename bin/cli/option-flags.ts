/**
 * The CLI's words for the library's options: a `ConfigError` about an option (`problem`) is said again naming the
 * flag that gave it, its values in the flags' units (`256MiB`, `5m`). The library names its options alone.
 */
import { ConfigError } from '../../src/errors.js';

/** The flag of each option the CLI gives (by the library's name of the option, as a `ConfigError` names it). */
const FLAGS: Readonly<Record<string, string>> = {
  apiKey: '--api-key',
  secretKey: '--secret-key',
  managementKey: '--management-key',
  region: '--region',
  endpoint: '--endpoint',
  out: '--out',
  fileVersion: '--file-version',
  maxEventBytes: '--max-event-size',
  maxReplayBytes: '--max-replay-size',
  format: '--format',
  concurrency: '--concurrency',
  order: '--order',
  settleMs: '--settle',
  recheckMs: '--recheck',
  compactManifest: '--no-compact',
  requestDeadlineMs: '--request-deadline',
  apiRetries: '--no-retry',
  maxWaitMs: '--max-wait',
  balance: '--balance',
  quarantineAfter: '--quarantine-after',
  retryQuarantined: '--retry-quarantined',
  shard: '--shard <i>/<n>',
  'captureAssets.origins': '--capture-assets',
  's3.partSize': '--s3-part-size',
  's3.queueSize': '--s3-queue-size',
  's3.checksums': '--s3-checksums',
};

/** The flag of `option`, or the option's own name when no flag gives it. */
function flagOf(option: string): string {
  return FLAGS[option] ?? option;
}

/** `err` in the CLI's words: a `ConfigError` about an option names its flag; anything else as it is. */
export function inFlagWords(err: unknown): unknown {
  if (!(err instanceof ConfigError) || err.problem === undefined) return err;
  const { option } = err.problem;
  // The sandbox needs no keys: said where the keys are missing.
  const hint = option === 'apiKey' || option === 'secretKey' ? '; or use --sandbox' : '';
  return new ConfigError(err.problem.say(flagOf, true) + hint, err.code, err.problem);
}
