import { deflateSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DecodeError, decodeEventBytes, ReplayBudget, type DecodeOptions } from '../../decoders/index.js';
import { ConfigError } from '../../src/errors.js';
import { bombEventBytes, v2BombFile } from './bombs.js';
import { chunked, gz, makeEvents, pack, v3Text } from './fixtures.js';

const MiB = 1 << 20;

interface Outcome {
  events: string[];
  error?: { code: string; message: string; file?: string; index?: number; offset?: number };
}

/** Decodes `source` to the end; the events (as text) and the DecodeError, in comparable form. */
async function outcome(source: AsyncIterable<Uint8Array>, opts: DecodeOptions): Promise<Outcome> {
  const events: string[] = [];
  try {
    for await (const batch of decodeEventBytes(source, { file: 'f.json.gz', ...opts })) {
      for (const e of batch) events.push(e.toString('utf8'));
    }
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    const { code, message, file, index, offset } = err;
    return {
      events,
      error: {
        code,
        message,
        ...(file !== undefined ? { file } : {}),
        ...(index !== undefined ? { index } : {}),
        ...(offset !== undefined ? { offset } : {}),
      },
    };
  }
  return { events };
}

/** The same decode on the TypeScript path and on the fast paths: equal outcomes, returned. */
async function bothPaths(file: Buffer, opts: DecodeOptions, chunk = 1 << 16): Promise<Outcome> {
  const slow = await outcome(chunked(file, chunk), { ...opts, fastPath: false });
  const fast = await outcome(chunked(file, chunk), { ...opts, fastPath: true });
  expect(fast).toEqual(slow);
  return slow;
}

const small = makeEvents(6, 3);
const smallText = small.map((e) => JSON.stringify(e));
/** Short ASCII events (byte offsets are string offsets). */
const tiny = [0, 1, 2].map((i) => JSON.stringify({ type: 3, timestamp: 1763629200000 + i, data: { source: 1, i } }));
/** An event of `letters` letters (compact JSON, as decoded). */
const bigEvent = (letters: number, i = 0): string =>
  JSON.stringify({ type: 3, timestamp: 1763629200000 + i, data: { source: 5, text: 'b'.repeat(letters) } });

describe('version 3: the event size limit', () => {
  it('an event larger than the limit, carried across chunks, is EVENT_TOO_LARGE naming the file, element and limit', async () => {
    const big = bigEvent(3 * MiB);
    const file = gz(`[${tiny[0]},${tiny[1]},${big},${tiny[2]}]`);
    for (const chunk of [file.length, 4096]) {
      const got = await bothPaths(file, { maxEventBytes: MiB }, chunk);
      expect(got.events).toEqual(tiny.slice(0, 2));
      expect(got.error).toMatchObject({
        code: 'EVENT_TOO_LARGE',
        file: 'f.json.gz',
        index: 2,
        offset: tiny[0]!.length + tiny[1]!.length + 3,
      });
      expect(got.error!.message).toContain('1048576 bytes (1 MiB)');
      expect(got.error!.message).toContain('element 2');
    }
  });

  it('stops reading an element as soon as its bytes pass the limit, however long it goes on', async () => {
    // `[{"a":"` and then letters: 64 MiB of them, handed over 64 KiB at a time, before the element would end.
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      const piece = Buffer.alloc(64 << 10, 0x61);
      yield Buffer.from('[{"a":"');
      for (let i = 0; i < 1024; i++) {
        pulled += piece.length;
        yield piece;
      }
      yield Buffer.from('"}]');
    }
    for (const fastPath of [true, false]) {
      pulled = 0;
      const got = await outcome(endless(), { maxEventBytes: 2 * MiB, fastPath, version: 3 });
      expect(got.error).toMatchObject({ code: 'EVENT_TOO_LARGE', index: 0, offset: 1 });
      expect(pulled).toBeLessThanOrEqual(2 * MiB + (64 << 10));
    }
  });

  it('an event of exactly the limit decodes; one byte more is refused, within one chunk too', async () => {
    const big = bigEvent(5000);
    const file = Buffer.from(`[${tiny[0]},${big},${tiny[1]}]`);
    for (const chunk of [file.length, 1000, 300]) {
      const at = await bothPaths(file, { maxEventBytes: big.length }, chunk);
      expect(at).toEqual({ events: [tiny[0], big, tiny[1]] });
      const over = await bothPaths(file, { maxEventBytes: big.length - 1 }, chunk);
      expect(over.events).toEqual([tiny[0]]);
      expect(over.error).toMatchObject({ code: 'EVENT_TOO_LARGE', index: 1, offset: tiny[0]!.length + 2 });
    }
  });

  it('the element over the limit is reported before a syntax error after it in the same chunk', async () => {
    const big = bigEvent(5000);
    const file = Buffer.from(`[${tiny[0]},${big},{"a":1}}]`);
    const got = await bothPaths(file, { maxEventBytes: 1000 }, file.length);
    expect(got.events).toEqual([tiny[0]]);
    expect(got.error).toMatchObject({ code: 'EVENT_TOO_LARGE', index: 1 });
  });
});

