/**
 * `--help` prints each flag's default, taken from the settings' one table of defaults (not numbers written by hand
 * in the help text).
 */
import { describe, expect, test } from 'vitest';
import { formatByteSize } from '../../src/pipeline/byte-size.js';
import { formatDuration } from '../../src/pipeline/duration.js';
import { DEFAULTS } from '../../src/pipeline/settings.js';
import { cleanEnv, runCli } from './cli-helpers.js';

/** Help text with commander's line wrapping undone (one space between words). */
async function help(args: string[]): Promise<string> {
  const res = await runCli([...args, '--help'], cleanEnv());
  expect(res.code, res.stderr).toBe(0);
  return res.stdout.replace(/\s+/g, ' ');
}

const line = (flag: string, shown: string | number): RegExp =>
  // The flag, then its text up to the next flag, holding `(default: shown`.
  new RegExp(
    `${flag.replace(/[-[\]]/g, '\\$&')} (?:(?! --[a-z]).)*?\\(default: ${String(shown).replace(/[()]/g, '\\$&')}[);]`,
  );

describe('--help shows the defaults of the settings table', () => {
  const d = DEFAULTS;
  const sink: [string, string | number][] = [
    ['--format <format>', d.format],
    ['--gzip', 'off'],
    ['--file-version <n>', d.fileVersion],
    ['--concurrency <n>', d.concurrency],
    ['--request-deadline <duration>', formatDuration(d.requestDeadlineMs)],
    ['--s3-part-size <bytes>', `${d.s3.partSize} (${formatByteSize(d.s3.partSize)})`],
    ['--s3-queue-size <n>', d.s3.queueSize],
    ['--max-event-size <size>', formatByteSize(d.maxEventBytes)],
    ['--max-replay-size <size>', formatByteSize(d.maxReplayBytes)],
  ];

  test('archive: every flag with a default shows it', async () => {
    const text = await help(['archive']);
    for (const [flag, shown] of [
      ...sink,
      ['--settle <duration>', `${formatDuration(d.settleMs)}; ${formatDuration(d.sandboxSettleMs)} with --sandbox`],
      ['--order <order>', d.order],
      ['--shard <i/n>', 'all'],
      ['--recheck <duration>', 'off'],
    ] as [string, string | number][]) {
      expect(text, flag).toMatch(line(flag, shown));
    }
    expect(text).toContain('(default: 256MiB)');
    expect(text).toContain('(default: 24h; 0 with --sandbox)');
    expect(text).toMatch(
      /--s3-region <region> S3 region \(default: with --s3-endpoint AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1/,
    );
    expect(text).toMatch(
      /--s3-checksums <mode> .*\(default: when-supported on AWS, when-required with --s3-endpoint\)/,
    );
  });

  test('export, list, decode and the global options', async () => {
    const exportText = await help(['export']);
    for (const [flag, shown] of sink) expect(exportText, flag).toMatch(line(flag, shown));
    const list = await help(['list']);
    expect(list).toMatch(line('--request-deadline <duration>', formatDuration(d.requestDeadlineMs)));
    expect(list).toContain('(default: 5m)');
    // No local page-size cap exists (the spec states no maximum), so no help claims one.
    expect(list).toMatch(/--page-size <n> .*no maximum/);
    expect(await help(['archive'])).toMatch(/--page-size <n> .*no maximum/);
    const api = await help(['api']);
    expect(api).toMatch(line('--request-deadline <duration>', formatDuration(d.requestDeadlineMs)));
    expect(api).toMatch(/--max-wait <duration>/);
    const decode = await help(['decode']);
    expect(decode).toMatch(line('--max-event-size <size>', formatByteSize(d.maxEventBytes)));
    expect(decode).toMatch(line('--max-replay-size <size>', formatByteSize(d.maxReplayBytes)));
    const top = await help([]);
    expect(top).toMatch(/--region <region> data-residency region: us or eu \(default: "us", env: PLATFORM_REGION\)/);
    expect(top).toMatch(/--log-format <format> .*\(default: "text"\)/);
    expect(top).toContain('REPLAY_EXPORT_WASM=0');
    expect(top).toContain('REPLAY_EXPORT_HASH_WORKER=0');
  });
});

describe('formatByteSize and formatDuration write what the parsers read back', () => {
  test.each([
    [256 * 1024 ** 2, '256MiB'],
    [8 * 1024 ** 3, '8GiB'],
    [1536 * 1024, '1536KiB'],
    [1000, '1000'],
  ])('%d bytes: %s', (bytes, text) => expect(formatByteSize(bytes)).toBe(text));
  test.each([
    [24 * 3_600_000, '24h'],
    [5 * 60_000, '5m'],
    [90_000, '90s'],
    [250, '250ms'],
    [0, '0'],
  ])('%d ms: %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
