/**
 * The API's limits against the sandbox over real HTTP (issue #17): the sandbox enforces "5 concurrent requests across
 * all REST endpoints" with 429 + Retry-After, the client's limit layer keeps under it, and a 429 with Retry-After
 * holds back the whole family — not the others — for the time it names; a burst of dashboard queries over the cost
 * budget waits in the client's limit layer instead of getting 429s. The sandbox and the clients share one virtual
 * clock (test/helpers/virtual-time.ts): latencies, Retry-Afters and windows are exact, whatever the machine's load.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DashboardClient, FeedbackClient, RateLimitError, TaxonomyClient } from '../../src/clients/index.js';
import { Transport, type TransportOptions } from '../../src/http/index.js';
import { SessionReplayClient } from '../../src/replay/index.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { VirtualTime } from '../helpers/virtual-time.js';

let sandbox: Sandbox | undefined;
let transport: Transport | undefined;
let time = new VirtualTime();
afterEach(async () => {
  await transport?.close();
  await sandbox?.close();
  sandbox = transport = undefined;
  time = new VirtualTime();
});

/** A sandbox on the test's virtual clock. */
async function start(options: SandboxOptions = {}): Promise<Sandbox> {
  sandbox = await startSandbox({ ...options, clock: time.sandbox });
  return sandbox;
}

function clients(sb: Sandbox, options: TransportOptions = {}) {
  transport = new Transport({
    endpoint: sb.url,
    credentials: { ...sb.credentials },
    retry: { baseDelayMs: 5, maxDelayMs: 50, retries: 8 },
    clock: time.client,
    ...options,
  });
  time.watch(transport);
  return {
    replay: new SessionReplayClient(transport),
    feedback: new FeedbackClient(transport),
    dashboard: new DashboardClient(transport),
    taxonomy: new TaxonomyClient(transport),
  };
}

/** Replay listings and file listings, feedback ingestions, dashboard queries and taxonomy reads, all started at once. */
async function burst(c: ReturnType<typeof clients>, sb: Sandbox): Promise<void> {
  const ids = sb.replays().map((r) => r.replayId);
  await time.drive(
    Promise.all([
      ...ids.map((id) => c.replay.getFilesPage(id)),
      ...ids.map(() => c.replay.getReplaysPage({ pageSize: 2 })),
      ...ids.map((_, i) => c.feedback.ingest(`source-${i}`, [{ unique_id: `item-${i}`, body: 'hello' }])),
      ...ids.map(() => c.dashboard.eventsList()),
      ...ids.map(() => c.taxonomy.eventTypes.list()),
    ]),
  );
}

/** The most of `cost(path)` the sandbox had in flight at once (from arrival to answer), from its arrival log. */
function peakInFlight(arrivals: ReturnType<Sandbox['apiArrivals']>, cost: (path: string) => number): number {
  const edges = arrivals.flatMap((a) => [
    { t: a.at, d: cost(a.path) },
    { t: a.answeredAt, d: -cost(a.path) },
  ]);
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let held = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (held += e.d));
  return most;
}

describe('the API host concurrency limit', () => {
  it('replay, feedback, dashboard and taxonomy requests in flight together never exceed 5 at the sandbox: the client waits, no 429', async () => {
    sandbox = await start({ faults: { latencyMs: 150 } });
    // Fixed caps (adaptive windows off): the host cap alone keeps the client under the limit, from the first request.
    await burst(clients(sandbox, { adaptive: false }), sandbox);
    const counters = sandbox.apiCounters();
    expect(counters.concurrencyLimited).toBe(0);
    expect(counters.peakInFlight).toBeLessThanOrEqual(5);
    // replay (3) + feedback (2) + dashboard (5) + taxonomy (2) reach the host's 5 together.
    expect(counters.peakInFlight).toBe(5);
    expect(sandbox.apiArrivals().every((a) => a.status === 200)).toBe(true);
    expect(new Set(sandbox.apiArrivals().map((a) => a.family))).toEqual(
      new Set(['replay', 'feedback', 'dashboard', 'taxonomy']),
    );
  });

  it('a client that does not keep it gets 429s from the sandbox (the limit is enforced)', async () => {
    sandbox = await start({ faults: { latencyMs: 150 } });
    // Fixed caps above the limit (adaptive windows off: they would find the limit and stay under it).
    await burst(
      clients(sandbox, {
        hostConcurrency: 20,
        concurrency: { replay: 10, feedback: 10, dashboard: 10 },
        adaptive: false,
      }),
      sandbox,
    );
    expect(sandbox.apiCounters().concurrencyLimited).toBeGreaterThan(0);
    expect(sandbox.apiCounters().peakInFlight).toBe(5);
    const limited = sandbox.apiArrivals().filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
  });
});

