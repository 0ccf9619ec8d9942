/**
 * UserMappingClient, GroupIdentifyClient and AttributionClient on the scripted loopback server (helpers.ts `rig`):
 * the exact request of each (api_key in the query or the form body, no Authorization header; Basic for get mappings),
 * the batch limits refused before sending, and a malformed answer. What they make of real answers — state, 400s,
 * 401s, held attributions — runs against the sandbox: test/sandbox/user-mapping-family.test.ts,
 * group-identify-family.test.ts and attribution-family.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  AttributionClient,
  GroupIdentifyClient,
  MalformedResponseError,
  UserMappingClient,
} from '../../src/clients/index.js';
import { BASIC, CREDS, form, json, refused, rig, text, type Rig } from './helpers.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

describe('UserMappingClient', () => {
  it('map: POST /usermap with mapping JSON and api_key in the query, no Authorization header', async () => {
    r = await rig((_req, res) => text(res, 200, 'success'));
    const c = new UserMappingClient(r.transport);
    const result = await c.map([{ user_id: 'a&b=c', global_user_id: 'global/ü' }]);
    expect(result).toEqual([{ status: 200, body: 'success' }]);
    const seen = r.only();
    expect(seen.method).toBe('POST');
    expect(seen.path).toBe('/usermap');
    expect(seen.query.get('api_key')).toBe(CREDS.apiKey);
    expect(JSON.parse(seen.query.get('mapping')!)).toEqual([{ user_id: 'a&b=c', global_user_id: 'global/ü' }]);
    expect(seen.url).not.toContain('[');
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.body).toBe('');
  });

  it('unmap: one {user_id, unmap: true} per user; a JSON answer is parsed', async () => {
    r = await rig((_req, res) => json(res, 200, { code: 200 }));
    expect(await new UserMappingClient(r.transport).unmap(['u1', 'u2'])).toEqual([
      { status: 200, body: { code: 200 } },
    ]);
    const seen = r.only();
    expect(seen.path).toBe('/usermap');
    expect(JSON.parse(seen.query.get('mapping')!)).toEqual([
      { user_id: 'u1', unmap: true },
      { user_id: 'u2', unmap: true },
    ]);
  });

  it('getMappings: GET /api/2/usermap with Basic auth and user_ids as a JSON array; parses the response', async () => {
    const body = {
      u1: { mapped_from: [{ platform_id: 11, user_id: 'old' }], mapped_to: [] },
      u2: { mapped_from: [], mapped_to: [{ platform_id: 22, user_id: 'global' }] },
    };
    r = await rig((_req, res) => json(res, 200, body));
    const got = await new UserMappingClient(r.transport).getMappings(['u1', 'u2']);
    expect(got).toEqual(body);
    const seen = r.only();
    expect(seen.method).toBe('GET');
    expect(seen.path).toBe('/api/2/usermap');
    expect(seen.headers.authorization).toBe(BASIC);
    expect(JSON.parse(seen.query.get('user_ids')!)).toEqual(['u1', 'u2']);
    expect(seen.query.get('api_key')).toBeNull();
  });

  it('getMappings: a non-object entry is MalformedResponseError', async () => {
    r = await rig((_req, res) => json(res, 200, { u1: 'nope' }));
    await expect(new UserMappingClient(r.transport).getMappings(['u1'])).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('refused before sending: no mapping, empty ids, an object over 1 MB alone, a bad encoding', async () => {
    r = await rig();
    const c = new UserMappingClient(r.transport);
    await refused(c.map([]), 'mapping');
    await refused(c.map([{ user_id: 'u', global_user_id: '' }]), 'mapping[0].global_user_id');
    await refused(c.map([{ user_id: 'u', global_user_id: 'g', unmap: true } as never]), 'mapping[0].unmap');
    await refused(c.unmap(['x'.repeat(1_000_000)]), 'mapping[0]');
    await refused(c.getMappings([]), 'user_ids');
    await refused(c.map([{ user_id: 'u', global_user_id: 'g' }], { encoding: 'json' as never }), 'encoding');
    expect(r.server.requests).toHaveLength(0);
  });

  it('a full batch of 2000 goes form-encoded in the body by itself (too long for a URL), as one batch', async () => {
    r = await rig((_req, res) => text(res, 200, 'ok'));
    const batch = Array.from({ length: 2000 }, (_, i) => ({ user_id: `u${i}`, global_user_id: 'g' }));
    expect(await new UserMappingClient(r.transport).map(batch)).toEqual([{ status: 200, body: 'ok' }]);
    const seen = r.only();
    expect(seen.url).toBe('/usermap');
    expect(seen.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const f = form(seen);
    expect(f.api_key).toBe(CREDS.apiKey);
    expect(JSON.parse(f.mapping!)).toEqual(batch);
  });

  it('more than 2000 mappings or 1 MB go in batches that keep both caps, in order', async () => {
    // Without the mapping window (tested below): the batching alone.
    r = await rig((_req, res) => text(res, 200, 'ok'), { budgets: { ingest: [] } });
    const c = new UserMappingClient(r.transport);
    const many = Array.from({ length: 4500 }, (_, i) => ({ user_id: `u${i}`, global_user_id: 'g' }));
    expect(await c.map(many)).toHaveLength(3);
    const sent = r.server.requests.map((q) => JSON.parse(form(q).mapping!) as unknown[]);
    expect(sent.map((b) => b.length)).toEqual([2000, 2000, 500]);
    expect(sent.flat()).toEqual(many);
    // 2,000 ids of 600 bytes: 1.2 MB of JSON, so two batches of at most 1 MB.
    const big = Array.from({ length: 2000 }, (_, i) => `${'x'.repeat(600)}${i}`);
    await c.unmap(big);
    const bytes = r.server.requests.slice(3).map((q) => Buffer.byteLength(form(q).mapping!));
    expect(bytes).toHaveLength(2);
    for (const b of bytes) expect(b).toBeLessThanOrEqual(1_000_000);
  });

  it('the ingest budget counts mapping objects: a second full batch waits for the window; group identify is not held', async () => {
    r = await rig((_req, res) => text(res, 200, 'ok'), {
      budgets: { ingest: [{ name: 'mappings per 30 s', limit: 1500, windowMs: 60_000, admit: 'under' }] },
    });
    const c = new UserMappingClient(r.transport);
    const batch = Array.from({ length: 2000 }, (_, i) => ({ user_id: `u${i}`, global_user_id: 'g' }));
    // The first batch of 2000 goes at once (the window held fewer than 1500); the window now holds 2000.
    await c.map(batch);
    const ac = new AbortController();
    const second = c.map(batch, { signal: ac.signal });
    // Group identify shares the family but not the mapping count: it goes while the second batch waits.
    await new GroupIdentifyClient(r.transport).identify([{ group_type: 't', group_value: 'v', group_properties: {} }]);
    expect(r.server.requests.map((q) => q.path)).toEqual(['/usermap', '/groupidentify']);
    ac.abort(new Error('stop waiting'));
    await expect(second).rejects.toThrow('stop waiting');
    expect(r.server.requests).toHaveLength(2);
  });
});

describe('UserMappingClient and a 429', () => {
  it('a batch answered 429 is not counted in the client window: its retry goes once the server says so', async () => {
    let n = 0;
    r = await rig(
      (_req, res) => {
        if (n++ > 0) return text(res, 200, 'ok');
        res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '0' });
        res.end('slow down');
      },
      {
        budgets: { ingest: [{ name: 'mappings per 30 s', limit: 1500, windowMs: 600_000, admit: 'under' }] },
      },
    );
    const batch = Array.from({ length: 2000 }, (_, i) => ({ user_id: `u${i}`, global_user_id: 'g' }));
    // Counted twice, the retry would wait for the ten-minute window; the signal ends the wait long before.
    expect(await new UserMappingClient(r.transport).map(batch, { signal: AbortSignal.timeout(20_000) })).toEqual([
      { status: 200, body: 'ok' },
    ]);
    expect(r.server.requests).toHaveLength(2);
  });
});

describe('GroupIdentifyClient', () => {
  it('POST /groupidentify, form-encoded api_key and identification JSON', async () => {
    r = await rig((_req, res) => text(res, 200, 'success'));
    const ids = [{ group_type: 'org id', group_value: '12&3', group_properties: { plan: 'pro', seats: 5 } }];
    expect(await new GroupIdentifyClient(r.transport).identify(ids)).toEqual({ status: 200, body: 'success' });
    const seen = r.only();
    expect(seen.method).toBe('POST');
    expect(seen.path).toBe('/groupidentify');
    expect(seen.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(seen.headers.authorization).toBeUndefined();
    const f = form(seen);
    expect(f.api_key).toBe(CREDS.apiKey);
    expect(JSON.parse(f.identification!)).toEqual(ids);
    expect(seen.query.get('api_key')).toBeNull();
  });

  it('limits: 1 to 1024 identifications, 1024 properties in all, 1 MB; typed members; nothing sent', async () => {
    r = await rig();
    const c = new GroupIdentifyClient(r.transport);
    const g = (i: number, props: number) => ({
      group_type: 't',
      group_value: `v${i}`,
      group_properties: Object.fromEntries(Array.from({ length: props }, (_, k) => [`p${k}`, k])),
    });
    await refused(c.identify([]), 'identification');
    await refused(c.identify(Array.from({ length: 1025 }, (_, i) => g(i, 0))), 'identification');
    await refused(c.identify([g(0, 600), g(1, 425)]), 'identification');
    await refused(c.identify([{ ...g(0, 1), group_properties: { big: 'x'.repeat(1_000_001) } }]), 'identification');
    await refused(
      c.identify([{ group_type: '', group_value: 'v', group_properties: {} }]),
      'identification[0].group_type',
    );
    await refused(c.identify([{ group_type: 't', group_value: 'v' } as never]), 'identification[0].group_properties');
    expect(r.server.requests).toHaveLength(0);
    await c.identify([g(0, 600), g(1, 424)]);
    expect(r.server.requests).toHaveLength(1);
  });
});

describe('AttributionClient', () => {
  const event = {
    event_type: '[Adjust] install',
    idfa: 'AEBE52E7-03EE-455A-B3C4-E57283966239',
    platform: 'ios',
    user_properties: { campaign: 'x&y' },
  };

  it('POST /attribution, form-encoded by default', async () => {
    r = await rig((_req, res) => text(res, 200, 'success'));
    await new AttributionClient(r.transport).send(event);
    const seen = r.only();
    expect(seen.method).toBe('POST');
    expect(seen.path).toBe('/attribution');
    expect(seen.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const f = form(seen);
    expect(f.api_key).toBe(CREDS.apiKey);
    expect(JSON.parse(f.event!)).toEqual(event);
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('as query parameters when asked', async () => {
    r = await rig((_req, res) => text(res, 200, ''));
    await new AttributionClient(r.transport).send(
      { event_type: 'install', adid: 'g-ad-id', platform: 'android' },
      { encoding: 'query' },
    );
    const seen = r.only();
    expect(seen.body).toBe('');
    expect(seen.query.get('api_key')).toBe(CREDS.apiKey);
    expect(JSON.parse(seen.query.get('event')!)).toEqual({
      event_type: 'install',
      adid: 'g-ad-id',
      platform: 'android',
    });
  });

  it('needs event_type and one identifier; nothing sent otherwise', async () => {
    r = await rig();
    const c = new AttributionClient(r.transport);
    await refused(c.send({ event_type: 'install', platform: 'ios' }), 'event');
    await refused(c.send({ event_type: 'install', idfv: '' }), 'event');
    await refused(c.send({ idfa: 'x' } as never), 'event.event_type');
    await refused(c.send({ event_type: 'i', idfa: 'x', user_properties: [] as never }), 'event.user_properties');
    await refused(c.send({ event_type: 'i', android_app_set_id: 'x' }, { encoding: 'xml' as never }), 'encoding');
    expect(r.server.requests).toHaveLength(0);
  });
});
