/**
 * The API's limits against the sandbox over real HTTP (issue #17): the sandbox enforces "5 concurrent requests across
 * all REST endpoints" with 429 + Retry-After, the client's limit layer keeps under it, and a 429 with Retry-After
 * holds back the whole family — not the others — for the time it names.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FeedbackClient } from '../../src/clients/index.js';
import { Transport, type TransportOptions } from '../../src/http/index.js';
import { SessionReplayClient } from '../../src/replay/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';

let sandbox: Sandbox | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  await transport?.close();
  await sandbox?.close();
  sandbox = transport = undefined;
});

function clients(sb: Sandbox, options: TransportOptions = {}): { replay: SessionReplayClient; feedback: FeedbackClient } {
  transport = new Transport({ endpoint: sb.url, credentials: { ...sb.credentials }, retry: { baseDelayMs: 5, maxDelayMs: 50, retries: 8 }, ...options });
  return { replay: new SessionReplayClient(transport), feedback: new FeedbackClient(transport) };
}

/** Replay listings and file listings, and feedback ingestions, all started at once. */
async function burst(c: ReturnType<typeof clients>, sb: Sandbox): Promise<void> {
  const ids = sb.replays().map((r) => r.replayId);
  await Promise.all([
    ...ids.map((id) => c.replay.getFilesPage(id)),
    ...ids.map(() => c.replay.getReplaysPage({ pageSize: 2 })),
    ...ids.map((_, i) => c.feedback.ingest(`source-${i}`, [{ unique_id: `item-${i}`, body: 'hello' }])),
  ]);
}

describe('the API host concurrency limit', () => {
  it('replay and feedback requests in flight together never exceed 5 at the sandbox: the client waits, no 429', async () => {
    sandbox = await startSandbox({ faults: { latencyMs: 150 } });
    // Fixed caps (adaptive windows off): the host cap alone keeps the client under the limit, from the first request.
    await burst(clients(sandbox, { adaptive: false }), sandbox);
    const counters = sandbox.apiCounters();
    expect(counters.concurrencyLimited).toBe(0);
    expect(counters.peakInFlight).toBeLessThanOrEqual(5);
    // replay (3) + feedback (2) reach the host's 5 together.
    expect(counters.peakInFlight).toBe(5);
    expect(sandbox.apiArrivals().every((a) => a.status === 200)).toBe(true);
  });

  it('a client that does not keep it gets 429s from the sandbox (the limit is enforced)', async () => {
    sandbox = await startSandbox({ faults: { latencyMs: 150 } });
    // Fixed caps above the limit (adaptive windows off: they would find the limit and stay under it).
    await burst(clients(sandbox, { hostConcurrency: 20, concurrency: { replay: 10, feedback: 10 }, adaptive: false }), sandbox);
    expect(sandbox.apiCounters().concurrencyLimited).toBeGreaterThan(0);
    expect(sandbox.apiCounters().peakInFlight).toBe(5);
    const limited = sandbox.apiArrivals().filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
  });
});

describe('a 429 with Retry-After', () => {
  it('holds back every request of its family for the time named; other families go on', async () => {
    sandbox = await startSandbox({ faults: { latencyMs: 20, rateLimitEvery: 4, retryAfterSeconds: 2 } });
    const c = clients(sandbox);
    const sb = sandbox;
    const ids = sb.replays().map((r) => r.replayId);
    let stop = false;
    const feedback = (async () => {
      for (let i = 0; !stop; i++) {
        await c.feedback.ingest('steady', [{ unique_id: `steady-${i}`, body: 'tick' }]);
        await new Promise((res) => setTimeout(res, 100));
      }
    })();
    await Promise.all([...ids, ...ids].map((id) => c.replay.getFilesPage(id)));
    stop = true;
    await feedback;
    const log = sb.apiArrivals();
    const first429 = log.find((a) => a.family === 'replay' && a.status === 429)!;
    expect(first429).toBeDefined();
    const pausedFrom = first429.answeredAt;
    // Requests already on their way when the 429 was answered may still land (a few ms); none is sent after it
    // until the 2 s are over.
    const replayAfter = log.filter((a) => a.family === 'replay' && a.at > pausedFrom + 30).map((a) => a.at - pausedFrom);
    expect(replayAfter.length).toBeGreaterThan(0);
    expect(Math.min(...replayAfter)).toBeGreaterThanOrEqual(1950);
    const feedbackDuring = log.filter((a) => a.family === 'feedback' && a.at > pausedFrom && a.at < pausedFrom + 1900);
    expect(feedbackDuring.length).toBeGreaterThan(2);
  });
});
