import { afterEach, describe, expect, it } from 'vitest';
import {
  type ApiError,
  BudgetExceededError,
  FamilyLimiter,
  RateLimitError,
  WaitLimitExceededError,
  SlidingBudget,
  Transport,
  type ApiFamily,
} from '../../src/http/index.js';
import { DEFAULT_ADAPTIVE, DEFAULT_CONCURRENCY } from '../../src/http/index.js';
import { dashboardQueryCost } from '../../src/util/dashboard-cost.js';
import { classifyLimit, PLATFORM_LIMITS } from '../../src/util/limit-messages.js';
import { FAST_RETRY, json, startTestServer, type TestServer } from './helpers/test-server.js';
import { ManualClock, turn } from '../helpers/manual-clock.js';

let server: TestServer | undefined;
let transport: Transport | undefined;

afterEach(async () => {
  await transport?.close();
  await server?.close();
  transport = undefined;
  server = undefined;
});

describe('limit layer', () => {
  it('caps requests per host across families, each family also under its own cap', async () => {
    const limiter = new FamilyLimiter({ concurrency: { ...DEFAULT_CONCURRENCY }, hostConcurrency: 5 });
    let active = 0;
    let most = 0;
    const byFamily = new Map<ApiFamily, number>();
    let familyOver = false;
    const one = async (family: ApiFamily) => {
      const release = await limiter.acquire(family, { host: 'analytics.example:443' });
      active++;
      byFamily.set(family, (byFamily.get(family) ?? 0) + 1);
      if (byFamily.get(family)! > DEFAULT_CONCURRENCY[family]) familyOver = true;
      most = Math.max(most, active);
      await turn(); // holds the slot while the others ask
      active--;
      byFamily.set(family, byFamily.get(family)! - 1);
      release();
    };
    const families: ApiFamily[] = ['replay', 'dashboard', 'taxonomy', 'useractivity'];
    await Promise.all(Array.from({ length: 40 }, (_, i) => one(families[i % families.length]!)));
    expect(most).toBe(5);
    expect(familyOver).toBe(false);
  });

  it('does not count storage downloads against the API host', async () => {
    const limiter = new FamilyLimiter({ concurrency: { ...DEFAULT_CONCURRENCY }, hostConcurrency: 1 });
    const a = await limiter.acquire('replay', { host: 'h' });
    const b = await limiter.acquire('storage', { host: 'h' });
    expect(limiter.activeOnHost('h')).toBe(1);
    a();
    b();
  });

  it('waits for a sliding-window budget instead of going over it', async () => {
    const windowMs = 150;
    const clock = new ManualClock(0);
    const limiter = new FamilyLimiter({
      concurrency: { ...DEFAULT_CONCURRENCY },
      budgets: { dashboard: [{ name: 'test window', limit: 10, windowMs }] },
      clock,
    });
    const granted: { at: number; cost: number }[] = [];
    const all = Promise.all(
      [4, 4, 4, 4, 4].map(async (cost) => {
        const release = await limiter.acquire('dashboard', { cost });
        granted.push({ at: clock.now(), cost });
        release();
      }),
    );
    // Two fit at once; the other three wait for the window to move (a limiter without the budget grants all five).
    await clock.whenSleeping(3);
    expect(granted.map((g) => g.at)).toEqual([0, 0]);
    while (granted.length < 5) await clock.next();
    await all;
    // Two a window: each pair once the pair before it has aged out of the window.
    expect(granted.map((g) => g.at)).toEqual([0, 0, windowMs + 1, windowMs + 1, 2 * windowMs + 2]);
    for (const g of granted) {
      const inWindow = granted.filter((x) => x.at <= g.at && x.at > g.at - windowMs).reduce((s, x) => s + x.cost, 0);
      expect(inWindow).toBeLessThanOrEqual(10);
    }
  });

  it('refuses before sending a request costing more than a whole budget, naming its cost', async () => {
    server = await startTestServer((_q, res) => json(res, 200, { data: {} }));
    transport = new Transport({
      endpoint: server.url,
      credentials: { apiKey: 'test-api-key-0001', secretKey: 'test-secret-key-0001' },
      retry: { ...FAST_RETRY },
    });
    const err = await transport
      .request({ host: 'analytics', path: '/api/2/users', auth: 'basic', family: 'dashboard', cost: 1_001 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect((err as BudgetExceededError).cost).toBe(1_001);
    expect((err as BudgetExceededError).message).toContain('1001');
    expect(server.requests).toHaveLength(0);
  });

  it('says when a budget holds a request back, naming the budget and the wait', async () => {
    server = await startTestServer((_q, res) => json(res, 200, { data: {} }));
    const events: Record<string, unknown>[] = [];
    const clock = new ManualClock(0);
    transport = new Transport({
      endpoint: server.url,
      credentials: { apiKey: 'test-api-key-0001', secretKey: 'test-secret-key-0001' },
      budgets: { dashboard: [{ name: 'test window', limit: 1, windowMs: 200 }] },
      logger: (e) => void events.push(e),
      clock,
    });
    const one = () =>
      transport!.request({ host: 'analytics', path: '/api/2/users', auth: 'basic', family: 'dashboard' });
    await one();
    expect(events.filter((e) => e.msg === 'waiting for budget')).toEqual([]);
    const second = one();
    await clock.whenSleeping(1);
    expect(server.requests).toHaveLength(1);
    await clock.advance(201);
    await second;
    expect(server.requests).toHaveLength(2);
    const waits = events.filter((e) => e.msg === 'waiting for budget');
    expect(waits).toEqual([
      expect.objectContaining({
        level: 'warn',
        family: 'dashboard',
        budget: 'test window',
        what: expect.stringMatching(/^dashboard test window, waiting \d+ ms$/),
      }),
    ]);
    expect(waits[0]!.delayMs).toBe(201);
  });

  it('stops before a retry wait that would take the waits past retry.maxWaitMs', async () => {
    server = await startTestServer((_q, res) => json(res, 503, { error: 'busy' }));
    // Full jitter with random() = 1: waits of 5, 10, 20 ms; 5 fits in 12, 5 + 10 does not.
    transport = new Transport({
      endpoint: server.url,
      credentials: { apiKey: 'test-api-key-0001', secretKey: 'test-secret-key-0001' },
      retry: { ...FAST_RETRY, random: () => 1, maxWaitMs: 12 },
    });
    const err = await transport
      .request({ host: 'analytics', path: '/api/2/users', auth: 'basic', family: 'dashboard' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitLimitExceededError);
    expect(err).toMatchObject({
      code: 'MAX_WAIT_EXCEEDED',
      status: 503,
      waitFor: 'retry',
      waitMs: 10,
      waitedMs: 5,
      maxWaitMs: 12,
      serverMessages: ['busy'],
    });
    expect(server.requests).toHaveLength(2);
  });

  it('counts a budget wait against retry.maxWaitMs too', async () => {
    server = await startTestServer((_q, res) => json(res, 200, { data: {} }));
    transport = new Transport({
      endpoint: server.url,
      credentials: { apiKey: 'test-api-key-0001', secretKey: 'test-secret-key-0001' },
      budgets: { dashboard: [{ name: 'test window', limit: 1, windowMs: 60_000 }] },
      retry: { maxWaitMs: 1000 },
    });
    const one = () =>
      transport!.request({ host: 'analytics', path: '/api/2/users', auth: 'basic', family: 'dashboard' });
    await one();
    const err = await one().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitLimitExceededError);
    expect(err).toMatchObject({
      code: 'MAX_WAIT_EXCEEDED',
      waitFor: 'test window',
      waitedMs: 0,
      maxWaitMs: 1000,
      status: undefined,
    });
    expect((err as WaitLimitExceededError).waitMs).toBeGreaterThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it('adds pass-through fields to a JSON object body, or sends them as one when the request has no body', async () => {
    server = await startTestServer((_q, res) => json(res, 200, { ok: true }));
    transport = new Transport({
      endpoint: server.url,
      credentials: { apiKey: 'test-api-key-0001', secretKey: 'test-secret-key-0001' },
    });
    const seen: string[] = [];
    await transport.request({
      method: 'POST',
      host: 'analytics',
      path: '/x',
      auth: 'basic',
      family: 'dashboard',
      json: { a: 1 },
      extraFields: [['b', [2]]],
      extraQuery: [['q', 'v']],
      onResponse: (r) => void seen.push(r.text()),
    });
    expect(JSON.parse(server.requests[0]!.body) as unknown).toEqual({ a: 1, b: [2] });
    expect(server.requests[0]!.url).toContain('q=v');
    expect(seen).toEqual(['{"ok":true}']);
    await transport.request({
      host: 'analytics',
      path: '/x',
      auth: 'basic',
      family: 'dashboard',
      extraFields: [['b', 1]],
    });
    expect(server.requests[1]!).toMatchObject({ method: 'GET', body: '{"b":1}' });
    expect(server.requests[1]!.headers['content-type']).toBe('application/json');
    await expect(
      transport.request({
        method: 'POST',
        host: 'analytics',
        path: '/x',
        auth: 'basic',
        family: 'dashboard',
        json: [1],
        extraFields: [['b', 1]],
      }),
    ).rejects.toThrow(/sends a JSON array: no place for the field\(s\) b/);
    expect(server.requests).toHaveLength(2);
  });

  it('a budget never lets a cost above its limit through', () => {
    const b = new SlidingBudget({ name: 'x', limit: 3, windowMs: 1000 });
    expect(() => b.check(4)).toThrow(BudgetExceededError);
    expect(b.waitFor(3)).toBe(0);
    b.spend(3);
    expect(b.waitFor(1)).toBeGreaterThan(0);
  });

  it('holds back every request of the family after a 429 with Retry-After, and retries writes answered 429', async () => {
    const clock = new ManualClock(0);
    const arrivals: { at: number; path: string }[] = [];
    server = await startTestServer((q, res, n) => {
      arrivals.push({ at: clock.now(), path: q.url ?? '' });
      if (n === 1) json(res, 429, { error: 'rate limit exceeded' }, { 'retry-after': '2' });
      else json(res, 200, { success: true });
    });
    transport = new Transport({
      endpoint: server.url,
      credentials: { apiKey: 'test-api-key-0001', secretKey: 'test-secret-key-0001' },
      retry: { ...FAST_RETRY, maxRetryAfterMs: 5000 },
      clock,
    });
    const t = transport;
    const first = t.request({
      method: 'POST',
      host: 'analytics',
      path: '/api/2/taxonomy/category',
      auth: 'basic',
      family: 'taxonomy',
      form: { category_name: 'a' },
    });
    await clock.whenSleeping(1); // the write answered 429 waits its Retry-After
    const others = Promise.all(
      [1, 2, 3].map((i) =>
        t.request({ host: 'analytics', path: `/api/2/taxonomy/category/${i}`, auth: 'basic', family: 'taxonomy' }),
      ),
    );
    // The family is paused: the three others wait for the pause too, and nothing more reaches the server.
    await clock.whenSleeping(4);
    await clock.advance(1999);
    expect(arrivals).toHaveLength(1);
    await clock.advance(1);
    const res = await first;
    expect(res.status).toBe(200);
    expect(res.retries).toBe(1);
    expect((await others).every((r) => r.status === 200)).toBe(true);
    expect(arrivals).toHaveLength(5);
    for (const a of arrivals.slice(1)) expect(a.at).toBe(2000);
  });

  it('does not retry a write answered 429 when the call says retry: false', async () => {
    server = await startTestServer((_q, res) => json(res, 429, {}, { 'retry-after': '0' }));
    transport = new Transport({
      endpoint: server.url,
      credentials: { apiKey: 'test-api-key-0001', secretKey: 'test-secret-key-0001' },
      retry: { ...FAST_RETRY },
    });
    await expect(
      transport.request({
        method: 'POST',
        host: 'analytics',
        path: '/x',
        auth: 'basic',
        family: 'ingest',
        retry: false,
      }),
    ).rejects.toMatchObject({ status: 429 });
    expect(server.requests).toHaveLength(1);
  });
});

describe('dashboard query cost', () => {
  it('is days × conditions × query-type cost', () => {
    // 7 days, one segment with 2 conditions (3), segmentation of one event with no group-by (1).
    expect(
      dashboardQueryCost({
        type: 'segmentation',
        start: '20240101',
        end: '20240107',
        segments: [
          { prop: 'country', op: 'is', values: ['FR'] },
          { prop: 'os', op: 'is', values: ['ios'] },
        ] as never,
        events: [{ event_type: 'a' }],
      }),
    ).toBe(21);
    // 1 day, one group-by: conditions 1 + 4 = 5; query type 1 + 4 = 5.
    expect(
      dashboardQueryCost({
        type: 'segmentation',
        start: '20240101',
        end: '20240101',
        events: [{ event_type: 'a', group_by: [{ type: 'event', value: 'x' }] }],
      }),
    ).toBe(25);
    expect(
      dashboardQueryCost({
        type: 'funnel',
        start: '20240101',
        end: '20240102',
        events: [{ event_type: 'a' }, { event_type: 'b' }, { event_type: 'c' }],
      }),
    ).toBe(12);
    expect(dashboardQueryCost({ type: 'retention', start: '20240101', end: '20240130' })).toBe(240);
    expect(dashboardQueryCost({ type: 'sessions', start: '20231231', end: '20240101' })).toBe(8);
    expect(dashboardQueryCost({ type: 'other' })).toBe(1);
  });
});

describe('typed error bodies', () => {
  it('puts the limit a 429 names, its Retry-After and taxonomy/dashboard messages on the typed error', async () => {
    server = await startTestServer((q, res) => {
      if (q.url?.startsWith('/api/2/users'))
        json(
          res,
          429,
          { error: 'Exceeded rate limit with query of cost 1200 (limit 1000 per 5 minutes)' },
          { 'retry-after': '0' },
        );
      else if (q.url?.startsWith('/api/2/taxonomy'))
        json(res, 400, { success: false, errors: [{ message: 'category_name is required' }] });
      else json(res, 400, { error: { message: 'bad segment' } });
    });
    transport = new Transport({
      endpoint: server.url,
      credentials: { apiKey: 'test-api-key-0001', secretKey: 'test-secret-key-0001' },
      retry: { ...FAST_RETRY, retries: 0 },
    });
    const limited = await transport
      .request({ host: 'analytics', path: '/api/2/users', auth: 'basic', family: 'dashboard' })
      .catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).limit).toContain('limit 1000 per 5 minutes');
    expect((limited as RateLimitError).retryAfterMs).toBe(0);
    const tax = await transport
      .request({
        method: 'POST',
        host: 'analytics',
        path: '/api/2/taxonomy/category',
        auth: 'basic',
        family: 'taxonomy',
      })
      .catch((e: unknown) => e);
    expect((tax as ApiError).serverMessages).toEqual(['category_name is required']);
    const dash = await transport
      .request({ host: 'analytics', path: '/api/2/events/segmentation', auth: 'basic', family: 'dashboard' })
      .catch((e: unknown) => e);
    expect((dash as ApiError).serverMessages).toEqual(['bad segment']);
  });
});

describe('the kind of a 429 (src/util/limit-messages.ts)', () => {
  it('reads the limits of the one table, then the words, then the status line; an unknown 429 is a rate 429', () => {
    // Every limit of the table, worded as the sandbox words its 429s, reads as its own kind and name.
    for (const l of Object.values(PLATFORM_LIMITS)) {
      expect(
        classifyLimit(JSON.stringify({ error: 'rate_limited', message: `${l.name} limit exceeded: 5`, limit: l.name })),
      ).toEqual({ kind: l.kind, limit: l.name });
    }
    expect(PLATFORM_LIMITS.concurrentRequests.kind).toBe('concurrency');
    expect(PLATFORM_LIMITS.taxonomyConcurrentCost.kind).toBe('concurrency');
    expect(classifyLimit('{"error":"too many concurrent requests"}')).toEqual({ kind: 'concurrency' });
    expect(classifyLimit('{"message":"Exceeded rate limit with query of cost 1200"}')).toEqual({ kind: 'rate' });
    expect(classifyLimit('queries per hour exceeded')).toEqual({ kind: 'rate' });
    // Both kinds named: the safe reading. The spec's own dashboard wording says "concurrently" of a cost window.
    expect(classifyLimit('a concurrent or rate limit exceeded')).toEqual({ kind: 'rate' });
    expect(classifyLimit('1000 cost within five minutes concurrently')).toEqual({ kind: 'rate' });
    // No body: the status line's reason.
    expect(classifyLimit('', 'Too Many Concurrent Requests')).toEqual({ kind: 'concurrency' });
    expect(classifyLimit('  ', 'Too Many Requests')).toEqual({ kind: 'rate' });
    // The body wins over the reason; nothing recognisable is a rate 429.
    expect(classifyLimit('slow down', 'Too Many Concurrent Requests')).toEqual({ kind: 'rate' });
    expect(classifyLimit('')).toEqual({ kind: 'rate' });
  });

  it('a concurrency 429 named only by its status line holds back the refused request, not its family', async () => {
    const clock = new ManualClock(0);
    const arrivals: { at: number; path: string }[] = [];
    server = await startTestServer((q, res, n) => {
      arrivals.push({ at: clock.now(), path: q.url ?? '' });
      if (n === 1) {
        res.writeHead(429, 'Too Many Concurrent Requests', { 'retry-after': '2', 'content-length': '0' });
        res.end();
      } else json(res, 200, { ok: n });
    });
    const events: { msg: string; [k: string]: unknown }[] = [];
    transport = new Transport({
      endpoint: server.url,
      credentials: { apiKey: 'test-api-key-0001', secretKey: 'test-secret-key-0001' },
      retry: { ...FAST_RETRY, maxRetryAfterMs: 5000 },
      adaptive: { initial: { replay: 4 } },
      logger: (e) => events.push(e),
      clock,
    });
    const t = transport;
    const first = t.request({
      host: 'analytics',
      path: '/api/1/session-replays/first',
      auth: 'basic',
      family: 'replay',
    });
    await clock.whenSleeping(1); // the refused request waits its Retry-After
    const others = await Promise.all(
      [1, 2, 3].map((i) =>
        t.request({ host: 'analytics', path: `/api/1/session-replays/${i}`, auth: 'basic', family: 'replay' }),
      ),
    );
    expect(others.every((r) => r.status === 200)).toBe(true);
    // The others were answered while the refused request waited its Retry-After (they did not wait for it).
    expect(arrivals.filter((a) => !a.path.includes('first')).map((a) => a.at)).toEqual([0, 0, 0]);
    await clock.advance(2000);
    const res = await first;
    expect(res.retries).toBe(1);
    expect(arrivals.filter((a) => a.path.includes('first')).map((a) => a.at)).toEqual([0, 2000]);
    const retry = events.find((e) => e.msg === 'retrying request')!;
    expect(retry).toMatchObject({
      status: 429,
      limitKind: 'concurrency',
      what: '429 replay concurrency limit, waiting 2 s, attempt 2/4',
    });
    // The window was cut (from 4).
    expect(t.limit('replay')).toBeLessThan(4);
  });
});

/** One round: the replay window filled, every request answered in 100 ms. */
async function fullRound(l: FamilyLimiter): Promise<void> {
  const releases = await Promise.all(Array.from({ length: l.limit('replay') }, () => l.acquire('replay')));
  for (const r of releases) {
    r.report({ answered: true, latencyMs: 100 });
    r();
  }
}

describe('a window held after a concurrency 429', () => {
  it('does not grow while the Retry-After runs, and grows again after it; requests still go meanwhile', async () => {
    const clock = new ManualClock(0);
    const l = new FamilyLimiter({
      concurrency: DEFAULT_CONCURRENCY,
      adaptive: { ...DEFAULT_ADAPTIVE, initial: { ...DEFAULT_ADAPTIVE.initial, replay: 2 } },
      clock,
    });
    const round = (): Promise<void> => fullRound(l);
    l.holdGrowth('replay', 1000);
    // Requests go (no pause) and are answered; six rounds would grow the window by about three, held it stays.
    for (let i = 0; i < 6; i++) await round();
    expect(l.pausedFor('replay')).toBe(0);
    expect(l.limit('replay')).toBe(2);
    await clock.advance(1001);
    for (let i = 0; i < 6 && l.limit('replay') === 2; i++) await round();
    expect(l.limit('replay')).toBe(3);
  });

  it("after a cut, for the Retry-After but at most five of the family's round trips", async () => {
    const clock = new ManualClock(0);
    const at = (t: number): Promise<void> => clock.advance(t - clock.now());
    const l = new FamilyLimiter({
      concurrency: DEFAULT_CONCURRENCY,
      adaptive: { ...DEFAULT_ADAPTIVE, initial: { ...DEFAULT_ADAPTIVE.initial, replay: 2 } },
      clock,
    });
    const round = (): Promise<void> => fullRound(l);
    // No answer yet: no round trip known, the whole Retry-After.
    l.holdGrowthAfterCut('replay', 1000);
    await at(999);
    for (let i = 0; i < 4; i++) await round();
    expect(l.limit('replay')).toBe(2);
    // Round trips of 100 ms: a Retry-After of 10 s holds growth for 500 ms only.
    await at(1000);
    l.holdGrowthAfterCut('replay', 10_000);
    await at(1499);
    for (let i = 0; i < 4; i++) await round();
    expect(l.limit('replay')).toBe(2);
    await at(1501);
    for (let i = 0; i < 6 && l.limit('replay') === 2; i++) await round();
    expect(l.limit('replay')).toBe(3);
    // A Retry-After shorter than five round trips is the hold.
    const grown = l.limit('replay');
    l.holdGrowthAfterCut('replay', 200);
    await at(1702);
    for (let i = 0; i < 8 && l.limit('replay') === grown; i++) await round();
    expect(l.limit('replay')).toBe(grown + 1);
  });
});
