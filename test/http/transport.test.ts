import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthError,
  NetworkError,
  RateLimitError,
  TimeoutError,
  Transport,
  UrlExpiredError,
  type LogEvent,
  type TransportOptions,
} from '../../src/http/index.js';
import { FAST_RETRY, delay, json, startTestServer, type TestServer } from './helpers/test-server.js';

const API_KEY = 'pub-api-key-1234';
const SECRET = 'very-secret-key-5678';
const MGMT = 'ampex_management_9999';

let server: TestServer | undefined;
let transport: Transport | undefined;

afterEach(async () => {
  await transport?.close();
  await server?.close();
  transport = undefined;
  server = undefined;
});

function make(srv: TestServer, extra: TransportOptions = {}): Transport {
  transport = new Transport({
    endpoint: srv.url,
    credentials: { apiKey: API_KEY, secretKey: SECRET, managementKey: MGMT },
    retry: { ...FAST_RETRY },
    ...extra,
  });
  return transport;
}

describe('auth styles', () => {
  it('sends HTTP Basic with API key and secret key', async () => {
    server = await startTestServer((_q, res) => json(res, 200, { ok: true }));
    const t = make(server);
    const r = await t.request({ host: 'analytics', path: '/api/2/events/list', auth: 'basic', family: 'dashboard' });
    expect(r.json()).toEqual({ ok: true });
    const h = server.requests[0]!.headers.authorization!;
    expect(h.startsWith('Basic ')).toBe(true);
    expect(Buffer.from(h.slice(6), 'base64').toString()).toBe(`${API_KEY}:${SECRET}`);
    expect(server.requests[0]!.headers.accept).toBe('application/json');
  });

  it('sends Bearer with the management key and JSON content type', async () => {
    server = await startTestServer((_q, res) => json(res, 200, {}));
    const t = make(server);
    await t.request({
      method: 'POST',
      host: 'base',
      path: '/api/1/flags',
      auth: 'bearer',
      family: 'management',
      json: { a: 1 },
    });
    const seen = server.requests[0]!;
    expect(seen.headers.authorization).toBe(`Bearer ${MGMT}`);
    expect(seen.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen.body)).toEqual({ a: 1 });
  });

  it('puts api_key in the query, or in the form body when there is one, and sends no Authorization', async () => {
    server = await startTestServer((_q, res) => json(res, 200, {}));
    const t = make(server);
    await t.request({
      method: 'POST',
      host: 'api',
      path: '/usermap',
      auth: 'api_key',
      family: 'ingest',
      query: { mapping: '[]' },
    });
    await t.request({
      method: 'POST',
      host: 'ingest',
      path: '/groupidentify',
      auth: 'api_key',
      family: 'ingest',
      form: { identification: '[]' },
    });
    const [a, b] = server.requests;
    expect(a!.query.get('api_key')).toBe(API_KEY);
    expect(a!.headers.authorization).toBeUndefined();
    expect(b!.query.get('api_key')).toBeNull();
    expect(new URLSearchParams(b!.body).get('api_key')).toBe(API_KEY);
    expect(b!.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('refuses to send without the credentials a style needs', async () => {
    server = await startTestServer((_q, res) => json(res, 200, {}));
    transport = new Transport({ endpoint: server.url, credentials: { apiKey: API_KEY } });
    await expect(transport.request({ host: 'analytics', path: '/x', auth: 'basic', family: 'replay' })).rejects.toThrow(
      /secret key/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('retries', () => {
  it('retries 429 honouring Retry-After (capped) and logs the wait', async () => {
    server = await startTestServer((_q, res, n) => {
      if (n === 1) json(res, 429, { error: 'concurrent limit' }, { 'retry-after': '3600' });
      else if (n === 2) json(res, 429, {}, { 'retry-after': '0' });
      else json(res, 200, { ok: n });
    });
    const events: LogEvent[] = [];
    const t = make(server, { logger: (e) => events.push(e) });
    const r = await t.request({ host: 'analytics', path: '/api/1/session-replays', auth: 'basic', family: 'replay' });
    expect(r.json()).toEqual({ ok: 3 });
    expect(r.retries).toBe(2);
    const retries = events.filter((e) => e.msg === 'retrying request');
    expect(retries.map((e) => e.retryAfterMs)).toEqual([FAST_RETRY.maxRetryAfterMs, 0]);
    expect(retries.map((e) => e.delayMs)).toEqual([FAST_RETRY.maxRetryAfterMs, 0]);
    expect(retries[0]!.status).toBe(429);
  });

  it('gives RateLimitError once the budget is spent', async () => {
    server = await startTestServer((_q, res) => json(res, 429, { error: 'rate limit' }, { 'retry-after': '0' }));
    const t = make(server);
    const err = await t
      .request({ host: 'analytics', path: '/p', auth: 'basic', family: 'replay' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retries).toBe(FAST_RETRY.retries);
    expect(server.requests).toHaveLength(FAST_RETRY.retries + 1);
  });

  it('retries 5xx and reports the last status with the retry count', async () => {
    server = await startTestServer((_q, res) => json(res, 503, { error: 'unavailable' }));
    const t = make(server);
    const err = (await t
      .request({ host: 'analytics', path: '/p', auth: 'basic', family: 'replay' })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(503);
    expect(err.retries).toBe(3);
    expect(err.message).toContain('after 3 retries');
  });

  it('does not retry 4xx other than 429', async () => {
    server = await startTestServer((_q, res) => json(res, 400, { error: 'bad' }));
    const t = make(server);
    await expect(t.request({ host: 'analytics', path: '/p', auth: 'basic', family: 'replay' })).rejects.toMatchObject({
      status: 400,
      retries: 0,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a connection reset, then succeeds', async () => {
    server = await startTestServer((req, res, n) => {
      if (n <= 2) req.socket.destroy();
      else json(res, 200, { ok: true });
    });
    const t = make(server);
    const r = await t.request({ host: 'analytics', path: '/p', auth: 'basic', family: 'replay' });
    expect(r.retries).toBe(2);
  });

  it('gives NetworkError when the connection keeps failing', async () => {
    server = await startTestServer((req) => {
      req.socket.destroy();
    });
    const t = make(server);
    const err = (await t
      .request({ host: 'analytics', path: '/p', auth: 'basic', family: 'replay' })
      .catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.retries).toBe(3);
    expect(err.causeCode).toBeTruthy();
  });

  it('does not retry POST unless the call opts in', async () => {
    server = await startTestServer((_q, res, n) => (n < 3 ? json(res, 503, {}) : json(res, 200, { ok: n })));
    const t = make(server);
    await expect(
      t.request({
        method: 'POST',
        host: 'feedback',
        path: '/api/1/ai-feedback/ingest',
        auth: 'basic',
        family: 'feedback',
        json: {},
      }),
    ).rejects.toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
    const r = await t.request({
      method: 'POST',
      host: 'feedback',
      path: '/api/1/ai-feedback/ingest',
      auth: 'basic',
      family: 'feedback',
      json: {},
      retry: true,
    });
    expect(r.json()).toEqual({ ok: 3 });
  });
});

describe('timeouts and abort', () => {
  it('times out waiting for headers', async () => {
    server = await startTestServer(async (_q, res) => {
      await delay(2000);
      json(res, 200, {});
    });
    const t = make(server, { timeouts: { headersMs: 100 }, retry: { ...FAST_RETRY, retries: 0 } });
    const err = await t
      .request({ host: 'analytics', path: '/slow', auth: 'basic', family: 'replay' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).phase).toBe('headers');
  });

  it('times out a stalled body', async () => {
    server = await startTestServer(async (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":');
      await delay(2000);
      res.end('1}');
    });
    const t = make(server, { timeouts: { bodyMs: 100 }, retry: { ...FAST_RETRY, retries: 0 } });
    const err = await t
      .request({ host: 'analytics', path: '/stall', auth: 'basic', family: 'replay' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).phase).toBe('body');
  });

  it('abort cancels an in-flight request', async () => {
    server = await startTestServer(async (_q, res) => {
      await delay(2000);
      json(res, 200, {});
    });
    const t = make(server);
    const ac = new AbortController();
    const p = t.request({ host: 'analytics', path: '/p', auth: 'basic', family: 'replay', signal: ac.signal });
    await delay(50);
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('abort removes a queued request before it is sent', async () => {
    server = await startTestServer(async (_q, res) => {
      await delay(300);
      json(res, 200, {});
    });
    const t = make(server, { concurrency: { replay: 1 } });
    const first = t.request({ host: 'analytics', path: '/first', auth: 'basic', family: 'replay' });
    const ac = new AbortController();
    const queued = t.request({
      host: 'analytics',
      path: '/queued',
      auth: 'basic',
      family: 'replay',
      signal: ac.signal,
    });
    await delay(30);
    expect(t.waiting('replay')).toBe(1);
    ac.abort();
    await expect(queued).rejects.toMatchObject({ name: 'AbortError' });
    await first;
    expect(server.requests.map((r) => r.path)).toEqual(['/first']);
  });

  it('abort interrupts a backoff wait', async () => {
    server = await startTestServer((_q, res) => json(res, 503, {}));
    const t = make(server, { retry: { ...FAST_RETRY, baseDelayMs: 60_000, maxDelayMs: 60_000, random: () => 0.99 } });
    const ac = new AbortController();
    const p = t.request({ host: 'analytics', path: '/p', auth: 'basic', family: 'replay', signal: ac.signal });
    await delay(100);
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(1);
  });
});

describe('errors and redaction', () => {
  it('AuthError points at --region only when the region chose the host', () => {
    const ctx = {
      method: 'GET',
      path: '/api/1/session-replays',
      host: 'analytics.eu.example',
      region: 'eu' as const,
      retries: 0,
    };
    expect(new AuthError(401, ctx, '').message).toContain(
      'a project in the other data centre answers exactly like bad credentials — check --region',
    );
    const overridden = new AuthError(401, { ...ctx, endpointOverride: true }, '').message;
    expect(overridden).not.toContain('--region');
    expect(overridden).toContain('check the keys for that endpoint');
  });

  it('AuthError names region and host (with an endpoint override, not --region)', async () => {
    server = await startTestServer((_q, res) => json(res, 401, { error: 'Invalid API key' }));
    const t = make(server, { region: 'eu' });
    const err = (await t
      .request({ host: 'analytics', path: '/api/1/session-replays', auth: 'basic', family: 'replay' })
      .catch((e: unknown) => e)) as AuthError;
    expect(err).toBeInstanceOf(AuthError);
    expect(err.status).toBe(401);
    expect(err.region).toBe('eu');
    expect(err.host).toBe(new URL(server.url).host);
    expect(err.message).toContain('region eu');
    expect(err.message).toContain(new URL(server.url).host);
    expect(err.message).not.toContain('check --region');
    expect(server.requests).toHaveLength(1);
    const err403 = await (async () => {
      server.setHandler((_q, res) => json(res, 403, {}));
      return t.request({ host: 'analytics', path: '/x', auth: 'basic', family: 'replay' }).catch((e: unknown) => e);
    })();
    expect(err403).toBeInstanceOf(AuthError);
  });

  it('never puts a secret, the Authorization value or a signature in errors or logs', async () => {
    const basic = Buffer.from(`${API_KEY}:${SECRET}`).toString('base64');
    server = await startTestServer((req, res) =>
      json(res, 500, {
        echo: `${req.headers.authorization} ${SECRET} ${MGMT} https://s3/x?X-Amz-Signature=SIGSIG&X-Amz-Credential=CREDCRED ${'pad'.repeat(300)}`,
      }),
    );
    const events: LogEvent[] = [];
    const t = make(server, { logger: (e) => events.push(e) });
    const errors: unknown[] = [];
    errors.push(
      await t.request({ host: 'analytics', path: '/a', auth: 'basic', family: 'replay' }).catch((e: unknown) => e),
    );
    errors.push(
      await t.request({ host: 'base', path: '/b', auth: 'bearer', family: 'management' }).catch((e: unknown) => e),
    );
    errors.push(
      await t
        .request({ host: 'api', path: '/usermap', auth: 'api_key', family: 'ingest', query: { mapping: '[]' } })
        .catch((e: unknown) => e),
    );
    for (const e of errors) {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).bodyExcerpt.length).toBeLessThanOrEqual(500);
    }
    const text =
      JSON.stringify(
        errors.map((e) => ({ m: (e as Error).message, ...(e as object), s: String((e as Error).stack) })),
      ) + JSON.stringify(events);
    for (const secret of [SECRET, MGMT, basic, 'SIGSIG', 'CREDCRED', API_KEY]) expect(text).not.toContain(secret);
    expect((errors[2] as ApiError).path).toBe('/usermap?mapping=%5B%5D&api_key=[REDACTED]');
    expect(events.length).toBeGreaterThan(0);
  });
});

describe('concurrency caps', () => {
  it('never has more requests of a family in flight than its cap', async () => {
    server = await startTestServer(async (_q, res) => {
      await delay(40);
      json(res, 200, {});
    });
    const t = make(server, { concurrency: { replay: 2, dashboard: 3 } });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.request({ host: 'analytics', path: `/r${i}`, auth: 'basic', family: 'replay' }),
      ),
    );
    expect(server.maxInFlight).toBe(2);
    const before = server.maxInFlight;
    expect(before).toBe(2);
  });

  it('caps families independently', async () => {
    server = await startTestServer(async (_q, res) => {
      await delay(60);
      json(res, 200, {});
    });
    const t = make(server, { concurrency: { replay: 1, dashboard: 2 } });
    await Promise.all([
      ...Array.from({ length: 4 }, () =>
        t.request({ host: 'analytics', path: '/replay', auth: 'basic', family: 'replay' }),
      ),
      ...Array.from({ length: 4 }, () =>
        t.request({ host: 'analytics', path: '/dash', auth: 'basic', family: 'dashboard' }),
      ),
    ]);
    expect(server.maxInFlight).toBe(3);
  });
});

describe('presigned downloads', () => {
  const payload = gzipSync(Buffer.from(JSON.stringify([{ type: 4, timestamp: 1 }])));

  it('streams the body without Authorization and retries 503 before the body', async () => {
    server = await startTestServer((_q, res, n) => {
      if (n === 1) return json(res, 503, {});
      res.writeHead(200, { 'content-type': 'application/gzip' });
      res.end(payload);
    });
    const t = make(server);
    const d = await t.download(
      `${server.url}/bucket/dev%2F1/1763629200000-0000.json.gz?X-Amz-Signature=abc&X-Amz-Expires=900`,
    );
    const chunks: Buffer[] = [];
    for await (const c of d.body) chunks.push(Buffer.from(c));
    expect(JSON.parse(gunzipSync(Buffer.concat(chunks)).toString())).toEqual([{ type: 4, timestamp: 1 }]);
    expect(d.status).toBe(200);
    expect(d.retries).toBe(1);
    expect(d.key).toBe('/bucket/dev/1/1763629200000-0000.json.gz');
    for (const r of server.requests) {
      expect(r.headers.authorization).toBeUndefined();
      expect(r.query.get('api_key')).toBeNull();
    }
  });

  it('turns a storage 403 into UrlExpiredError without the query string', async () => {
    server = await startTestServer((_q, res) => {
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
    });
    const t = make(server);
    const err = (await t
      .download(`${server.url}/b/k.json.gz?X-Amz-Signature=TOPSECRET&X-Amz-Credential=CRED`)
      .catch((e: unknown) => e)) as UrlExpiredError;
    expect(err).toBeInstanceOf(UrlExpiredError);
    expect(err.expired).toBe(true);
    expect(err.key).toBe('/b/k.json.gz');
    expect(err.status).toBe(403);
    const text = `${err.message} ${JSON.stringify(err)}`;
    expect(text).not.toContain('TOPSECRET');
    expect(text).not.toContain('CRED&');
    expect(server.requests).toHaveLength(1);
  });

  it('holds the storage slot until the body is consumed', async () => {
    server = await startTestServer(async (_q, res) => {
      res.writeHead(200);
      res.write('a');
      await delay(80);
      res.end('b');
    });
    const t = make(server, { concurrency: { storage: 2 } });
    const run = async (i: number) => {
      const d = await t.download(`${server!.url}/f${i}`);
      let s = '';
      for await (const c of d.body) s += Buffer.from(c).toString();
      return s;
    };
    const out = await Promise.all(Array.from({ length: 6 }, (_, i) => run(i)));
    expect(out.every((s) => s === 'ab')).toBe(true);
    expect(server.maxInFlight).toBe(2);
    expect(t.active('storage')).toBe(0);
  });

  it('frees the slot when the caller destroys the body', async () => {
    server = await startTestServer(async (_q, res) => {
      res.writeHead(200);
      res.write('a');
      await delay(2000);
      res.end('b');
    });
    const t = make(server, { concurrency: { storage: 1 } });
    const d = await t.download(`${server.url}/f`);
    expect(t.active('storage')).toBe(1);
    d.body.destroy();
    await delay(20);
    expect(t.active('storage')).toBe(0);
  });
});
