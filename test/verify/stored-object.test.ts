/**
 * Reading a stored object back as `verify` does, on outputs made by the sinks' own encoder: every format, gzip or
 * not, read in chunks of any size (markers and line ends split across chunks), gives the encoder's byte count, hash
 * and event count and the checks the pipeline computes; a page of several blocks is one replay; malformed framing is
 * an `undecodable` reading with its reason, after the whole object was hashed.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { PAGE_BLOCK_BYTES } from '../../sinks/player-page.js';
import { ReplayEncoder } from '../../sinks/encode.js';
import type { OutputFormat } from '../../sinks/sink.js';
import { ReplayChecks } from '../../src/pipeline/checks.js';
import { readStoredObject, type ReadLimits } from '../../src/verify/stored-object.js';

const LIMITS: ReadLimits = { maxEventBytes: 64 << 20, maxReplayBytes: 1 << 30, fastPath: true };

/** Events of a replay: meta, full snapshot, then `n` incremental events with a `<` and a gap, about `size` bytes each. */
function events(n: number, size: number): Buffer[] {
  const out = [
    Buffer.from('{"type":4,"data":{"href":"https://example.test/<a>","width":800,"height":600},"timestamp":1000}'),
    Buffer.from('{"type":2,"data":{"node":{"type":0,"childNodes":[]}},"timestamp":1001}'),
  ];
  for (let i = 0; i < n; i++) {
    const t = 2000 + i * 10 + (i === 7 ? 5000 : 0) - (i === 9 ? 100 : 0);
    out.push(Buffer.from(`{"type":3,"data":{"source":0,"text":"</script> ${'x'.repeat(size)}"},"timestamp":${t}}`));
  }
  return out;
}

async function encode(
  list: Buffer[],
  format: OutputFormat,
  gzip: boolean,
): Promise<{ bytes: Buffer; sha256: string; eventCount: number }> {
  const parts: Buffer[] = [];
  const encoder = new ReplayEncoder(
    { format, gzip },
    { write: async (chunk) => void parts.push(Buffer.from(chunk)) },
    { replayId: 'dev/1' },
  );
  for (let i = 0; i < list.length; i += 7) await encoder.write(list.slice(i, i + 7));
  const summary = await encoder.finish();
  return { bytes: Buffer.concat(parts), sha256: summary.sha256, eventCount: summary.eventCount };
}

function chunked(bytes: Buffer, size: number): Readable {
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  return Readable.from(pieces);
}

function expectedChecks(list: Buffer[]) {
  const checks = new ReplayChecks();
  checks.observe(list);
  return checks.result();
}

describe('readStoredObject', () => {
  const cases: Array<[OutputFormat, boolean]> = [
    ['json', false],
    ['json', true],
    ['ndjson', false],
    ['ndjson', true],
    ['html', false],
    ['html', true],
  ];
  test.each(cases)(
    '%s (gzip %s): size, hash, count and checks of the encoder, whatever the chunks',
    async (format, gzip) => {
      const list = events(40, 100);
      const stored = await encode(list, format, gzip);
      for (const size of [1, 7, 53, 4096, stored.bytes.length]) {
        const reading = await readStoredObject(chunked(stored.bytes, size), format, 'dev/1.x', LIMITS);
        expect(reading, `chunks of ${size}`).toEqual({
          bytes: stored.bytes.length,
          sha256: stored.sha256,
          decoded: { eventCount: list.length, checks: expectedChecks(list) },
        });
      }
      expect(expectedChecks(list)).toMatchObject({
        has_meta: true,
        has_full_snapshot: true,
        max_gap_ms: 5010,
        timestamps_backwards: true,
      });
    },
  );

  test('a page of several blocks is one replay', async () => {
    const list = events(30, 100_000);
    const stored = await encode(list, 'html', false);
    const blocks = stored.bytes.toString('latin1').split('class="replay-events">').length - 1;
    expect(blocks).toBeGreaterThanOrEqual(Math.floor((30 * 100_000) / PAGE_BLOCK_BYTES));
    const reading = await readStoredObject(chunked(stored.bytes, 65_536), 'html', 'dev/1.html', LIMITS);
    expect(reading.decoded).toEqual({ eventCount: list.length, checks: expectedChecks(list) });
  });

  test('an empty replay in each format', async () => {
    for (const format of ['json', 'ndjson', 'html'] as const) {
      const stored = await encode([], format, false);
      const reading = await readStoredObject(chunked(stored.bytes, 5), format, 'k', LIMITS);
      expect(reading.decoded?.eventCount, format).toBe(0);
    }
  });

  test('malformed objects: the reason, and the hash of every byte', async () => {
    const list = events(5, 10);
    const page = (await encode(list, 'html', false)).bytes.toString('utf8');
    const ndjson = (await encode(list, 'ndjson', false)).bytes.toString('utf8');
    const json = (await encode(list, 'json', false)).bytes.toString('utf8');
    const bad: Array<[OutputFormat, string, RegExp]> = [
      ['html', page.replace('class="replay-events">', 'class="other">'), /the page holds no block of events/],
      [
        'html',
        page.slice(0, page.indexOf('</script><script>replayTakeBlocks')),
        /the page ends inside a block of events/,
      ],
      [
        'html',
        page.replace(']</script><script>replayTakeBlocks', ']x</script><script>replayTakeBlocks'),
        /block 1 of the page is not a JSON array/,
      ],
      ['ndjson', ndjson.replace('\n', '\n\n'), /BAD_JSON/],
      ['ndjson', ndjson.replace('"type":3', '"type":3,,'), /BAD_JSON/],
      ['json', json.slice(0, -1), /TRUNCATED/],
      ['json', json + 'x', /TRAILING_DATA|BAD_JSON/],
      ['json', json.replace('{"type":2', '"packed"'), /VERSION_MISMATCH/],
    ];
    for (const [format, text, reason] of bad) {
      const bytes = Buffer.from(text, 'utf8');
      const reading = await readStoredObject(chunked(bytes, format === 'html' ? 301 : 3), format, 'k', LIMITS);
      expect(reading.decoded, text.slice(-60)).toBeUndefined();
      expect(reading.decodeError?.message).toMatch(reason);
      expect(reading.bytes).toBe(bytes.length);
      expect(reading.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });

  test('an error of the stored object itself is thrown, not a decoding problem', async () => {
    const body = new Readable({ read() {} });
    body.push(Buffer.from('[{"type":4,"timestamp":1}'));
    setImmediate(() => body.destroy(Object.assign(new Error('read failed'), { code: 'EIO' })));
    await expect(readStoredObject(body, 'json', 'k', LIMITS)).rejects.toMatchObject({ code: 'EIO' });
  });
});
