import { createHash } from 'node:crypto';
import { ConfigError, ReplayExportError } from '../errors.js';

/** Which slice of the replays one process exports. */
export interface Shard {
  /** 0-based, below `count`. */
  index: number;
  count: number;
}

/** An invalid `--shard` flag or shard environment variable. Names the source and the value. */
export class ShardConfigError extends ReplayExportError {
  constructor(
    message: string,
    /** Where the value came from: `--shard` or an environment variable name. */
    readonly source: string,
    readonly value: string | undefined,
  ) {
    super(message, { code: 'SHARD_CONFIG', category: 'usage' });
  }
}

/** The environment variables `resolveShard` reads when there is no `--shard`. */
export const SHARD_ENV = Object.freeze({
  kubernetesIndex: 'JOB_COMPLETION_INDEX',
  count: 'REPLAY_EXPORT_SHARD_COUNT',
  batchIndex: 'AWS_BATCH_JOB_ARRAY_INDEX',
  batchSize: 'AWS_BATCH_JOB_ARRAY_SIZE',
});

/** Upper bound on the shard count, far above any sensible fan-out; keeps typos like `0/1000000000` out. */
export const MAX_SHARD_COUNT = 100_000;

/**
 * The shard (0 ≤ result < count) a replay id belongs to: the first 8 bytes of SHA-256 of the id's UTF-8 bytes, as
 * an unsigned big-endian integer, modulo `count`. Identical on every machine and Node version.
 */
export function shardOf(replayId: string, count: number): number {
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new ConfigError(`shard count must be a positive integer, got ${String(count)}`);
  }
  if (count === 1) return 0;
  const digest = createHash('sha256').update(replayId, 'utf8').digest();
  return Number(digest.readBigUInt64BE(0) % BigInt(count));
}

/**
 * The window a process's API family starts with when `limit` requests in flight are allowed per project and `shard`
 * says how many processes share it: its fair share, `limit / count` rounded down (at least 1), so that the shards
 * starting together never start above the limit (a start above it costs 429s on top of those AIMD's probing costs
 * anyway). Unsharded: the limit, instead of growing from 1 to it over 1 + 2 + 3 + 4 answers.
 */
export function fairShareStart(limit: number, shard: Readonly<Shard> | undefined): number {
  return Math.max(1, Math.floor(limit / (shard?.count ?? 1)));
}

/** Whether `replayId` is one of `shard`'s replays (every replay is, without a shard). */
export function inShard(replayId: string, shard: Readonly<Shard> | undefined): boolean {
  return shard === undefined || shardOf(replayId, shard.count) === shard.index;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;

function parseCount(raw: string | undefined, source: string): number {
  const text = raw?.trim();
  if (text === undefined || text === '' || !DECIMAL.test(text) || Number(text) < 1 || Number(text) > MAX_SHARD_COUNT) {
    throw new ShardConfigError(
      `${source} must be a whole number from 1 to ${MAX_SHARD_COUNT}, got ${raw === undefined ? 'nothing' : JSON.stringify(raw)}`,
      source,
      raw,
    );
  }
  return Number(text);
}

function parseIndex(raw: string, count: number, source: string): number {
  const text = raw.trim();
  if (!DECIMAL.test(text) || Number(text) >= count) {
    throw new ShardConfigError(
      `${source} must be a whole number from 0 to ${count - 1}, got ${JSON.stringify(raw)}`,
      source,
      raw,
    );
  }
  return Number(text);
}

export function present(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

/**
 * The shard this process exports, or `undefined` when not sharded. Precedence:
 * 1. `--shard <i>/<n>` (0-based index `i` of `n` shards);
 * 2. Kubernetes Indexed Job: `JOB_COMPLETION_INDEX`, with the count from `REPLAY_EXPORT_SHARD_COUNT`;
 * 3. AWS Batch array job: `AWS_BATCH_JOB_ARRAY_INDEX`, with the count from `AWS_BATCH_JOB_ARRAY_SIZE` (or
 *    `REPLAY_EXPORT_SHARD_COUNT`) — Batch sets only the index; put the size into the job's environment.
 * Invalid or incomplete values throw `ShardConfigError`, never fall through to "not sharded". `env` is the
 * environment as the settings read it (`resolveSettings`, the one module that reads the environment).
 */
export function resolveShard(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Shard | undefined {
  if (flag !== undefined) {
    const match = /^\s*([^/]*)\/([^/]*)\s*$/.exec(flag);
    if (match === null) {
      throw new ShardConfigError(
        `--shard must look like <index>/<count> (e.g. 0/4), got ${JSON.stringify(flag)}`,
        '--shard',
        flag,
      );
    }
    const count = parseCount(match[2], '--shard count');
    return { index: parseIndex(match[1]!, count, '--shard index'), count };
  }
  const { kubernetesIndex, count: countVar, batchIndex, batchSize } = SHARD_ENV;
  if (present(env[kubernetesIndex])) {
    const count = parseCount(env[countVar], countVar);
    return { index: parseIndex(env[kubernetesIndex], count, kubernetesIndex), count };
  }
  if (present(env[batchIndex])) {
    const sizeVar = present(env[batchSize]) ? batchSize : countVar;
    const count = parseCount(env[sizeVar], sizeVar);
    return { index: parseIndex(env[batchIndex], count, batchIndex), count };
  }
  return undefined;
}

/** `i/n`, the form used by `--shard` and in manifest lines. */
export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}