describe('version 2: the event size limit', () => {
  const before = smallText.slice(0, 2).map((t) => JSON.stringify(pack(JSON.parse(t), 'rrweb')));
  const after = [JSON.stringify(pack(small[2], 'amplitude'))];

  it('a packed event inflating past the limit is EVENT_TOO_LARGE on both paths, naming the file, element and limit', async () => {
    const file = v2BombFile(3 * MiB, before, after);
    for (const chunk of [file.length, 700]) {
      const got = await bothPaths(file, { maxEventBytes: MiB }, chunk);
      expect(got.events).toEqual(smallText.slice(0, 2));
      expect(got.error).toMatchObject({ code: 'EVENT_TOO_LARGE', file: 'f.json.gz', index: 2 });
      expect(got.error!.message).toContain('1048576 bytes (1 MiB)');
    }
  });

  it('a payload that inflates to 300 MB is stopped at the limit (inflating is bounded, on both paths)', async () => {
    const file = v2BombFile(300_000_000, before);
    expect(file.length).toBeLessThan(8192);
    const got = await bothPaths(file, { maxEventBytes: 4 * MiB });
    expect(got.events).toEqual(smallText.slice(0, 2));
    expect(got.error).toMatchObject({ code: 'EVENT_TOO_LARGE', index: 2 });
  });

  it('an event of exactly the limit decodes; one byte more is refused', async () => {
    const letters = 200_000;
    const size = bombEventBytes(letters);
    const file = v2BombFile(letters, before, after);
    const at = await bothPaths(file, { maxEventBytes: size });
    expect(at.error).toBeUndefined();
    expect(at.events.map((e) => e.length)).toEqual([
      smallText[0]!.length,
      smallText[1]!.length,
      size,
      smallText[2]!.length,
    ]);
    const over = await bothPaths(file, { maxEventBytes: size - 1 });
    expect(over.events).toEqual(smallText.slice(0, 2));
    expect(over.error).toMatchObject({ code: 'EVENT_TOO_LARGE', index: 2 });
  });

  it('an event written again by the TypeScript path (marker not last) is checked once written', async () => {
    // No packer marker at the end: the payload is parsed, the marker removed and the event serialised again.
    const text = `{"type":3,"data":{"n":1e21,"s":"${'c'.repeat(2000)}"},"v":"v1","timestamp":5}`;
    const file = Buffer.from(`[${JSON.stringify(deflateSync(Buffer.from(text)).toString('latin1'))}]`);
    const event = `{"type":3,"data":{"n":1e+21,"s":"${'c'.repeat(2000)}"},"timestamp":5}`;
    expect(await bothPaths(file, { maxEventBytes: event.length })).toEqual({ events: [event] });
    expect((await bothPaths(file, { maxEventBytes: event.length - 1 })).error).toMatchObject({
      code: 'EVENT_TOO_LARGE',
      index: 0,
    });
  });
});

