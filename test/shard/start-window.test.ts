/**
 * A run's replay window starts at its fair share of the project's limit (issue #30): the limit (5) when alone, 5 / n
 * rounded down (at least 1) for one of n shards; a window the caller gives, or fixed caps, are kept. Against the sandbox's limit of 5: an
 * unsharded archive sends its first files requests 5 at once instead of growing from 1 (counted in the sandbox's
 * arrival log, on a virtual clock shared with the sandbox: no timing).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { archiveReplays, openRun } from '../../src/index.js';
import { fairShareStart } from '../../src/pipeline/shard.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import type { ApiArrival } from '../../src/sandbox/api-limits.js';
import { FAST, tempDir } from '../pipeline/helpers.js';
import { VirtualTime } from '../helpers/virtual-time.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** The most requests of `log` in flight at once (answered ones, each from its arrival to its answer). */
function peakInFlight(log: readonly ApiArrival[]): number {
  const edges = log.flatMap((a) => [
    { at: a.at, d: 1 },
    { at: a.answeredAt, d: -1 },
  ]);
  edges.sort((x, y) => x.at - y.at || x.d - y.d);
  let now = 0;
  let peak = 0;
  for (const e of edges) peak = Math.max(peak, (now += e.d));
  return peak;
}

describe('the replay window starts at the fair share of the limit', () => {
  it('is the limit divided by the shard count, rounded down, at least 1: the shards together never start above it', () => {
    expect(fairShareStart(5, undefined)).toBe(5);
    expect(fairShareStart(5, { index: 0, count: 1 })).toBe(5);
    expect(fairShareStart(5, { index: 1, count: 2 })).toBe(2);
    expect(fairShareStart(10, { index: 2, count: 3 })).toBe(3);
    expect(fairShareStart(5, { index: 2, count: 3 })).toBe(1);
    expect(fairShareStart(5, { index: 0, count: 5 })).toBe(1);
    expect(fairShareStart(5, { index: 7, count: 40 })).toBe(1);
  });

  it("a run's transport starts there, unless the caller set the start or turned the windows off", async () => {
    const alone = await openRun({ endpoint: 'http://127.0.0.1:9', apiKey: 'k', secretKey: 's' });
    const half = await openRun({
      endpoint: 'http://127.0.0.1:9',
      apiKey: 'k',
      secretKey: 's',
      shard: { index: 1, count: 2 },
    });
    const given = await openRun({
      endpoint: 'http://127.0.0.1:9',
      apiKey: 'k',
      secretKey: 's',
      transportOptions: { adaptive: { initial: { replay: 1 } } },
    });
    const fixed = await openRun({
      endpoint: 'http://127.0.0.1:9',
      apiKey: 'k',
      secretKey: 's',
      transportOptions: { adaptive: false },
    });
    try {
      expect(alone.transport().limit('replay')).toBe(5);
      expect(half.transport().limit('replay')).toBe(2);
      expect(given.transport().limit('replay')).toBe(1);
      expect(fixed.transport().limit('replay')).toBe(5);
      // Other families keep their own starts.
      expect(alone.transport().limit('dashboard')).toBe(1);
    } finally {
      await Promise.all([alone, half, given, fixed].map((r) => r.close()));
    }
  });

  it('alone against a limit of 5, the first files requests go 5 at once, with no 429', async () => {
    // Every API answer takes 250 ms of the virtual clock: requests sent together overlap whatever the machine's load.
    const time = new VirtualTime();
    sandbox = await startSandbox({ replicas: 11, apiConcurrency: 5, faults: { latencyMs: 250 }, clock: time.sandbox });
    const work = await tempDir('replay-export-start-window-');
    const run = await openRun({
      endpoint: sandbox.url,
      ...sandbox.credentials,
      ...FAST,
      out: work.dir,
      settleMs: 0,
      clock: time.client,
    });
    time.watch(run.transport());
    try {
      let ok = 0;
      await time.drive(
        (async () => {
          for await (const ev of archiveReplays({ run })) if (ev.type === 'result' && ev.outcome === 'ok') ok++;
        })(),
      );
      expect(ok).toBe(sandbox.replays().length);
      const files = sandbox.apiArrivals().filter((a) => a.path.endsWith('/files'));
      // Starting at 1, the window needs 1 + 2 + 3 + 4 answers to reach 5: the first five requests never overlap so.
      expect(peakInFlight(files.slice(0, 5))).toBe(5);
      expect(sandbox.apiCounters().concurrencyLimited).toBe(0);
    } finally {
      await run.close();
      await work.cleanup();
    }
  }, 60_000);
});
