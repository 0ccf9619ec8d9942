import { PassThrough } from 'node:stream';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FaultsError, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runSandboxCommand } from '../../src/sandbox/cli.js';
import { apiUrl, basic, getBytes, getJson, makeSamplesDir, STANDARD_SAMPLES, type FixtureDir } from './fixtures.js';

const LIST = '/api/1/session-replays';
const FILES = '/api/1/session-replays/files';
let fx: FixtureDir;
let sb: Sandbox;
let auth: string;

const list = () => getJson(apiUrl(sb.url, LIST), auth);
const fileUrls = async (): Promise<string[]> =>
  (await getJson(apiUrl(sb.url, FILES, [['replay_id', fx.ids.get('alpha')!]]), auth)).body.files;

async function post(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await request(`${sb.url}${path}`, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.statusCode, body: await res.body.json() };
}

beforeAll(async () => {
  fx = makeSamplesDir(STANDARD_SAMPLES);
  sb = await startSandbox({ samplesDir: fx.dir });
  auth = basic(sb.credentials.apiKey, sb.credentials.secretKey);
});
afterEach(() => {
  sb.setFaults({
    latencyMs: 0,
    rateLimitEvery: 0,
    serverErrorEvery: 0,
    resetEvery: 0,
    redirectEvery: 0,
    slowBodyMs: 0,
    endlessPages: 'none',
    retryAfterSeconds: 1,
    serverErrorScope: 'both',
  });
});
afterAll(async () => {
  await sb.close();
  fx.cleanup();
});

describe('API fault switches', () => {
  it('rateLimitEvery answers 429 with Retry-After on every Nth authenticated API request', async () => {
    const before = sb.stats().rateLimited;
    sb.setFaults({ rateLimitEvery: 3, retryAfterSeconds: 7 });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await list();
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers['retry-after']).toBe('7');
        expect(res.body.error).toBe('rate_limited');
      }
    }
    expect(statuses).toEqual([200, 200, 429, 200, 200, 429, 200]);
    expect(sb.stats().rateLimited - before).toBe(2);
    // Unauthenticated requests are not counted.
    await getJson(apiUrl(sb.url, LIST));
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(429);
  });

  it('setting a switch restarts its count', async () => {
    sb.setFaults({ rateLimitEvery: 2 });
    expect((await list()).status).toBe(200);
    sb.setFaults({ rateLimitEvery: 2 });
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(429);
  });

  it('serverErrorEvery with scope api fails every Nth API request and no download', async () => {
    const urls = await fileUrls();
    sb.setFaults({ serverErrorEvery: 2, serverErrorScope: 'api', serverErrorStatus: 503 });
    expect((await list()).status).toBe(200);
    const failed = await list();
    expect(failed.status).toBe(503);
    expect(failed.body.error).toBe('server_error');
    for (const u of urls) expect((await getBytes(u)).status).toBe(200);
  });

  it('endlessPages answers every page with the first records and a new next_page_token', async () => {
    sb.setFaults({ endlessPages: 'both' });
    const pages: { session_replays: unknown[]; next_page_token: string }[] = [];
    let token: string | null = null;
    for (let i = 0; i < 3; i++) {
      const params: [string, string][] = [
        ['page_size', '2'],
        ...(token ? [['page_token', token] as [string, string]] : []),
      ];
      const res = await getJson(apiUrl(sb.url, LIST, params), auth);
      pages.push(res.body);
      token = res.body.next_page_token;
    }
    expect(new Set(pages.map((p) => p.next_page_token)).size).toBe(3);
    expect(pages.every((p) => JSON.stringify(p.session_replays) === JSON.stringify(pages[0]!.session_replays))).toBe(
      true,
    );
    const first = await getJson(
      apiUrl(sb.url, FILES, [
        ['replay_id', fx.ids.get('alpha')!],
        ['page_size', '1'],
      ]),
      auth,
    );
    const second = await getJson(
      apiUrl(sb.url, FILES, [
        ['replay_id', fx.ids.get('alpha')!],
        ['page_size', '1'],
        ['page_token', first.body.next_page_token],
      ]),
      auth,
    );
    expect(second.body.next_page_token).not.toBe(first.body.next_page_token);
    expect(new URL(second.body.files[0]).pathname).toBe(new URL(first.body.files[0]).pathname);
    sb.setFaults({ endlessPages: 'none' });
    expect((await list()).body.next_page_token).toBeNull();
  });

  it('slowBodyMs paces the body byte by byte; the bytes are the same', async () => {
    const normal = await list();
    sb.setFaults({ slowBodyMs: 1, slowBodyScope: 'api' });
    const paced = await list();
    expect(paced.status).toBe(200);
    expect(paced.headers['content-length']).toBe(normal.headers['content-length']);
    expect(paced.body).toEqual(normal.body);
    expect(() => sb.setFaults({ slowBodyScope: 'files' as never })).toThrow(FaultsError);
  });

  it('filesOrder reversed and duplicateFiles change how each files page lists its files', async () => {
    const keys = async (pageSize: string): Promise<string[]> => {
      const res = await getJson(
        apiUrl(sb.url, FILES, [
          ['replay_id', fx.ids.get('alpha')!],
          ['page_size', pageSize],
        ]),
        auth,
      );
      return res.body.files.map((u: string) => new URL(u).pathname);
    };
    const plain = await keys('100');
    expect(plain.length).toBeGreaterThanOrEqual(3);
    sb.setFaults({ filesOrder: 'reversed', duplicateFiles: true });
    expect(await keys('100')).toEqual([plain[0], ...[...plain].reverse()]);
    expect(await keys('2')).toEqual([plain[0], plain[1], plain[0]]);
    sb.setFaults({ filesOrder: 'key', duplicateFiles: false });
    expect(await keys('100')).toEqual(plain);
  });

  it('latencyMs delays answers by at least that long', async () => {
    sb.setFaults({ latencyMs: 150 });
    const t0 = performance.now();
    expect((await list()).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });
});