describe('the replay size limit', () => {
  const files3 = [0, 1, 2].map((f) => gz(v3Text(makeEvents(30, 10 + f))));
  const files2 = [0, 1, 2].map((f) =>
    gz(
      `[${makeEvents(30, 20 + f)
        .map((e, i) => JSON.stringify(pack(e, i % 2 === 0 ? 'rrweb' : 'amplitude')))
        .join(',')}]`,
    ),
  );

  /** Decodes the files in order with one budget; the outcome of each file, until the first error. */
  async function replay(files: Buffer[], limit: number, fastPath: boolean): Promise<Outcome[]> {
    const budget = new ReplayBudget(limit);
    const out: Outcome[] = [];
    for (const [k, file] of files.entries()) {
      const got = await outcome(chunked(file, 4096), { replayBudget: budget, fastPath, file: `file-${k}` });
      out.push(got);
      if (got.error !== undefined) break;
    }
    return out;
  }

  it('counts the inflated bytes of every file of the replay (version 3): the file that goes over fails', async () => {
    const sizes = files3.map((f) => gunzipSync(f).length);
    const need = sizes[0]! + sizes[1]! + sizes[2]!;
    const ok = await replay(files3, need, true);
    expect(ok.map((o) => o.error)).toEqual([undefined, undefined, undefined]);
    const limit = need - 100;
    for (const fastPath of [true, false]) {
      const got = await replay(files3, limit, fastPath);
      expect(got.length).toBe(3);
      expect(got[2]!.error).toMatchObject({
        code: 'REPLAY_TOO_LARGE',
        file: 'file-2',
        offset: limit - sizes[0]! - sizes[1]!,
      });
      expect(got[2]!.error!.message).toContain(`${limit} bytes`);
      // Every event before the one the error names was handed out.
      expect(got[2]!.events.length).toBe(got[2]!.error!.index);
    }
  });

  it('counts version 2 payloads as they inflate, the same on both paths at every limit around the need', async () => {
    const budget = new ReplayBudget(1 << 30);
    for (const file of files2) await outcome(chunked(file, 4096), { replayBudget: budget });
    const need = budget.used;
    expect(need).toBeGreaterThan(files2.reduce((n, f) => n + gunzipSync(f).length, 0));
    expect(await replay(files2, need, true)).toEqual(await replay(files2, need, false));
    for (let limit = need - 2500; limit < need; limit += 7) {
      const fast = await replay(files2, limit, true);
      expect(fast).toEqual(await replay(files2, limit, false));
      const last = fast[fast.length - 1]!;
      expect(last.error).toMatchObject({ code: 'REPLAY_TOO_LARGE' });
      expect(last.events.length).toBe(last.error!.index);
    }
  });

  it('is shared by the files, and a rewind lets a file decoded again count once', async () => {
    const budget = new ReplayBudget(gunzipSync(files3[0]!).length);
    const mark = budget.used;
    expect((await outcome(chunked(files3[0]!, 4096), { replayBudget: budget })).error).toBeUndefined();
    expect((await outcome(chunked(files3[0]!, 4096), { replayBudget: budget })).error).toMatchObject({
      code: 'REPLAY_TOO_LARGE',
      index: 0,
      offset: 0,
    });
    budget.rewind(mark);
    expect((await outcome(chunked(files3[0]!, 4096), { replayBudget: budget })).error).toBeUndefined();
    expect(budget.left).toBe(0);
  });
});

describe('limits given out of range', () => {
  it.each([0, -1, 1.5, 2 ** 30 + 1, Number.NaN])(
    'maxEventBytes %s is a ConfigError naming it (usage)',
    async (maxEventBytes) => {
      const err: unknown = await outcome(chunked(gz('[]'), 10), { maxEventBytes }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect(err).toMatchObject({ category: 'usage', message: expect.stringMatching(/^maxEventBytes must be/) });
    },
  );

  it.each([0, -5, 0.5, Infinity])('a replay budget of %s is a ConfigError naming maxReplayBytes', (limit) => {
    expect(() => new ReplayBudget(limit)).toThrow(
      expect.objectContaining({
        name: 'ConfigError',
        category: 'usage',
        message: expect.stringContaining('maxReplayBytes'),
      }),
    );
  });
});
