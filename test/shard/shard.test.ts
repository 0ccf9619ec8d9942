import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { formatShard, resolveShard, shardOf, ShardConfigError } from '../../src/pipeline/shard.js';

describe('shardOf', () => {
  it('is stable: fixed values that must never change across machines or versions', () => {
    // First 8 bytes of sha256(utf8(id)) as unsigned big-endian, modulo the count (values computed once, frozen).
    expect(shardOf('a/1', 1000)).toBe(942);
    expect(shardOf('device/1763629200000', 1000)).toBe(751);
    expect(shardOf('2f6b7b9e-1c1d-4c2e-9b1a-1234567890ab/1763629200000', 1000)).toBe(549);
    expect(shardOf('é/😀', 1000)).toBe(926);
    expect(shardOf('a/1', 7)).toBe(2);
    expect(shardOf('2f6b7b9e-1c1d-4c2e-9b1a-1234567890ab/1763629200000', 7)).toBe(4);
    expect(shardOf('a/1', 1)).toBe(0);
  });

  it('puts every id in exactly one shard, roughly evenly', () => {
    const count = 8;
    const n = 40_000;
    const sizes = new Array<number>(count).fill(0);
    for (let i = 0; i < n; i++) {
      const s = shardOf(`device-${i % 997}/${1763629200000 + i}`, count);
      expect(Number.isInteger(s) && s >= 0 && s < count).toBe(true);
      sizes[s]!++;
    }
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(n);
    for (const size of sizes) {
      expect(size).toBeGreaterThan((n / count) * 0.93);
      expect(size).toBeLessThan((n / count) * 1.07);
    }
  });

  it('rejects a bad count', () => {
    expect(() => shardOf('a/1', 0)).toThrow(ConfigError);
    expect(() => shardOf('a/1', 1.5)).toThrow(
      expect.objectContaining({ category: 'usage', message: expect.stringContaining('shard count') }),
    );
  });
});

describe('resolveShard', () => {
  it('parses --shard i/n', () => {
    expect(resolveShard('0/4', {})).toEqual({ index: 0, count: 4 });
    expect(resolveShard('3/4', {})).toEqual({ index: 3, count: 4 });
    expect(resolveShard('0/1', {})).toEqual({ index: 0, count: 1 });
    expect(formatShard({ index: 2, count: 5 })).toBe('2/5');
  });

  for (const bad of ['4/4', '-1/4', '1/0', '1', '1/2/3', 'a/b', '01/4', '1.0/4', '', '/4', '1/', '0x1/4', '0/100001']) {
    it(`rejects --shard ${JSON.stringify(bad)} with a typed error`, () => {
      const err = (() => {
        try {
          resolveShard(bad, {});
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err).toBeInstanceOf(ShardConfigError);
      expect(err).toMatchObject({ code: 'SHARD_CONFIG' });
    });
  }

  it('is undefined without flag or environment', () => {
    expect(resolveShard(undefined, {})).toBeUndefined();
    expect(resolveShard(undefined, { JOB_COMPLETION_INDEX: '' })).toBeUndefined();
  });

  it('reads a Kubernetes Indexed Job', () => {
    expect(resolveShard(undefined, { JOB_COMPLETION_INDEX: '2', REPLAY_EXPORT_SHARD_COUNT: '5' })).toEqual({
      index: 2,
      count: 5,
    });
    expect(() => resolveShard(undefined, { JOB_COMPLETION_INDEX: '2' })).toThrow(ShardConfigError);
    expect(() => resolveShard(undefined, { JOB_COMPLETION_INDEX: '5', REPLAY_EXPORT_SHARD_COUNT: '5' })).toThrow(
      /JOB_COMPLETION_INDEX/,
    );
    expect(() => resolveShard(undefined, { JOB_COMPLETION_INDEX: 'x', REPLAY_EXPORT_SHARD_COUNT: '5' })).toThrow(
      ShardConfigError,
    );
  });

  it('reads an AWS Batch array job', () => {
    expect(resolveShard(undefined, { AWS_BATCH_JOB_ARRAY_INDEX: '9', AWS_BATCH_JOB_ARRAY_SIZE: '10' })).toEqual({
      index: 9,
      count: 10,
    });
    expect(resolveShard(undefined, { AWS_BATCH_JOB_ARRAY_INDEX: '1', REPLAY_EXPORT_SHARD_COUNT: '3' })).toEqual({
      index: 1,
      count: 3,
    });
    expect(() => resolveShard(undefined, { AWS_BATCH_JOB_ARRAY_INDEX: '1' })).toThrow(
      /AWS_BATCH_JOB_ARRAY_SIZE|REPLAY_EXPORT_SHARD_COUNT/,
    );
    expect(() => resolveShard(undefined, { AWS_BATCH_JOB_ARRAY_INDEX: '10', AWS_BATCH_JOB_ARRAY_SIZE: '10' })).toThrow(
      ShardConfigError,
    );
  });

  it('applies precedence: flag, then Kubernetes, then AWS Batch', () => {
    const env = {
      JOB_COMPLETION_INDEX: '1',
      REPLAY_EXPORT_SHARD_COUNT: '3',
      AWS_BATCH_JOB_ARRAY_INDEX: '4',
      AWS_BATCH_JOB_ARRAY_SIZE: '8',
    };
    expect(resolveShard('0/2', env)).toEqual({ index: 0, count: 2 });
    expect(resolveShard(undefined, env)).toEqual({ index: 1, count: 3 });
    const { JOB_COMPLETION_INDEX: _drop, ...batchOnly } = env;
    expect(resolveShard(undefined, batchOnly)).toEqual({ index: 4, count: 8 });
    // A bad flag is an error even when the environment is valid.
    expect(() => resolveShard('9/2', env)).toThrow(ShardConfigError);
  });
});
