import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, replicaTimeShape } from '../../src/sandbox/index.js';
import { apiUrl, basic, getJson, makeSamplesDir, STANDARD_SAMPLES, type FixtureDir } from './fixtures.js';

const LIST = '/api/1/session-replays';
let fx: FixtureDir;
let sb: Sandbox;
let auth: string;

const list = (params: Array<[string, string]> = [], a: string | undefined = auth) =>
  getJson(apiUrl(sb.url, LIST, params), a);

/** Follows next_page_token until null; returns all replay ids in order and the page count. */
async function allPages(
  first: Array<[string, string]>,
  extra: Array<[string, string]> = [],
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let res = await list(first);
  let pages = 1;
  for (;;) {
    expect(res.status).toBe(200);
    ids.push(...res.body.session_replays.map((r: { replay_id: string }) => r.replay_id));
    if (res.body.next_page_token === null) return { ids, pages };
    res = await list([['page_token', res.body.next_page_token], ...extra]);
    pages++;
  }
}

beforeAll(async () => {
  fx = makeSamplesDir(STANDARD_SAMPLES);
  sb = await startSandbox({ samplesDir: fx.dir, replicas: 60 });
  auth = basic(sb.credentials.apiKey, sb.credentials.secretKey);
});
afterAll(async () => {
  await sb.close();
  fx.cleanup();
});

describe('auth', () => {
  it('answers 401 with a JSON error without or with wrong credentials', async () => {
    for (const a of [undefined, basic('sandbox-api-key', 'wrong'), basic('other', 'sandbox-secret-key'), 'Bearer x']) {
      const res = await getJson(apiUrl(sb.url, LIST), a);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Basic/);
      expect(JSON.stringify(res.body)).not.toContain('sandbox-secret-key');
    }
    const files = await getJson(apiUrl(sb.url, LIST + '/files', [['replay_id', fx.ids.get('alpha')!]]));
    expect(files.status).toBe(401);
  });

  it('uses the default credentials', () => {
    expect(sb.credentials).toEqual({
      apiKey: 'sandbox-api-key',
      secretKey: 'sandbox-secret-key',
      managementKey: 'sandbox-management-key',
    });
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('validation (400 with a JSON body saying why)', () => {
  const cases: Array<[string, Array<[string, string]>, string]> = [
    [
      'amplitude_id with replay_id',
      [
        ['amplitude_id', '1000'],
        ['replay_id', 'd/1'],
      ],
      'conflicting_parameters',
    ],
    [
      'replay_id with page_token',
      [
        ['replay_id', 'd/1'],
        ['page_token', 'x.y'],
      ],
      'conflicting_parameters',
    ],
    ['replay_id without slash', [['replay_id', 'nodevice']], 'invalid_replay_id'],
    ['replay_id with leading slash', [['replay_id', '/d/1']], 'invalid_replay_id'],
    ['replay_id with trailing slash', [['replay_id', 'd/1/']], 'invalid_replay_id'],
    ['empty replay_id', [['replay_id', '']], 'invalid_replay_id'],
    ['amplitude_id not an integer', [['amplitude_id', '12.5']], 'invalid_amplitude_id'],
    ['amplitude_id text', [['amplitude_id', 'abc']], 'invalid_amplitude_id'],
    ['amplitude_id empty', [['amplitude_id', '']], 'invalid_amplitude_id'],
    ['sort_order unknown', [['sort_order', 'up']], 'invalid_sort_order'],
    ['page_size zero', [['page_size', '0']], 'invalid_page_size'],
    ['page_size not a number', [['page_size', 'ten']], 'invalid_page_size'],
    ['start_time not ISO', [['start_time', 'yesterday']], 'invalid_time'],
    ['end_time impossible date', [['end_time', '2026-02-31T00:00:00Z']], 'invalid_time'],
    [
      'start after end',
      [
        ['start_time', '2026-11-21T00:00:00Z'],
        ['end_time', '2026-11-20T00:00:00Z'],
      ],
      'invalid_time',
    ],
    ['forged page_token', [['page_token', 'eyJrIjoibGlzdCJ9.AAAAAAAAAAAAAAAAAAAAAA']], 'invalid_page_token'],
    ['garbage page_token', [['page_token', 'garbage']], 'invalid_page_token'],
    [
      'repeated sort_order',
      [
        ['sort_order', 'asc'],
        ['sort_order', 'asc'],
      ],
      'duplicate_parameter',
    ],
  ];
  for (const [name, params, code] of cases) {
    it(name, async () => {
      const res = await list(params);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(code);
      expect(typeof res.body.message).toBe('string');
      expect(res.body.message.length).toBeGreaterThan(10);
    });
  }

  it('101 replay_id values are a 400, 100 are fine', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => ['replay_id', `dev/${i}`] as [string, string]);
    const bad = await list(ids);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('too_many_replay_ids');
    const ok = await list(ids.slice(0, 100));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ session_replays: [], next_page_token: null });
  });

  it('a page token of the files endpoint is not a list token', async () => {
    const files = await getJson(
      apiUrl(sb.url, LIST + '/files', [
        ['replay_id', fx.ids.get('alpha')!],
        ['page_size', '1'],
      ]),
      auth,
    );
    expect(files.body.next_page_token).toEqual(expect.any(String));
    const res = await list([['page_token', files.body.next_page_token]]);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_page_token');
  });
});