describe('a 429 with Retry-After', () => {
  it('holds back every request of its family for the time named; other families go on', async () => {
    sandbox = await start({ faults: { latencyMs: 20, rateLimitEvery: 4, retryAfterSeconds: 2 } });
    const c = clients(sandbox);
    const sb = sandbox;
    const ids = sb.replays().map((r) => r.replayId);
    let stop = false;
    const feedback = (async () => {
      for (let i = 0; !stop; i++) {
        await c.feedback.ingest('steady', [{ unique_id: `steady-${i}`, body: 'tick' }]);
        await time.client.sleep(100);
      }
    })();
    await time.drive(Promise.all([...ids, ...ids].map((id) => c.replay.getFilesPage(id))));
    stop = true;
    await time.drive(feedback);
    const log = sb.apiArrivals();
    const first429 = log.find((a) => a.family === 'replay' && a.status === 429)!;
    expect(first429).toBeDefined();
    const pausedFrom = first429.answeredAt;
    // Requests already on their way when the 429 was answered may still land (a few ms); none is sent after it
    // until the 2 s are over.
    const replayAfter = log
      .filter((a) => a.family === 'replay' && a.at > pausedFrom + 30)
      .map((a) => a.at - pausedFrom);
    expect(replayAfter.length).toBeGreaterThan(0);
    expect(Math.min(...replayAfter)).toBeGreaterThanOrEqual(1950);
    const feedbackDuring = log.filter((a) => a.family === 'feedback' && a.at > pausedFrom && a.at < pausedFrom + 1900);
    expect(feedbackDuring.length).toBeGreaterThan(2);
  });
});

describe('a concurrency 429 and a rate 429 ask for different things', () => {
  it('a concurrency 429 cuts the window: the refused request waits its Retry-After, the family goes on', async () => {
    // 200 replays (one files request each, so a path arrives twice only when its request was refused), a limit of 2
    // in flight, a window that starts at 6: the first burst meets the limit.
    sandbox = await start({ replicas: 199, apiConcurrency: 2, faults: { latencyMs: 20 } });
    const retries: Record<string, unknown>[] = [];
    const c = clients(sandbox, {
      adaptive: { initial: { replay: 6 } },
      concurrency: { replay: 8 },
      hostConcurrency: 100,
      logger: (e) => void retries.push(e),
    });
    const ids = sandbox.replays().map((r) => r.replayId);
    let next = 0;
    await time.drive(
      Promise.all(
        Array.from({ length: 12 }, async () => {
          while (next < ids.length) await c.replay.getFilesPage(ids[next++]!);
        }),
      ),
    );
    const log = sandbox.apiArrivals();
    const first429 = log.find((a) => a.status === 429)!;
    expect(first429).toBeDefined();
    expect(sandbox.limitRefusals()).toEqual({}); // no rate limit refused anything: these 429s are the concurrency limit's
    const refusedAt = first429.answeredAt;
    // The family was not paused: its other requests went on arriving (and were answered) within the Retry-After (1 s).
    const during = log.filter((a) => a.status === 200 && a.at > refusedAt + 30 && a.at < refusedAt + 1000);
    expect(during.length).toBeGreaterThan(2);
    // Each refused request waited its Retry-After (the sandbox's 1 s), named as a concurrency 429 of its limit.
    const waits = retries.filter((e) => e.msg === 'retrying request');
    expect(waits.length).toBe(log.filter((a) => a.status === 429).length);
    for (const w of waits) {
      expect(w).toMatchObject({
        status: 429,
        delayMs: 1000,
        limitKind: 'concurrency',
        limit: 'concurrent requests across all REST endpoints',
      });
      expect(w.what).toMatch(
        /^429 replay concurrency limit \(concurrent requests across all REST endpoints\), waiting 1 s, attempt \d\/9$/,
      );
    }
    // The window was cut to the limit's neighbourhood (from 6), and every replay's files were listed.
    expect(transport!.limit('replay')).toBeLessThanOrEqual(3);
    expect(log.filter((a) => a.status === 200)).toHaveLength(ids.length);
  });

  it('a rate 429 pauses the family: no request of it arrives within the Retry-After', async () => {
    // The sandbox's rateLimitEvery switch names a rate limit ("request rate"); the client reads its kind from the body.
    sandbox = await start({
      replicas: 39,
      apiConcurrency: 0,
      faults: { latencyMs: 20, rateLimitEvery: 10, retryAfterSeconds: 2 },
    });
    const c = clients(sandbox, { adaptive: { initial: { replay: 4 } }, hostConcurrency: 100 });
    const ids = sandbox.replays().map((r) => r.replayId);
    const errors: unknown[] = [];
    await time.drive(Promise.all(ids.map((id) => c.replay.getFilesPage(id).catch((e: unknown) => errors.push(e)))));
    expect(errors).toEqual([]);
    const log = sandbox.apiArrivals();
    const limited = log.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const l of limited) {
      // Requests already on their way when the 429 was answered may still land (a little later on a busy machine);
      // none is sent after it until the two seconds are over.
      const within = log.filter((a) => a.at > l.answeredAt + 200 && a.at < l.answeredAt + 1990);
      expect(within).toEqual([]);
    }
  });
});