describe('storage fault switches', () => {
  it('serverErrorEvery with scope storage answers S3-style 500s on every Nth download', async () => {
    const urls = await fileUrls();
    sb.setFaults({ serverErrorEvery: 2, serverErrorScope: 'storage', serverErrorStatus: 500 });
    const statuses: number[] = [];
    for (const u of urls) {
      const res = await getBytes(u);
      statuses.push(res.status);
      if (res.status === 500) expect(res.bytes.toString()).toContain('<Code>InternalError</Code>');
    }
    expect(statuses).toEqual([200, 500, 200, 500, 200]);
    expect((await list()).status).toBe(200);
  });

  it('resetEvery sends part of the body, then destroys the connection', async () => {
    const urls = await fileUrls();
    const before = sb.stats();
    sb.setFaults({ resetEvery: 2 });
    expect((await getBytes(urls[0]!)).status).toBe(200);
    await expect(getBytes(urls[1]!)).rejects.toThrow();
    expect((await getBytes(urls[2]!)).status).toBe(200);
    const after = sb.stats();
    expect(after.resets - before.resets).toBe(1);
    expect(after.filesServed - before.filesServed).toBe(2);
  });

  it('redirectEvery answers 302 pointing back at the same URL on every Nth download', async () => {
    const urls = await fileUrls();
    const before = sb.stats();
    sb.setFaults({ redirectEvery: 2 });
    const answers: number[] = [];
    for (const u of urls) {
      const res = await getBytes(u);
      answers.push(res.status);
      if (res.status === 302) expect(new URL(res.headers.location as string, u).href).toBe(u);
    }
    expect(answers).toEqual([200, 302, 200, 302, 200]);
    expect(sb.stats().redirects - before.redirects).toBe(2);
  });

  it('setFaults rejects unknown or ill-typed switches', () => {
    expect(() => sb.setFaults({ rateLimitEvery: -1 })).toThrow(FaultsError);
    expect(() => sb.setFaults({ nope: 1 } as never)).toThrow(/unknown fault switch/);
    expect(sb.faults().rateLimitEvery).toBe(0);
  });
});

