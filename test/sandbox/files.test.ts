import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { apiUrl, basic, getBytes, getJson, makeSamplesDir, STANDARD_SAMPLES, type FixtureDir } from './fixtures.js';

const FILES = '/api/1/session-replays/files';
const LIST = '/api/1/session-replays';
const LONG_DEVICE = 'd'.repeat(150) + 'é'.repeat(75); // 300 bytes of UTF-8
const HOSTILE = ['../x', './1', 'a%2Fb/c', '日本語-🙂/123', `${LONG_DEVICE}/42`, 'a/b/c', 'sp ace+plus?&=#/7'];

let fx: FixtureDir;
let sb: Sandbox;
let auth: string;

const files = (params: Array<[string, string]>) => getJson(apiUrl(sb.url, FILES, params), auth);

async function allFiles(
  replayId: string,
  extra: Array<[string, string]> = [],
): Promise<{ urls: string[]; pages: number }> {
  const urls: string[] = [];
  let pages = 0;
  let token: string | null = null;
  do {
    const res = await files([
      ['replay_id', replayId],
      ...extra,
      ...(token ? [['page_token', token] as [string, string]] : []),
    ]);
    expect(res.status).toBe(200);
    urls.push(...res.body.files);
    token = res.body.next_page_token;
    pages++;
  } while (token !== null);
  return { urls, pages };
}

async function download(urls: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const u of urls) {
    const res = await getBytes(u);
    expect(res.status).toBe(200);
    out.push(...(JSON.parse(gunzipSync(res.bytes).toString('utf8')) as unknown[]));
  }
  return out;
}

beforeAll(async () => {
  fx = makeSamplesDir(STANDARD_SAMPLES);
  sb = await startSandbox({
    samplesDir: fx.dir,
    extraReplays: [
      ...HOSTILE.map((replay_id) => ({ replay_id, sample: 'beta' })),
      { replay_id: 'held-device/1', sample: 'alpha', start_time: '2026-11-22T00:00:00Z' },
      { replay_id: 'tail-device/2', sample: 'alpha' },
      { replay_id: 'all-hidden/3', sample: 'gamma' },
    ],
    held: ['held-device/1'],
    hiddenTail: { 'tail-device/2': 2, 'all-hidden/3': 5 },
  });
  auth = basic(sb.credentials.apiKey, sb.credentials.secretKey);
});
afterAll(async () => {
  await sb.close();
  fx.cleanup();
});

describe('files endpoint', () => {
  it('pages through version 3 files in key order with presigned-style URLs', async () => {
    const id = fx.ids.get('alpha')!;
    const { urls, pages } = await allFiles(id, [['page_size', '2']]);
    expect(pages).toBe(3);
    expect(urls).toHaveLength(5);
    const keys = urls.map((u) => decodeURIComponent(new URL(u).pathname));
    expect([...keys].sort()).toEqual(keys);
    for (const u of urls) {
      expect(u.startsWith(`${sb.url}/__storage/`)).toBe(true);
      expect(u).toMatch(
        /\?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=[^&]+&X-Amz-Date=\d{8}T\d{6}Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=[0-9a-f]{64}$/,
      );
    }
    expect(await download(urls)).toEqual(fx.events.get('alpha'));
  });

  it('default page size returns everything on one page with a null token', async () => {
    const res = await files([['replay_id', fx.ids.get('alpha')!]]);
    expect(res.body.files).toHaveLength(5);
    expect(res.body.next_page_token).toBeNull();
  });

  it('version 2 serves the other file set of the same events', async () => {
    const id = fx.ids.get('alpha')!;
    const v2 = await allFiles(id, [
      ['version', '2'],
      ['page_size', '1'],
    ]);
    expect(v2.pages).toBe(4);
    const packed = (await download(v2.urls)) as string[];
    expect(packed.map((p) => JSON.parse(p.slice('packed:'.length)))).toEqual(fx.events.get('alpha'));
    expect(v2.urls.every((u) => decodeURIComponent(u).includes('/v2/'))).toBe(true);
    const v3 = await allFiles(id, [['version', '3']]);
    expect(v3.urls.every((u) => decodeURIComponent(u).includes('/v3/'))).toBe(true);
  });

  it('the page token keeps the version; a different one or another replay is a 400', async () => {
    const id = fx.ids.get('alpha')!;
    const first = await files([
      ['replay_id', id],
      ['version', '2'],
      ['page_size', '1'],
    ]);
    const kept = await files([
      ['replay_id', id],
      ['page_token', first.body.next_page_token],
      ['page_size', '1'],
    ]);
    expect(decodeURIComponent(kept.body.files[0])).toContain('/v2/');
    const mismatch = await files([
      ['replay_id', id],
      ['page_token', first.body.next_page_token],
      ['version', '3'],
    ]);
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toBe('page_token_mismatch');
    const other = await files([
      ['replay_id', fx.ids.get('beta')!],
      ['page_token', first.body.next_page_token],
    ]);
    expect(other.status).toBe(400);
    expect(other.body.error).toBe('page_token_mismatch');
  });

  it('answers 400 for bad parameters and 404 for unknown replays', async () => {
    const cases: Array<[Array<[string, string]>, number, string]> = [
      [[], 400, 'missing_parameter'],
      [[['replay_id', 'nodevice']], 400, 'invalid_replay_id'],
      [[['replay_id', '/a/1']], 400, 'invalid_replay_id'],
      [
        [
          ['replay_id', 'a/1'],
          ['replay_id', 'b/2'],
        ],
        400,
        'duplicate_parameter',
      ],
      [
        [
          ['replay_id', fx.ids.get('alpha')!],
          ['version', '4'],
        ],
        400,
        'invalid_version',
      ],
      [
        [
          ['replay_id', fx.ids.get('alpha')!],
          ['page_token', 'nope'],
        ],
        400,
        'invalid_page_token',
      ],
      [[['replay_id', 'unknown/1']], 404, 'not_found'],
    ];
    for (const [params, status, code] of cases) {
      const res = await files(params);
      expect({ params, status: res.status, code: res.body.error }).toEqual({ params, status, code });
    }
    const max = await files([
      ['replay_id', fx.ids.get('alpha')!],
      ['page_size', '1000'],
    ]);
    expect(max.status).toBe(200);
  });
});