describe('the dashboard concurrent cost (1,000 held by the queries in flight)', () => {
  // Retention over 30 days costs 30 days × 1 condition × 8 = 240; seven of them 1,680: four fit in flight at once.
  const month = (i: number) => ({
    start: '20261101',
    end: '20261130',
    startingEvent: { event_type: `start ${i}` },
    returningEvent: { event_type: 'Sign Up' },
  });
  const BURST = 7;

  it('a burst costing 1,680 gets no 429: the client holds at most 1,000 in flight and waits for answers', async () => {
    sandbox = await start({ faults: { latencyMs: 200 } });
    const { dashboard } = clients(sandbox, { retry: { retries: 0 } });
    const results = await time.drive(
      Promise.all(Array.from({ length: BURST }, (_, i) => dashboard.retention(month(i)))),
    );
    expect(results).toHaveLength(BURST);
    expect(sandbox.limitRefusals()).toEqual({});
    const arrivals = sandbox.apiArrivals().filter((a) => a.family === 'dashboard');
    expect(arrivals.map((a) => a.status)).toEqual(Array(BURST).fill(200));
    expect(peakInFlight(arrivals, () => 240)).toBeLessThanOrEqual(960);
    // Not a window: the fifth query went as soon as one of the first four was answered (a few round trips of 200 ms of
    // the virtual clock, as the adaptive window grows), not five minutes later.
    const first = arrivals[0]!.at;
    expect(arrivals.at(-1)!.at - first).toBeLessThan(60_000);
  });

  it('the same burst without the client budget gets 429s naming the limit (the sandbox enforces it)', async () => {
    sandbox = await start({ faults: { latencyMs: 200 } });
    const { dashboard } = clients(sandbox, {
      retry: { retries: 0 },
      budgets: { dashboard: [] },
      concurrency: { dashboard: 10 },
      hostConcurrency: 10,
      adaptive: false,
    });
    sandbox.setApiConcurrency(0);
    const settled = await time.drive(
      Promise.allSettled(Array.from({ length: BURST }, (_, i) => dashboard.retention(month(i)))),
    );
    const refused = settled
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason as unknown);
    // Four fit in flight (960); the other three arrive while they are answered.
    expect(refused).toHaveLength(3);
    for (const e of refused) {
      expect(e).toBeInstanceOf(RateLimitError);
      expect(e).toMatchObject({
        status: 429,
        limit: expect.stringContaining(
          'dashboard concurrent cost limit exceeded: 1000 in flight (this query costs 240',
        ),
      });
    }
    expect(sandbox.limitRefusals()).toEqual({ 'dashboard concurrent cost': 3 });
  });
});

describe('the taxonomy concurrent cost (4: GET 1, writes 2)', () => {
  it('the client holds it: four reads in flight at once, never more than 4 of cost, no 429', async () => {
    sandbox = await start({ apiConcurrency: 0, faults: { latencyMs: 200 } });
    const { taxonomy } = clients(sandbox, { adaptive: false });
    await time.drive(
      Promise.all([
        ...Array.from({ length: 8 }, () => taxonomy.eventTypes.list()),
        ...Array.from({ length: 4 }, (_, i) => taxonomy.categories.create(`held-${i}`)),
      ]),
    );
    expect(sandbox.limitRefusals()).toEqual({});
    const arrivals = sandbox.apiArrivals().filter((a) => a.family === 'taxonomy');
    expect(arrivals.every((a) => a.status === 200)).toBe(true);
    const isRead = (path: string) => path.endsWith('/event');
    // Reads (GET /event) cost 1, writes (POST /category) 2.
    expect(peakInFlight(arrivals, (p) => (isRead(p) ? 1 : 0))).toBe(4);
    expect(peakInFlight(arrivals, (p) => (isRead(p) ? 1 : 2))).toBeLessThanOrEqual(4);
  });
});