describe('control routes', () => {
  it('POST /__sandbox/faults merges switches and answers the result; bad input is a 400', async () => {
    const res = await post('/__sandbox/faults', { rateLimitEvery: 4, corruptFiles: ['a/1'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rateLimitEvery: 4, corruptFiles: ['a/1'], latencyMs: 0 });
    expect(sb.faults().rateLimitEvery).toBe(4);
    const res2 = await post('/__sandbox/faults', { resetEvery: 9 });
    expect(res2.body).toMatchObject({ rateLimitEvery: 4, resetEvery: 9 });
    expect((await getJson(`${sb.url}/__sandbox/faults`)).body.resetEvery).toBe(9);
    expect((await post('/__sandbox/faults', { latencyMs: 'slow' })).status).toBe(400);
    expect((await post('/__sandbox/faults', '{not json')).body.error).toBe('invalid_json');
    sb.setFaults({ corruptFiles: [] });
  });

  it('GET /__sandbox/stats counts requests by outcome', async () => {
    const before = (await getJson(`${sb.url}/__sandbox/stats`)).body;
    await list();
    await getJson(apiUrl(sb.url, LIST));
    await getJson(apiUrl(sb.url, LIST, [['sort_order', 'sideways']]), auth);
    const after = (await getJson(`${sb.url}/__sandbox/stats`)).body;
    expect(after.apiRequests - before.apiRequests).toBe(3);
    expect(after.listRequests - before.listRequests).toBe(3);
    expect(after.unauthorized - before.unauthorized).toBe(1);
    expect(after.badRequests - before.badRequests).toBe(1);
    expect(Object.keys(after)).toEqual(
      expect.arrayContaining(['filesServed', 'rateLimited', 'serverErrors', 'resets', 'forbidden', 'expired']),
    );
  });

  it('GET /__sandbox/replays lists the catalogue; unknown control routes are 404', async () => {
    const res = await getJson(`${sb.url}/__sandbox/replays`);
    expect(res.body.replays.map((r: { replayId: string }) => r.replayId)).toEqual(sb.replays().map((r) => r.replayId));
    expect(res.body.replays[0].expectedPath).toMatch(/expected/);
    expect((await getJson(`${sb.url}/__sandbox/nothing`)).status).toBe(404);
    expect((await post('/__sandbox/release', { replay_id: 5 })).status).toBe(400);
    expect((await post('/__sandbox/release', {})).body).toEqual({ released: [] });
  });
});

describe('runSandboxCommand', () => {
  it('prints url and credentials, serves, and closes on abort', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const ac = new AbortController();
    const running = runSandboxCommand({
      replicas: 2,
      samplesDir: fx.dir,
      out,
      signal: ac.signal,
      faults: { rateLimitEvery: 5 },
    });
    while (!text.includes('secret_key=')) await new Promise((r) => setTimeout(r, 10));
    const lines = Object.fromEntries(
      text
        .trim()
        .split('\n')
        .map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]),
    );
    expect(lines.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines).toMatchObject({
      api_key: 'sandbox-api-key',
      secret_key: 'sandbox-secret-key',
      management_key: 'sandbox-management-key',
    });
    expect(text).toContain('PLATFORM_MANAGEMENT_KEY=sandbox-management-key');
    const res = await getJson(apiUrl(lines.url!, LIST), basic(lines.api_key!, lines.secret_key!));
    expect(res.body.session_replays).toHaveLength(5);
    expect((await getJson(`${lines.url}/__sandbox/faults`)).body.rateLimitEvery).toBe(5);
    ac.abort();
    await running;
    await expect(request(`${lines.url}${LIST}`)).rejects.toThrow();
  });
});

describe('configuration errors', () => {
  it('a folder without index.json is a clear SandboxConfigError', async () => {
    await expect(startSandbox({ samplesDir: '/nonexistent-samples' })).rejects.toThrow(/index\.json: not found/);
    await expect(
      startSandbox({ samplesDir: fx.dir, extraReplays: [{ replay_id: 'x', sample: 'alpha' }] }),
    ).rejects.toThrow(/device_id\/session_id/);
    await expect(
      startSandbox({ samplesDir: fx.dir, extraReplays: [{ replay_id: fx.ids.get('alpha')!, sample: 'alpha' }] }),
    ).rejects.toThrow(/duplicate replay id/);
  });
});
