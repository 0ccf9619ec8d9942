/**
 * SessionReplayClient on a scripted loopback server: the exact requests (query encoding, tokens with odd characters,
 * parameters on every page) and answers the sandbox never gives (repeated tokens, malformed bodies, garbage times, a
 * 404 on a later page). Everything the sandbox can show is tested against it: test/replay/sandbox.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, Transport, ValidationError } from '../../src/http/index.js';
import {
  MalformedResponseError,
  PageLoopError,
  SessionReplayClient,
  parseTimestamp,
  type ReplayRecord,
} from '../../src/replay/index.js';
import { FAST_RETRY, json, startTestServer, type TestServer } from '../http/helpers/test-server.js';

let server: TestServer | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.close();
  server = transport = undefined;
});

function clientFor(srv: TestServer): SessionReplayClient {
  transport = new Transport({
    endpoint: srv.url,
    credentials: { apiKey: 'key', secretKey: 'secret' },
    retry: FAST_RETRY,
  });
  return new SessionReplayClient(transport);
}

const rec = (i: number) => ({
  replay_id: `dev-${i}/${1700000000000 + i}`,
  session_id: String(1700000000000 + i),
  device_id: `dev-${i}`,
  platform_id: 1000 + i,
  start_time: new Date(1700000000000 + i * 1000).toISOString(),
  end_time: new Date(1700000000000 + i * 1000 + 500).toISOString(),
  retention_in_days: 90,
});

// Opaque tokens with characters that break naive handling (+, /, =, space, %, unicode).
const TOKENS = ['a+b/c==', 'x y%2Fz', 'ünï/çødé'];

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('listReplays paging', () => {
  for (const order of ['asc', 'desc'] as const) {
    it(`walks every page (${order}), passing tokens back unchanged and keeping sort_order`, async () => {
      const all = Array.from({ length: 7 }, (_, i) => rec(i));
      const sorted = order === 'asc' ? all : [...all].reverse();
      server = await startTestServer((req, res) => {
        const q = new URL(req.url!, 'http://x').searchParams;
        const token = q.get('page_token');
        const page = token === null ? 0 : TOKENS.indexOf(token) + 1;
        if (token !== null && page === 0) return json(res, 400, { error: 'bad token' });
        const size = Number(q.get('page_size'));
        json(res, 200, {
          session_replays: sorted.slice(page * size, page * size + size),
          next_page_token: (page + 1) * size < sorted.length ? TOKENS[page] : null,
        });
      });
      const client = clientFor(server);
      const got = await collect(
        client.listReplays({
          sortOrder: order,
          pageSize: 2,
          platformId: 42,
          startTime: new Date(0),
          endTime: '2030-01-01T00:00:00Z',
        }),
      );
      expect(got.map((r) => r.replay_id)).toEqual(sorted.map((r) => r.replay_id));
      expect(server.requests).toHaveLength(4);
      expect(server.requests.map((r) => r.query.get('page_token'))).toEqual([null, ...TOKENS]);
      for (const r of server.requests) {
        expect(r.query.get('sort_order')).toBe(order);
        expect(r.query.get('amplitude_id')).toBe('42');
        expect(r.query.get('page_size')).toBe('2');
        expect(r.query.get('start_time')).toBe('1970-01-01T00:00:00.000Z');
        expect(r.query.get('end_time')).toBe('2030-01-01T00:00:00.000Z');
        expect(r.path).toBe('/api/1/session-replays');
        expect(r.headers.authorization).toBe(`Basic ${Buffer.from('key:secret').toString('base64')}`);
      }
    });
  }

  it('sends each replay id as its own parameter with the slash as %2F, and no page_size', async () => {
    server = await startTestServer((_q, res) => json(res, 200, { session_replays: [rec(1)], next_page_token: null }));
    const client = clientFor(server);
    await collect(client.listReplays({ replayIds: ['dev a/123', 'dev-b/456'] }));
    const r = server.requests[0]!;
    expect(r.url).toContain('replay_id=dev%20a%2F123&replay_id=dev-b%2F456');
    expect(r.query.getAll('replay_id')).toEqual(['dev a/123', 'dev-b/456']);
    expect(r.query.get('page_size')).toBeNull();
  });

  it('stops instead of looping when the server repeats a token', async () => {
    server = await startTestServer((_q, res) => json(res, 200, { session_replays: [rec(1)], next_page_token: 'same' }));
    const client = clientFor(server);
    await expect(collect(client.listReplays({}))).rejects.toBeInstanceOf(PageLoopError);
    expect(server.requests.length).toBe(2);
  });

  // Read-ahead against the sandbox, which counts the requests: test/replay/sandbox.test.ts.
  describe('read-ahead', () => {
    it('a repeated token still ends the listing after the page that carried it, with readAhead', async () => {
      server = await startTestServer((_q, res) =>
        json(res, 200, { session_replays: [rec(1)], next_page_token: 'same' }),
      );
      const client = clientFor(server);
      const got: string[] = [];
      const err = await (async () => {
        for await (const r of client.listReplays({}, { readAhead: true })) got.push(r.replay_id);
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PageLoopError);
      expect(got).toEqual([rec(1).replay_id, rec(1).replay_id]);
    });
  });

  it('API data holding a lone surrogate gives typed errors, never a raw URIError', async () => {
    // JSON can carry a lone surrogate ("\ud800"); it has no UTF-8 form, so it cannot be sent back.
    const odd = { ...rec(1), replay_id: 'dev-1/1700000000001\ud800' };
    server = await startTestServer((req, res) => {
      if (req.url!.startsWith('/api/1/session-replays/files'))
        return json(res, 200, { files: [], next_page_token: 'f\udc00' });
      json(res, 200, { session_replays: [odd], next_page_token: 'tok\ud800' });
    });
    const client = clientFor(server);
    const err = await collect(client.listReplays({})).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect((err as Error).message).toContain('next_page_token');
    expect(server.requests).toHaveLength(1);
    // Such a listed id cannot be sent either: refused before any request, naming replay_id.
    expect(() => client.listReplayFiles(odd.replay_id)).toThrow(ValidationError);
    await expect(client.getFilesPage(odd.replay_id)).rejects.toMatchObject({ field: 'replay_id' });
    expect(server.requests).toHaveLength(1);
    await expect(collect(client.listReplayFiles('d/1'))).rejects.toBeInstanceOf(MalformedResponseError);
    expect(server.requests).toHaveLength(2);
  });

  it('rejects a response without session_replays', async () => {
    server = await startTestServer((_q, res) => json(res, 200, { nope: [] }));
    await expect(collect(clientFor(server).listReplays({}))).rejects.toMatchObject({ code: 'MALFORMED_RESPONSE' });
  });
});

describe('record timestamps', () => {
  // The zone-less, 1970 and 2120 times the sandbox serves: test/replay/sandbox.test.ts. These it never sends.
  it('parses garbage, impossible and unusual timestamps without crashing, keeping the originals', async () => {
    const raw = [
      { ...rec(3), start_time: 'garbage', end_time: null },
      { ...rec(4), start_time: '2026-02-30T00:00:00Z', end_time: '2026-11-20 09:00:00.123456+02:00' },
    ];
    server = await startTestServer((_q, res) => json(res, 200, { session_replays: raw, next_page_token: null }));
    const got: ReplayRecord[] = await collect(clientFor(server).listReplays({}));
    expect(got[0]!.startMs).toBeNull();
    expect(got[0]!.start_time).toBe('garbage');
    expect(got[0]!.endMs).toBeNull();
    expect(got[0]!.end_time).toBe('');
    expect(got[1]!.startMs).toBeNull();
    expect(got[1]!.endMs).toBe(Date.UTC(2026, 10, 20, 7, 0, 0, 123));
  });

  it('parseTimestamp edge cases', () => {
    expect(parseTimestamp('2026-01-01')).toBe(Date.UTC(2026, 0, 1));
    expect(parseTimestamp('2026-01-01T10:00:00-05:30')).toBe(Date.UTC(2026, 0, 1, 15, 30));
    expect(parseTimestamp('2026-13-01T00:00:00Z')).toBeNull();
    expect(parseTimestamp('')).toBeNull();
    expect(parseTimestamp({})).toBeNull();
    expect(parseTimestamp('0000-01-01T00:00:00Z')).toBe(-62167219200000); // year 0 is not shifted to 1900
    expect(parseTimestamp('2026-01-01T00:00:60Z')).toBe(Date.UTC(2026, 0, 1, 0, 1, 0));
  });
});

// Paging, page tokens, indexes, fresh URLs and the first page's 404 against the sandbox: test/replay/sandbox.test.ts.
describe('files', () => {
  const signed = (base: string, name: string) =>
    `${base}/store/dev%2Fx/${name}?X-Amz-Signature=sig-${name}&X-Amz-Expires=900`;

  it('sends the replay id with its slash as %2F, version 3 and a token with +, / unchanged; keys are decoded paths', async () => {
    server = await startTestServer((req, res) => {
      const q = new URL(req.url!, 'http://x').searchParams;
      const base = `http://${req.headers.host}`;
      if (q.get('page_token') === null)
        json(res, 200, { files: [signed(base, 'a.json.gz'), signed(base, 'b.json.gz')], next_page_token: 'p/2+' });
      else json(res, 200, { files: [{ url: signed(base, 'c.json.gz') }], next_page_token: null });
    });
    const client = clientFor(server);
    const files = await collect(client.listReplayFiles('devx/123', { pageSize: 2 }));
    expect(files.map((f) => f.key)).toEqual([
      '/store/dev/x/a.json.gz',
      '/store/dev/x/b.json.gz',
      '/store/dev/x/c.json.gz',
    ]);
    const [p1, p2] = server.requests;
    expect(p1!.url).toContain('replay_id=devx%2F123');
    expect(p1!.query.get('version')).toBe('3');
    expect(p1!.query.get('page_size')).toBe('2');
    expect(p2!.query.get('page_token')).toBe('p/2+');
  });

  it('a 404 on a later page is an error (the sandbox never answers one there)', async () => {
    server = await startTestServer((_q, res) => json(res, 404, { error: 'not found' }));
    const client = clientFor(server);
    await expect(client.getFilesPage('d/1', { pageToken: 'later' })).rejects.toMatchObject({ status: 404 });
    const err = await client.getFilesPage('d/1', { pageToken: 'later' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
  });

  it('rejects entries that are not URLs', async () => {
    server = await startTestServer((_q, res) => json(res, 200, { files: ['not a url'], next_page_token: null }));
    await expect(clientFor(server).getFilesPage('d/1')).rejects.toMatchObject({ code: 'MALFORMED_RESPONSE' });
  });
});
