import { describe, expect, it } from 'vitest';
import type { EventRun } from '../../decoders/index.js';
import { ReplayChecks } from '../../src/pipeline/checks.js';

/** The checks computed from JSON.parse of every event: the reference ReplayChecks must agree with. */
function reference(texts: readonly string[]) {
  let hasMeta = false;
  let hasFull = false;
  let maxGap = 0;
  let backwards = false;
  let last: number | undefined;
  let firstUrl: string | undefined;
  let consoleErrors = 0;
  for (const t of texts) {
    const v = JSON.parse(t) as Record<string, unknown>;
    const data = v['data'] as { href?: unknown; plugin?: unknown; payload?: { level?: unknown } } | undefined;
    if (v['type'] === 4 && !hasMeta && typeof data?.href === 'string') firstUrl = data.href;
    if (v['type'] === 4) hasMeta = true;
    else if (v['type'] === 2) hasFull = true;
    if (v['type'] === 6 && data?.plugin === 'rrweb/console@1' && data.payload?.level === 'error') consoleErrors++;
    const ts = v['timestamp'];
    if (typeof ts === 'number' && Number.isFinite(ts)) {
      if (last !== undefined) {
        if (ts < last) backwards = true;
        else maxGap = Math.max(maxGap, ts - last);
      }
      last = ts;
    }
  }
  return {
    has_meta: hasMeta,
    has_full_snapshot: hasFull,
    max_gap_ms: maxGap,
    timestamps_backwards: backwards,
    ...(firstUrl !== undefined ? { first_url: firstUrl } : {}),
    ...(consoleErrors > 0 ? { console_errors: consoleErrors } : {}),
  };
}

function observeAll(texts: readonly string[], batch: number) {
  const checks = new ReplayChecks();
  for (let i = 0; i < texts.length; i += batch)
    checks.observe(texts.slice(i, i + batch).map((t) => Buffer.from(t, 'utf8')));
  expect(observeRuns(texts, batch, false)).toEqual({ result: checks.result(), count: checks.count });
  expect(observeRuns(texts, batch, true)).toEqual({ result: checks.result(), count: checks.count });
  return { result: checks.result(), count: checks.count };
}

/** A decoder's timestamp hint: the value of a trailing `"timestamp":<digits>}`, NaN otherwise (and for every third event). */
function hint(text: string, k: number): number {
  const m = /[,{]"timestamp":(0|[1-9]\d{0,14})}$/.exec(text);
  return m === null || k % 3 === 2 ? NaN : Number(m[1]);
}

/**
 * The same through observeBatch, each batch's events held in runs of at most two events; with `stamped`, the runs carry
 * the decoder's timestamp hints.
 */
function observeRuns(texts: readonly string[], batch: number, stamped: boolean) {
  const checks = new ReplayChecks();
  for (let i = 0; i < texts.length; i += batch) {
    const runs: EventRun[] = [];
    const slice = texts.slice(i, i + batch);
    for (let k = 0; k < slice.length; k += 2) {
      const pair = slice.slice(k, k + 2);
      const first = Buffer.byteLength(pair[0]!);
      const ends =
        pair.length === 2 ? Int32Array.of(first, first + 1 + Buffer.byteLength(pair[1]!)) : Int32Array.of(first);
      const bytes = Buffer.from(pair.join(','));
      runs.push(
        stamped ? { bytes, ends, timestamps: Float64Array.from(pair, (t, j) => hint(t, k + j)) } : { bytes, ends },
      );
    }
    checks.observeBatch({ runs });
  }
  return { result: checks.result(), count: checks.count };
}

describe('ReplayChecks', () => {
  it('agrees with JSON.parse, with events of unusual shapes before and after Meta and FullSnapshot are seen', () => {
    const texts = [
      '{"type":3,"data":{"source":2,"type":1},"timestamp":100}',
      '{"timestamp":90,"type":3,"data":{}}',
      '{"type":4,"data":{"href":"x"},"timestamp":110}',
      '{"type":3,"data":{"timestamp":5},"timestamp":130}',
      '{"type":2,"data":{"node":{"type":0}},"timestamp":140}',
      // Meta and FullSnapshot seen: only timestamps matter from here on.
      '{"type":3,"data":{"source":2,"type":1,"timestamp":1},"timestamp":150}',
      '{"timestamp":400,"type":3,"data":{}}',
      '{"type":3,"timestamp":"later"}',
      '{"type":3,"data":{},"timestamp":390}',
      '{"type":3,"timestamp":1,"data":{},"timestamp":1000}',
      '{"type":3,"data":{"timestamp":99999}}',
      '{"type":3, "timestamp" : 1200 }',
      '{"type":3,"data":"\\",\\"timestamp\\":5","timestamp":1250}',
      '{"timestamp":1300}',
      '{"type":3,"timestamp":0}',
      '{"type":3,"data":{},"timestamp":-5}',
      '{"type":3,"data":{},"timestamp":1400.5}',
      '{"type":3,"data":{},"timestamp":1e3}',
      '{"type":3,"data":{},"timestamp":12345678901234567}',
      '{"type":3,"data":{"timestamp":1}}',
      '{"type":3,"data":"x\\"timestamp\\":9","timestamp":2000}',
      // Console plugin events, in rrweb's key order and not; a warning and a log that mentions an error are no errors.
      '{"type":6,"data":{"plugin":"rrweb/console@1","payload":{"level":"error","payload":["\\"boom\\""],"trace":[]}},"timestamp":2100}',
      '{"timestamp":2200,"data":{"plugin":"rrweb/console@1","payload":{"level":"error","payload":[],"trace":[]}},"type":6}',
      '{"type":6,"data":{"plugin":"rrweb/console@1","payload":{"level":"warn","payload":["\\"level\\":\\"error\\""],"trace":[]}},"timestamp":2300}',
      '{"type":4,"data":{"href":"y"},"timestamp":2400}',
    ];
    for (const batch of [1, 3, texts.length]) {
      const { result, count } = observeAll(texts, batch);
      expect(result).toEqual(reference(texts));
      expect(count).toBe(texts.length);
    }
    expect(reference(texts)).toEqual({
      has_meta: true,
      has_full_snapshot: true,
      max_gap_ms: 12345678901233568,
      timestamps_backwards: true,
      first_url: 'x',
      console_errors: 2,
    });
  });

  it('finds Meta and FullSnapshot however late they come', () => {
    const texts = [
      '{"type":3,"data":{},"timestamp":1}',
      '{"type":3,"data":{},"timestamp":2}',
      '{"data":{},"type":2,"timestamp":3}',
      '{"type":3,"data":{},"timestamp":4}',
      '{"type":3,"type":4,"timestamp":5}',
    ];
    expect(observeAll(texts, 2).result).toEqual({
      has_meta: true,
      has_full_snapshot: true,
      max_gap_ms: 1,
      timestamps_backwards: false,
    });
  });

  it('reports nothing found for no events', () => {
    expect(observeAll([], 1).result).toEqual({
      has_meta: false,
      has_full_snapshot: false,
      max_gap_ms: 0,
      timestamps_backwards: false,
    });
  });
});