describe('a cost over a whole limit', () => {
  it('a dashboard query costing more than 1,000 is a 429 naming the limit, without Retry-After (none can help)', async () => {
    sandbox = await start();
    const auth = `Basic ${Buffer.from(`${sandbox.credentials.apiKey}:${sandbox.credentials.secretKey}`).toString('base64')}`;
    const q = new URLSearchParams({
      se: JSON.stringify({ event_type: 'a' }),
      re: JSON.stringify({ event_type: 'b' }),
      start: '20260101',
      end: '20260720',
    });
    // 201 days × 1 condition × 8 (retention) = 1,608.
    const res = await fetch(`${sandbox.url}/api/2/retention?${q}`, { headers: { authorization: auth } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await res.json()).toEqual({
      error: {
        code: 'rate_limited',
        message: expect.stringContaining(
          'dashboard concurrent cost limit exceeded: this query costs 1608, more than the whole limit of 1000 in flight',
        ),
        limit: 'dashboard concurrent cost',
      },
    });
  });

  it('the client refuses such a query before sending it, and announces no wait first', async () => {
    sandbox = await startSandbox();
    const events: Record<string, unknown>[] = [];
    transport = new Transport({
      endpoint: sandbox.url,
      credentials: { ...sandbox.credentials },
      logger: (e) => void events.push(e),
    });
    const dashboard = new DashboardClient(transport);
    const err = await dashboard
      .retention({
        start: '20260101',
        end: '20260720',
        startingEvent: { event_type: 'a' },
        returningEvent: { event_type: 'b' },
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'COST_EXCEEDS_BUDGET', cost: 1608, limitName: 'dashboard concurrent cost' });
    expect(events.filter((e) => e.level === 'warn')).toEqual([]);
    expect(sandbox.apiArrivals()).toEqual([]);
  });
});

describe('the mapping limit (1500 mappings, not batches, per 30 s)', () => {
  const batch = (n: number, from = 0) =>
    JSON.stringify(Array.from({ length: n }, (_, i) => ({ user_id: `u${from + i}`, global_user_id: 'g' })));
  const post = (mapping: string) =>
    fetch(`${sandbox!.url}/usermap`, {
      method: 'POST',
      body: new URLSearchParams({ api_key: sandbox!.credentials.apiKey, mapping }),
    });

  it('counts mapping objects: 1499 and 1 pass, the next is refused with Retry-After and a body naming the limit', async () => {
    sandbox = await start();
    expect((await post(batch(1499))).status).toBe(200);
    expect((await post(batch(1, 1499))).status).toBe(200);
    const third = await post(batch(1, 1500));
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(29);
    expect(await third.json()).toEqual({
      error: {
        code: 'rate_limited',
        message: expect.stringContaining('mappings per 30 seconds limit exceeded: 1500 per 30 seconds'),
        limit: 'mappings per 30 seconds',
      },
    });
    // Group identify is not a mapping: not charged, not held.
    const identify = await fetch(`${sandbox.url}/groupidentify`, {
      method: 'POST',
      body: new URLSearchParams({
        api_key: sandbox.credentials.apiKey,
        identification: JSON.stringify([{ group_type: 't', group_value: 'v', group_properties: {} }]),
      }),
    });
    expect(identify.status).toBe(200);
    expect(sandbox.limitRefusals()).toEqual({ 'mappings per 30 seconds': 1 });
  });

  it('a documented full batch of 2000 is taken into an empty window; the next batch waits until the window is under 1500', async () => {
    await start();
    const clock = time.client;
    expect((await post(batch(2000))).status).toBe(200);
    expect((await post(batch(1, 2000))).status).toBe(429);
    // The 2000 fill the window for its 30 s: a batch a millisecond before they age out is refused, one after goes.
    await clock.advance(30_000 - 1);
    expect((await post(batch(2000, 3000))).status).toBe(429);
    await clock.advance(1);
    expect((await post(batch(2000, 3000))).status).toBe(200);
    expect(sandbox!.limitRefusals()).toEqual({ 'mappings per 30 seconds': 2 });
    expect(sandbox!.stats().rateLimited).toBe(2);
  });
});
