/**
 * Adaptive concurrency against the sandbox's API limit over real HTTP (issue #18): the replay family's window finds
 * the limit the sandbox enforces (few 429s after the start), grows when the limit is lifted, is cut on 429 and on
 * rising latency, and two transports sharing one sandbox (two shards) end up with about equal shares.
 * Counted: 429s and the concurrency the sandbox saw (its arrival log), and the transports' windows. The sandbox and
 * the transports share one virtual clock (test/helpers/virtual-time.ts): a round trip takes exactly the sandbox's
 * latency, a Retry-After exactly its second, whatever the machine's load.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Transport, type TransportOptions } from '../../src/http/index.js';
import { SessionReplayClient } from '../../src/replay/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import type { ApiArrival } from '../../src/sandbox/api-limits.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { VirtualTime } from '../helpers/virtual-time.js';

let sandbox: Sandbox | undefined;
let time = new VirtualTime();
const transports: Transport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  await sandbox?.close();
  sandbox = undefined;
  time = new VirtualTime();
});

async function startOnClock(options: SandboxOptions): Promise<Sandbox> {
  sandbox = await startSandbox({ ...options, clock: time.sandbox });
  return sandbox;
}

/** A shard: its own transport, a replay family allowed up to 8 in flight, no host cap of its own. */
function shard(sb: Sandbox, options: TransportOptions = {}): { transport: Transport; client: SessionReplayClient } {
  const transport = new Transport({
    endpoint: sb.url,
    credentials: { ...sb.credentials },
    retry: { retries: 20 },
    hostConcurrency: 100,
    concurrency: { replay: 8 },
    clock: time.client,
    ...options,
  });
  transports.push(transport);
  time.watch(transport);
  return { transport, client: new SessionReplayClient(transport) };
}

/** `count` files requests, `callers` at a time (more than any window), each sent with the shard's user agent. */
async function load(client: SessionReplayClient, sb: Sandbox, count: number, callers = 12): Promise<void> {
  const ids = sb.replays().map((r) => r.replayId);
  let sent = 0;
  await time.drive(
    Promise.all(
      Array.from({ length: callers }, async () => {
        while (sent < count) {
          const i = sent++;
          await client.getFilesPage(ids[i % ids.length]!);
        }
      }),
    ),
  );
}

/** Mean number of answered (non-429) requests in flight at the sandbox between `from` and `to` (its arrival log). */
function meanInFlight(log: readonly ApiArrival[], from: number, to: number): number {
  let busy = 0;
  for (const a of log) {
    if (a.status === 429 || a.answeredAt === 0) continue;
    busy += Math.max(0, Math.min(a.answeredAt, to) - Math.max(a.at, from));
  }
  return busy / Math.max(1, to - from);
}

describe('adaptive concurrency against the sandbox', () => {
  it('finds the limit and stays under it, grows when it is lifted, and is cut when it comes back', async () => {
    sandbox = await startOnClock({ apiConcurrency: 3, faults: { latencyMs: 40 } });
    const { transport, client } = shard(sandbox);
    expect(transport.limit('replay')).toBe(1); // a conservative start

    // Limited to 3: after the start the window stays around the limit (probing past it rarely), 429s are rare.
    await load(client, sandbox, 60);
    const start = sandbox.apiArrivals();
    const t0 = time.client.now();
    await load(client, sandbox, 120);
    const steady = sandbox.apiArrivals().slice(start.length);
    const limited = steady.filter((a) => a.status === 429).length;
    expect(limited / steady.length).toBeLessThanOrEqual(0.05);
    expect(transport.limit('replay')).toBeGreaterThanOrEqual(2);
    expect(transport.limit('replay')).toBeLessThanOrEqual(4);
    // It never starves: each 429 pauses the whole family for the sandbox's Retry-After (1 s, 25 round trips here), so
    // the rare probes past the limit cost much of the time; what is left is used.
    expect(meanInFlight(steady, t0, time.client.now())).toBeGreaterThan(0.5);
    expect(sandbox.apiCounters().peakInFlight).toBe(3);

    // The limit lifted: the window grows to the configured maximum (8) and the sandbox sees more than 3 at once.
    sandbox.setApiConcurrency(0);
    await load(client, sandbox, 160);
    expect(transport.limit('replay')).toBe(8);
    expect(sandbox.apiCounters().peakInFlight).toBeGreaterThan(3);

    // The limit back at 2: 429s cut the window (multiplicatively: at most half of 8 after the first).
    sandbox.setApiConcurrency(2);
    const before = sandbox.apiArrivals().length;
    await load(client, sandbox, 80);
    const after = sandbox.apiArrivals().slice(before);
    expect(after.some((a) => a.status === 429)).toBe(true);
    expect(transport.limit('replay')).toBeLessThanOrEqual(3);
  }, 60_000);

  it('is cut when latency rises, with no 429 at all', async () => {
    sandbox = await startOnClock({ apiConcurrency: 0, faults: { latencyMs: 10 } });
    const { transport, client } = shard(sandbox);
    // Round trips of exactly 10 ms (virtual time): nothing but the window's own growth, to its maximum.
    await load(client, sandbox, 150);
    const before = transport.limit('replay');
    expect(before).toBe(8);
    sandbox.setFaults({ latencyMs: 400 });
    await load(client, sandbox, 24);
    // Without 429s only rising latency cuts: without the latency check the window would stay (or grow).
    expect(transport.limit('replay')).toBeLessThan(before);
    expect(sandbox.apiArrivals().some((a) => a.status === 429)).toBe(false);
  }, 60_000);

  it('two shards sharing one limit converge to about equal shares, without a coordinator', async () => {
    sandbox = await startOnClock({ apiConcurrency: 4, faults: { latencyMs: 30 } });
    const shards = [shard(sandbox), shard(sandbox)];
    const windows: number[][] = [[], []];
    // Sampled every 50 ms of the clock while both run.
    let running = true;
    const sample = (async () => {
      while (running) {
        shards.forEach((s, i) => windows[i]!.push(s.transport.limit('replay')));
        await time.client.sleep(50);
      }
    })();
    await Promise.all(shards.map((s) => load(s.client, sandbox!, 200)));
    running = false;
    await time.drive(sample);
    // Over the time both ran, neither shard starves and neither takes it all, and together they use the limit. Since
    // a concurrency 429 holds the cut shard's growth for its Retry-After (issue 30), the shares are less even than
    // plain AIMD's: the smaller mean window measured 0.44–0.45 of the larger in about half the runs (else above 0.5);
    // one shard starving would give near 0.
    const both = Math.min(windows[0]!.length, windows[1]!.length);
    const mean = (w: number[]): number =>
      w.slice(both / 4, both).reduce((a, b) => a + b, 0) / (both - Math.floor(both / 4));
    const [a, b] = [mean(windows[0]!), mean(windows[1]!)];
    expect(Math.min(a, b) / Math.max(a, b)).toBeGreaterThan(0.4);
    const log = sandbox.apiArrivals();
    const limited = log.filter((x) => x.status === 429).length;
    expect(limited / log.length).toBeLessThanOrEqual(0.1);
  }, 90_000);
});
