import { describe, expect, it } from 'vitest';
import {
  batchCount,
  batchEvents,
  decodeEventBatches,
  decodeEventBytes,
  dropEvents,
  isWellFormedRun,
  peekEventTimestamp,
  peekEventTimestampIn,
  type EventBatch,
} from '../../decoders/index.js';
import { chunked, gz, makeEvents, roundTrip } from './fixtures.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const events = makeEvents(400, 7);
const compact = Buffer.from(JSON.stringify(events));
/** The same events with whitespace between elements and inside some of them (CR/LF outside strings). */
const spaced = Buffer.from(
  '[\r\n' + events.map((e, i) => JSON.stringify(e, null, i % 3 === 0 ? 1 : undefined)).join(' ,\n') + '\n]',
);

describe('decodeEventBatches', () => {
  it.each([
    ['compact', compact],
    ['whitespace between and inside elements', spaced],
  ])('gives the same events as decodeEventBytes, as well-formed runs (%s)', async (_name, text) => {
    for (const size of [1 << 20, 4096, 777, 33]) {
      const want = (await collect(decodeEventBytes(chunked(gz(text), size)))).flat().map(String);
      const batches = await collect(decodeEventBatches(chunked(gz(text), size)));
      for (const b of batches)
        if (b.runs !== undefined) for (const run of b.runs) expect(isWellFormedRun(run)).toBe(true);
      expect(batches.flatMap((b) => batchEvents(b)).map(String)).toEqual(want);
      expect(batches.reduce((n, b) => n + batchCount(b), 0)).toBe(events.length);
      expect(want.map((t) => JSON.parse(t) as unknown)).toEqual(roundTrip(events));
    }
  });

  it('holds a compact file in few runs (one per chunk, plus elements cut by a chunk boundary)', async () => {
    const batches = await collect(decodeEventBatches(chunked(gz(compact), 1 << 20)));
    const runs = batches.flatMap((b) => b.runs ?? []);
    expect(runs.length).toBeLessThanOrEqual(3);
    expect(
      Buffer.concat(runs.flatMap((r, i) => (i === 0 ? [r.bytes] : [Buffer.from(','), r.bytes]))).equals(
        compact.subarray(1, -1),
      ),
    ).toBe(true);
  });

  it('drops the first events of a batch exactly (inside a run, across runs, all of them)', async () => {
    const batches = await collect(decodeEventBatches(chunked(gz(compact), 4096)));
    const all = batches.flatMap((b) => batchEvents(b)).map(String);
    const merged: EventBatch = { runs: batches.flatMap((b) => b.runs ?? []) };
    for (const skip of [0, 1, 2, 17, all.length - 1, all.length]) {
      const rest = dropEvents(merged, skip);
      if (skip === all.length) expect(rest).toBeUndefined();
      else expect(batchEvents(rest!).map(String)).toEqual(all.slice(skip));
    }
    const plain: EventBatch = { events: all.slice(0, 5).map((t) => Buffer.from(t)) };
    expect(batchEvents(dropEvents(plain, 3)!).map(String)).toEqual(all.slice(3, 5));
    expect(dropEvents(plain, 5)).toBeUndefined();
  });

  it('peeks timestamps in place as peekEventTimestamp does on the event itself', () => {
    const texts = [
      '{"type":3,"timestamp":12}',
      '{"timestamp":7,"type":3}',
      '{"type":3,"data":{"timestamp":1}}',
      '{"a":1,"timestamp":-1.5e3}',
    ];
    const joined = Buffer.from(texts.join(','));
    let from = 0;
    for (const t of texts) {
      expect(peekEventTimestampIn(joined, from, from + t.length)).toBe(peekEventTimestamp(Buffer.from(t)));
      from += t.length + 1;
    }
  });

  it('refuses malformed runs in isWellFormedRun', () => {
    const bytes = Buffer.from('{"a":1},{"b":2}');
    expect(isWellFormedRun({ bytes, ends: Int32Array.of(7, 15) })).toBe(true);
    expect(isWellFormedRun({ bytes, ends: Int32Array.of(6, 15) })).toBe(false);
    expect(isWellFormedRun({ bytes, ends: Int32Array.of(7, 14) })).toBe(false);
    expect(isWellFormedRun({ bytes, ends: new Int32Array(0) })).toBe(false);
  });
});