describe('hostile replay ids', () => {
  for (const id of HOSTILE) {
    it(`round-trips ${id.length > 40 ? id.slice(0, 20) + '… (long)' : id}`, async () => {
      const rec = await getJson(apiUrl(sb.url, LIST, [['replay_id', id]]), auth);
      expect(rec.status).toBe(200);
      expect(rec.body.session_replays).toHaveLength(1);
      const r = rec.body.session_replays[0];
      expect(`${r.device_id}/${r.session_id}`).toBe(id);
      const { urls } = await allFiles(id, [['page_size', '2']]);
      expect(urls).toHaveLength(3);
      for (const u of urls) {
        // No dot segment, nothing a URL parser would rewrite.
        expect(new URL(u).href).toBe(u);
        expect(decodeURIComponent(new URL(u).pathname)).toContain(`device-${r.device_id}/session-${r.session_id}/v3/`);
      }
      expect(await download(urls)).toEqual(fx.events.get('beta'));
    });
  }
});

describe('held replays and hidden tails', () => {
  it('a held replay is listed but its files answer 404 until released', async () => {
    const listed = await getJson(apiUrl(sb.url, LIST, [['replay_id', 'held-device/1']]), auth);
    expect(listed.body.session_replays).toHaveLength(1);
    const before = await files([['replay_id', 'held-device/1']]);
    expect(before.status).toBe(404);
    expect(before.body).toEqual({ error: 'not_found', message: 'no files yet for this replay' });
    sb.releaseHeld('held-device/1');
    const after = await files([['replay_id', 'held-device/1']]);
    expect(after.status).toBe(200);
    expect(after.body.files).toHaveLength(5);
  });

  it('a hidden tail leaves out the last files until released; paging continues into them', async () => {
    const first = await files([
      ['replay_id', 'tail-device/2'],
      ['page_size', '2'],
    ]);
    const second = await files([
      ['replay_id', 'tail-device/2'],
      ['page_size', '2'],
      ['page_token', first.body.next_page_token],
    ]);
    expect(second.body.files).toHaveLength(1);
    expect(second.body.next_page_token).toBeNull();
    const v2 = await files([
      ['replay_id', 'tail-device/2'],
      ['version', '2'],
    ]);
    expect(v2.body.files).toHaveLength(2);
    const ctl = await getJson(`${sb.url}/__sandbox/release`).catch(() => null); // GET is not a release
    expect(ctl?.status).toBe(404);
    const { request } = await import('undici');
    const rel = await request(`${sb.url}/__sandbox/release`, {
      method: 'POST',
      body: JSON.stringify({ replay_id: 'tail-device/2' }),
    });
    expect(await rel.body.json()).toEqual({ released: ['tail-device/2'] });
    const all = await files([['replay_id', 'tail-device/2']]);
    expect(all.body.files).toHaveLength(5);
    expect(all.body.files.slice(0, 3).map((u: string) => new URL(u).pathname)).toEqual(
      [...first.body.files, ...second.body.files].map((u: string) => new URL(u).pathname),
    );
  });

  it('a tail covering every file is the same as no files yet; release of all frees it', async () => {
    expect((await files([['replay_id', 'all-hidden/3']])).status).toBe(404);
    sb.releaseHeld();
    const res = await files([['replay_id', 'all-hidden/3']]);
    expect(res.status).toBe(200);
    expect(res.body.files).toHaveLength(1);
  });
});