describe('listing and paging', () => {
  it('returns records with exactly the spec fields, newest first by default', async () => {
    const res = await list([['page_size', '200']]);
    expect(res.status).toBe(200);
    const recs = res.body.session_replays as Array<Record<string, unknown>>;
    expect(recs).toHaveLength(63);
    expect(res.body.next_page_token).toBeNull();
    for (const r of recs) {
      expect(Object.keys(r).sort()).toEqual(
        ['device_id', 'end_time', 'platform_id', 'replay_id', 'retention_in_days', 'session_id', 'start_time'].sort(),
      );
      expect(r.replay_id).toBe(`${r.device_id}/${r.session_id}`);
    }
    const starts = recs.map((r) =>
      Date.parse(/Z$/.test(r.start_time as string) ? (r.start_time as string) : `${r.start_time}Z`),
    );
    expect([...starts].sort((a, b) => b - a)).toEqual(starts);
    expect(recs[0]!.start_time).toMatch(/^2120-/);
  });

  it('pages through every replay once in both sort orders, with a default page size of 50', async () => {
    const desc = await allPages([]);
    expect(desc.pages).toBe(2);
    const asc = await allPages(
      [
        ['sort_order', 'asc'],
        ['page_size', '7'],
      ],
      [
        ['sort_order', 'asc'],
        ['page_size', '7'],
      ],
    );
    expect(asc.pages).toBe(9);
    expect(new Set(asc.ids).size).toBe(63);
    expect(asc.ids).toEqual([...desc.ids].reverse());
    expect(asc.ids).toEqual(sb.replays().map((r) => r.replayId));
  });

  it('a token remembers sort order and filters; page_size may change between pages', async () => {
    const first = await list([
      ['sort_order', 'asc'],
      ['page_size', '3'],
      ['amplitude_id', '1000'],
    ]);
    const rest = await allPages([
      ['page_token', first.body.next_page_token],
      ['page_size', '100'],
    ]);
    const all = [...first.body.session_replays.map((r: { replay_id: string }) => r.replay_id), ...rest.ids];
    const want = sb
      .replays()
      .filter((r) => r.record.platform_id === 1000)
      .map((r) => r.replayId);
    expect(all).toEqual(want);
  });

  it('answers 400 when sort_order differs from the token, or a filter differs', async () => {
    const asc = await list([
      ['sort_order', 'asc'],
      ['page_size', '2'],
    ]);
    const bad = await list([
      ['page_token', asc.body.next_page_token],
      ['sort_order', 'desc'],
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('sort_order_mismatch');
    const same = await list([
      ['page_token', asc.body.next_page_token],
      ['sort_order', 'asc'],
    ]);
    expect(same.status).toBe(200);
    const desc = await list([['page_size', '2']]);
    const bad2 = await list([
      ['page_token', desc.body.next_page_token],
      ['sort_order', 'asc'],
    ]);
    expect(bad2.body.error).toBe('sort_order_mismatch');
    const filtered = await list([
      ['amplitude_id', '1000'],
      ['page_size', '2'],
    ]);
    const bad3 = await list([
      ['page_token', filtered.body.next_page_token],
      ['amplitude_id', '2000'],
    ]);
    expect(bad3.status).toBe(400);
    expect(bad3.body.error).toBe('page_token_mismatch');
  });

  it('a token whose text was edited is rejected', async () => {
    const page = await list([['page_size', '2']]);
    const token: string = page.body.next_page_token;
    const [body, mac] = token.split('.');
    const state = JSON.parse(Buffer.from(body!, 'base64url').toString());
    state.sort = 'asc';
    const edited = `${Buffer.from(JSON.stringify(state)).toString('base64url')}.${mac}`;
    const res = await list([['page_token', edited]]);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_page_token');
  });
});

describe('filters', () => {
  it('amplitude_id filters by platform id (leading zeros allowed)', async () => {
    const res = await list([
      ['amplitude_id', '02000'],
      ['page_size', '200'],
    ]);
    expect(res.status).toBe(200);
    const want = sb
      .replays()
      .filter((r) => r.record.platform_id === 2000)
      .map((r) => r.replayId)
      .reverse();
    expect(res.body.session_replays.map((r: { replay_id: string }) => r.replay_id)).toEqual(want);
    expect(want.length).toBeGreaterThan(1);
  });

  it('start_time and end_time bound the start time inclusively', async () => {
    const beta = sb.replays().find((r) => r.sample === 'beta' && r.origin === 'sample')!;
    const t = beta.record.start_time;
    const exact = await list([
      ['start_time', t],
      ['end_time', t],
    ]);
    expect(exact.body.session_replays.map((r: { replay_id: string }) => r.replay_id)).toEqual([beta.replayId]);
    const justAfter = new Date(Date.parse(t) + 1).toISOString();
    const none = await list([
      ['start_time', justAfter],
      ['end_time', justAfter],
    ]);
    expect(none.body.session_replays).toEqual([]);
    // Offsets are honoured: 11:00+01:00 is 10:00Z.
    const offset = await list([
      ['start_time', '2026-11-20T11:00:00+01:00'],
      ['end_time', '2026-11-20T10:00:00'],
    ]);
    expect(offset.body.session_replays.map((r: { replay_id: string }) => r.replay_id)).toEqual([beta.replayId]);
  });

  it('filters apply across pages', async () => {
    const from = '2026-11-20T00:00:00Z';
    const to = '2026-11-20T23:59:59.999Z';
    const { ids } = await allPages([
      ['start_time', from],
      ['end_time', to],
      ['page_size', '4'],
      ['sort_order', 'asc'],
    ]);
    const want = sb
      .replays()
      .filter((r) => {
        const ms = Date.parse(/Z$/.test(r.record.start_time) ? r.record.start_time : `${r.record.start_time}Z`);
        return ms >= Date.parse(from) && ms <= Date.parse(to);
      })
      .map((r) => r.replayId);
    expect(ids).toEqual(want);
    expect(want.length).toBeGreaterThan(4);
  });
});

describe('replay_id lookup', () => {
  it('ignores page_size, returns a null token, leaves unknown ids out', async () => {
    const ids = sb
      .replays()
      .slice(0, 5)
      .map((r) => r.replayId);
    const res = await list([
      ...ids.map((id) => ['replay_id', id] as [string, string]),
      ['replay_id', 'nobody/1'],
      ['page_size', '2'],
    ]);
    expect(res.status).toBe(200);
    expect(res.body.next_page_token).toBeNull();
    expect(res.body.session_replays.map((r: { replay_id: string }) => r.replay_id)).toEqual([...ids].reverse());
    const invalidSizeIgnored = await list([
      ['replay_id', ids[0]!],
      ['page_size', '9999'],
    ]);
    expect(invalidSizeIgnored.status).toBe(200);
    expect(invalidSizeIgnored.body.session_replays).toHaveLength(1);
  });

  it('a comma is part of an id, not a separator', async () => {
    const [a, b] = sb.replays().map((r) => r.replayId);
    const res = await list([['replay_id', `${a},${b}`]]);
    expect(res.status).toBe(200);
    expect(res.body.session_replays).toEqual([]);
  });
});

describe('synthetic replicas', () => {
  it('have distinct ids and the documented timestamp shapes', () => {
    const replicas = sb.replays().filter((r) => r.origin === 'replica');
    expect(replicas).toHaveLength(60);
    expect(new Set(replicas.map((r) => r.record.device_id)).size).toBe(60);
    const byShape = (shape: string) =>
      Array.from({ length: 60 }, (_, i) => i).filter((i) => replicaTimeShape(i) === shape);
    expect(byShape('year-1970')).toEqual([13]);
    expect(byShape('year-2120')).toEqual([37]);
    expect(byShape('no-zone')).toEqual([4, 14, 24, 34, 44, 54]);
    const byZone = replicas.filter((r) => !/(Z|[+-]\d{2}:\d{2})$/.test(r.record.start_time));
    expect(byZone).toHaveLength(6);
    expect(replicas.filter((r) => r.record.start_time.startsWith('1970-'))).toHaveLength(1);
    expect(replicas.filter((r) => r.record.start_time.startsWith('2120-'))).toHaveLength(1);
  });
});
