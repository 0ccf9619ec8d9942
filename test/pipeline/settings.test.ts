/**
 * The run's settings: resolved once from options (or flags), the environment and the defaults, in that precedence;
 * checked; frozen. Nothing below the settings module reads `process.env`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { batchCount, decodeEventBatches } from '../../decoders/index.js';
import { wasmChunkScanner } from '../../decoders/wasm-instance.js';
import { HASH_WORKER_DEFAULTS } from '../../sinks/output-hash.js';
import { S3_DEFAULTS } from '../../sinks/s3-defaults.js';
import { ConfigError, replayEvents } from '../../src/index.js';
import { DECODE_LIMITS } from '../../decoders/limits.js';
import { DEFAULT_RETRY, DEFAULT_TIMEOUTS } from '../../src/http/options.js';
import { DEFAULTS, PIPELINE_DEFAULTS, resolveSettings, type SettingsOptions } from '../../src/pipeline/settings.js';
import { inFlagWords } from '../../bin/cli/option-flags.js';
import { ShardConfigError } from '../../src/pipeline/shard.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { makeEvents, v3Text } from '../decoders/fixtures.js';
import { FAST, readJson } from './helpers.js';

const ENV_NAMES = ['REPLAY_EXPORT_WASM', 'REPLAY_EXPORT_HASH_WORKER', 'AWS_REGION', 'AWS_DEFAULT_REGION'];
const saved = new Map(ENV_NAMES.map((k) => [k, process.env[k]]));
let sandbox: Sandbox | undefined;

afterEach(async () => {
  for (const [k, v] of saved) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await sandbox?.close();
  sandbox = undefined;
});

describe('resolveSettings: option (or flag) > environment > default', () => {
  test('with nothing given, every field is its default from the one table', () => {
    const s = resolveSettings({}, { env: {} });
    expect(s.fastPath).toBe(true);
    expect(s.concurrency).toBe(DEFAULTS.concurrency);
    expect(s.settleMs).toBe(24 * 3_600_000);
    expect(s.maxEventBytes).toBe(DECODE_LIMITS.maxEventBytes);
    expect(s.maxReplayBytes).toBe(DECODE_LIMITS.maxReplayBytes);
    expect(s.requestDeadlineMs).toBe(DEFAULT_TIMEOUTS.deadlineMs);
    expect(s.output).toEqual({ format: 'json', gzip: false });
    expect(s.sinkOptions.local.hashWorker).toEqual(HASH_WORKER_DEFAULTS);
    expect(s.sinkOptions.s3).toEqual({
      partSize: S3_DEFAULTS.partSize,
      queueSize: S3_DEFAULTS.queueSize,
      checksums: 'when-supported',
    });
    expect(s.shard).toBeUndefined();
    expect(PIPELINE_DEFAULTS).toBe(DEFAULTS);
  });

  test('fastPath: REPLAY_EXPORT_WASM=0 turns it off; the option wins over the environment', () => {
    expect(resolveSettings({}, { env: { REPLAY_EXPORT_WASM: '0' } }).fastPath).toBe(false);
    expect(resolveSettings({ fastPath: true }, { env: { REPLAY_EXPORT_WASM: '0' } }).fastPath).toBe(true);
    expect(resolveSettings({ fastPath: false }, { env: {} }).fastPath).toBe(false);
    expect(resolveSettings({}, { env: { REPLAY_EXPORT_WASM: '' } }).fastPath).toBe(true);
  });

  test('hashWorker: REPLAY_EXPORT_HASH_WORKER=0 gives the sink `false`; the option wins over the environment', () => {
    expect(resolveSettings({}, { env: { REPLAY_EXPORT_HASH_WORKER: '0' } }).sinkOptions.local.hashWorker).toBe(false);
    const given = resolveSettings(
      { sinkOptions: { local: { hashWorker: { nice: 5 } } } },
      { env: { REPLAY_EXPORT_HASH_WORKER: '0' } },
    );
    expect(given.sinkOptions.local.hashWorker).toEqual({ ...HASH_WORKER_DEFAULTS, nice: 5 });
    expect(
      resolveSettings({ sinkOptions: { local: { hashWorker: false } } }, { env: {} }).sinkOptions.local.hashWorker,
    ).toBe(false);
  });

  test('S3 region with a custom endpoint: option > AWS_REGION > AWS_DEFAULT_REGION > us-east-1; none without one', () => {
    const region = (s3: { endpoint?: string; region?: string }, env: Record<string, string>): string | undefined =>
      resolveSettings({ sinkOptions: { s3 } }, { env }).sinkOptions.s3.region;
    const endpoint = 'http://127.0.0.1:9000';
    const both = { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'ap-south-1' };
    expect(region({ endpoint, region: 'ca-central-1' }, both)).toBe('ca-central-1');
    expect(region({ endpoint }, both)).toBe('eu-west-1');
    expect(region({ endpoint }, { AWS_DEFAULT_REGION: 'ap-south-1' })).toBe('ap-south-1');
    expect(region({ endpoint }, {})).toBe(S3_DEFAULTS.endpointRegion);
    // On AWS the SDK's own chain finds the region (AWS_REGION, config files).
    expect(region({}, both)).toBeUndefined();
    expect(resolveSettings({ sinkOptions: { s3: { endpoint } } }, { env: {} }).sinkOptions.s3.checksums).toBe(
      'when-required',
    );
  });

  test("shard, for a job's run: the option > JOB_COMPLETION_INDEX / AWS_BATCH_JOB_ARRAY_INDEX > none; not read otherwise", () => {
    const env = { JOB_COMPLETION_INDEX: '1', REPLAY_EXPORT_SHARD_COUNT: '3' };
    const job = { env, jobEnvironment: true };
    expect(resolveSettings({ shard: { index: 0, count: 2 } }, job).shard).toEqual({ index: 0, count: 2 });
    expect(resolveSettings({}, job).shard).toEqual({ index: 1, count: 3 });
    expect(resolveSettings({}, { env: {}, jobEnvironment: true }).shard).toBeUndefined();
    expect(resolveSettings({}, { env }).shard).toBeUndefined();
    expect(resolveSettings({}, { env, jobEnvironment: false }).shard).toBeUndefined();
    expect(resolveSettings({ shard: { index: 2, count: 4 } }, { env }).shard).toEqual({ index: 2, count: 4 });
    expect(() => resolveSettings({}, { env: { JOB_COMPLETION_INDEX: '1' }, jobEnvironment: true })).toThrow(
      ShardConfigError,
    );
  });

  test('settle: the option > 24h', () => {
    expect(resolveSettings({ settleMs: 5 }, { env: {} }).settleMs).toBe(5);
    expect(resolveSettings({}, { env: {} }).settleMs).toBe(DEFAULTS.settleMs);
  });

  test('the deadline of one HTTP attempt comes from transportOptions.timeouts.deadlineMs', () => {
    expect(
      resolveSettings({ transportOptions: { timeouts: { deadlineMs: 1234 } } }, { env: {} }).requestDeadlineMs,
    ).toBe(1234);
  });

  test('the API retries and the bound on their waits come from transportOptions.retry', () => {
    const d = resolveSettings({}, { env: {} });
    expect([d.apiRetries, d.maxWaitMs]).toEqual([DEFAULT_RETRY.retries, undefined]);
    const s = resolveSettings({ transportOptions: { retry: { retries: 0, maxWaitMs: 1500 } } }, { env: {} });
    expect([s.apiRetries, s.maxWaitMs]).toEqual([0, 1500]);
  });

  test('the settings are frozen, all the way down to what the run made', () => {
    const s = resolveSettings({ sinkOptions: { s3: { endpoint: 'http://x' } } }, { env: {} });
    for (const part of [
      s,
      s.output,
      s.sinkOptions,
      s.sinkOptions.local,
      s.sinkOptions.s3,
      s.sinkOptions.local.hashWorker,
    ]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      (s as { concurrency: number }).concurrency = 99;
    }).toThrow(TypeError);
  });
});

describe('resolveSettings: values out of range are a ConfigError, once, naming the option or the flag', () => {
  test.each([
    [
      { maxEventBytes: 2 ** 31 },
      /^maxEventBytes must be a whole number of bytes from 1 to 1073741824, got 2147483648$/,
    ],
    [{ maxReplayBytes: 0 }, /^maxReplayBytes must be a whole number of bytes of at least 1/],
    [{ concurrency: 0 }, /^concurrency must be a whole number of at least 1/],
    [{ filesAhead: -1 }, /^filesAhead/],
    [{ prefetchBytes: 0 }, /^prefetchBytes/],
    [{ retryBaseMs: Number.NaN }, /^retryBaseMs/],
    [{ fileVersion: 4 as 3 }, /^fileVersion must be 2 or 3, got 4$/],
    [{ format: 'xml' as 'json' }, /^format must be "json" or "ndjson" or "html", got "xml"$/],
    [{ order: 'random' as 'start' }, /^order/],
    [{ shard: { index: 4, count: 4 } }, /^shard.index must be a whole number from 0 to 3, got 4$/],
    [{ transportOptions: { timeouts: { deadlineMs: 0 } } }, /^requestDeadlineMs must be longer than 0/],
    [{ sinkOptions: { s3: { partSize: 1024 } } }, /^s3.partSize must be a whole number of bytes of at least 5242880/],
  ])('%o', (options, message) => {
    expect(() => resolveSettings(options, { env: {} })).toThrow(ConfigError);
    expect(() => resolveSettings(options, { env: {} })).toThrow(message);
  });

  test('the CLI says them naming its flag, in its units (the library names no flag)', () => {
    const cli = (o: SettingsOptions): void => {
      try {
        resolveSettings(o, { env: {} });
      } catch (err) {
        expect((err as Error).message).not.toMatch(/--/);
        throw inFlagWords(err);
      }
    };
    expect(() => cli({ maxEventBytes: 2 * 1024 ** 3 })).toThrow(
      /^--max-event-size must be a size from 1 to 1GiB, got 2GiB$/,
    );
    expect(() => cli({ transportOptions: { timeouts: { deadlineMs: 0 } } })).toThrow(
      /^--request-deadline must be longer than 0/,
    );
    expect(() => cli({ sinkOptions: { s3: { checksums: 'never' as 'when-required' } } })).toThrow(
      /^--s3-checksums must be/,
    );
  });

  test('an environment switch other than 0 or 1 is refused, naming the variable', () => {
    expect(() => resolveSettings({}, { env: { REPLAY_EXPORT_WASM: 'off' } })).toThrow(
      /^REPLAY_EXPORT_WASM must be 0 or 1, got "off"$/,
    );
    expect(() => resolveSettings({}, { env: { REPLAY_EXPORT_HASH_WORKER: 'no' } })).toThrow(ConfigError);
  });
});

describe('the environment is read by the settings module only', () => {
  test('no module of decoders/, sinks/ or src/ but the settings module mentions process.env', () => {
    const root = packageRoot();
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts') && readFileSync(path, 'utf8').includes('process.env'))
          found.push(relative(root, path));
      }
    };
    for (const dir of ['decoders', 'sinks', 'src']) walk(join(root, dir));
    expect(found).toEqual(['src/pipeline/settings.ts']);
  });

  test('REPLAY_EXPORT_WASM=0: the resolved settings carry fastPath false; decoders called directly ignore it', async () => {
    process.env['REPLAY_EXPORT_WASM'] = '0';
    expect(resolveSettings().fastPath).toBe(false);
    const scanner = wasmChunkScanner();
    expect(scanner).not.toBeNull();
    const before = scanner!.generation;
    const text = Buffer.from(v3Text(makeEvents(200)));
    expect(text.length).toBeGreaterThan(64 * 1024);
    let events = 0;
    async function* source(): AsyncGenerator<Uint8Array> {
      yield text;
    }
    for await (const batch of decodeEventBatches(source())) events += batchCount(batch);
    expect(events).toBe(200);
    // The WebAssembly scanner scanned the chunk: the decoder went by its own default, not by the variable.
    expect(wasmChunkScanner()!.generation).toBeGreaterThan(before);
  });

  test('replayEvents reads REPLAY_EXPORT_WASM through its settings: 0 keeps the decoders off the fast path', async () => {
    sandbox = await startSandbox({});
    const r = sandbox.replays()[0]!;
    const want = await readJson(r.expectedPath);
    const run = async (extra: { fastPath?: boolean } = {}): Promise<number> => {
      const before = wasmChunkScanner()!.generation;
      const got: unknown[] = [];
      for await (const ev of replayEvents(r.replayId, {
        endpoint: sandbox!.url,
        ...sandbox!.credentials,
        ...FAST,
        ...extra,
      }))
        got.push(ev);
      expect(got).toEqual(want);
      return wasmChunkScanner()!.generation - before;
    };
    process.env['REPLAY_EXPORT_WASM'] = '0';
    expect(await run()).toBe(0);
    // The option wins over the environment.
    expect(await run({ fastPath: true })).toBeGreaterThan(0);
    delete process.env['REPLAY_EXPORT_WASM'];
    expect(await run()).toBeGreaterThan(0);
  });
});
