import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { apiUrl, basic, getBytes, getJson, makeSamplesDir, STANDARD_SAMPLES, type FixtureDir } from './fixtures.js';

const FILES = '/api/1/session-replays/files';
let fx: FixtureDir;
let sb: Sandbox;
let auth: string;
let clock = Date.UTC(2026, 10, 25, 12, 0, 0, 0);

async function fileUrls(name = 'alpha', version = '3'): Promise<string[]> {
  const res = await getJson(
    apiUrl(sb.url, FILES, [
      ['replay_id', fx.ids.get(name)!],
      ['version', version],
    ]),
    auth,
  );
  expect(res.status).toBe(200);
  return res.body.files;
}

function s3Code(xml: Buffer): string | undefined {
  return /<Code>([^<]+)<\/Code>/.exec(xml.toString('utf8'))?.[1];
}

beforeAll(async () => {
  fx = makeSamplesDir(STANDARD_SAMPLES);
  sb = await startSandbox({ samplesDir: fx.dir, now: () => clock });
  auth = basic(sb.credentials.apiKey, sb.credentials.secretKey);
});
afterEach(() => {
  sb.setFaults({ expireUrls: false, corruptFiles: [], corruptKind: 'truncated-gzip', fileEncoding: 'gzip' });
});
afterAll(async () => {
  await sb.close();
  fx.cleanup();
});

describe('presigned URL expiry', () => {
  it('a URL works for 15 minutes by the sandbox clock, then answers 403 Request has expired', async () => {
    clock = Date.UTC(2026, 10, 25, 12, 0, 0, 0);
    const [url] = await fileUrls();
    expect((await getBytes(url!)).status).toBe(200);
    clock += 900_000;
    expect((await getBytes(url!)).status).toBe(200);
    clock += 1;
    const expired = await getBytes(url!);
    expect(expired.status).toBe(403);
    expect(expired.headers['content-type']).toBe('application/xml');
    const xml = expired.bytes.toString('utf8');
    expect(xml).toContain('<Error><Code>AccessDenied</Code><Message>Request has expired</Message>');
    const [fresh] = await fileUrls();
    expect((await getBytes(fresh!)).status).toBe(200);
    expect(sb.stats().expired).toBeGreaterThanOrEqual(1);
  });

  it('expireUrls expires every URL issued before it was set; fresh URLs work', async () => {
    const old = await fileUrls();
    expect((await getBytes(old[0]!)).status).toBe(200);
    sb.setFaults({ expireUrls: true });
    for (const u of old) {
      const res = await getBytes(u);
      expect(res.status).toBe(403);
      expect(res.bytes.toString()).toContain('Request has expired');
    }
    const fresh = await fileUrls();
    for (const u of fresh) expect((await getBytes(u)).status).toBe(200);
    expect((await getBytes(old[1]!)).status).toBe(403);
    // Setting it again expires the URLs issued since.
    sb.setFaults({ expireUrls: true });
    expect((await getBytes(fresh[0]!)).status).toBe(403);
    sb.setFaults({ expireUrls: false });
    expect((await getBytes(old[0]!)).status).toBe(200);
  });
});

describe('signature checks', () => {
  it('any edit of the URL is a 403 SignatureDoesNotMatch', async () => {
    const [a, b] = await fileUrls();
    const ua = new URL(a!);
    const ub = new URL(b!);
    const sig = ua.searchParams.get('X-Amz-Signature')!;
    const edits: string[] = [];
    const flip = new URL(a!);
    flip.searchParams.set('X-Amz-Signature', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
    edits.push(flip.href);
    const longer = new URL(a!);
    longer.searchParams.set('X-Amz-Expires', '604800');
    edits.push(longer.href);
    const later = new URL(a!);
    later.searchParams.set('X-Amz-Date', '20991231T000000Z');
    edits.push(later.href);
    edits.push(`${ub.origin}${ub.pathname}${ua.search}`); // another file's path with this query
    for (const u of edits) {
      const res = await getBytes(u);
      expect(res.status).toBe(403);
      expect(s3Code(res.bytes)).toBe('SignatureDoesNotMatch');
    }
    const bare = await getBytes(`${ua.origin}${ua.pathname}`);
    expect(bare.status).toBe(403);
    expect(s3Code(bare.bytes)).toBe('AuthorizationQueryParametersError');
    expect(sb.stats().forbidden).toBeGreaterThanOrEqual(5);
  });

  it('an Authorization header next to the presigned query is a 400 InvalidArgument', async () => {
    const [a] = await fileUrls();
    const res = await getBytes(a!, { authorization: auth });
    expect(res.status).toBe(400);
    expect(s3Code(res.bytes)).toBe('InvalidArgument');
  });

  it('a well-signed URL of a key that does not exist cannot be made; an unknown path is 403', async () => {
    const [a] = await fileUrls();
    const u = new URL(a!);
    const res = await getBytes(`${u.origin}/__storage/replays/device-x/session-1/v3/nope.json.gz${u.search}`);
    expect(res.status).toBe(403);
  });
});

describe('file encodings', () => {
  it('serves application/octet-stream gzip bytes by default', async () => {
    const [a] = await fileUrls('gamma');
    const res = await getBytes(a!);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(JSON.parse(gunzipSync(res.bytes).toString())).toEqual(fx.events.get('gamma'));
  });

  it('content-encoding-gzip serves the same bytes with Content-Encoding: gzip', async () => {
    const [a] = await fileUrls('gamma');
    const plain = await getBytes(a!);
    sb.setFaults({ fileEncoding: 'content-encoding-gzip' });
    const res = await getBytes(a!);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.bytes).toEqual(plain.bytes);
    // A client that decompresses transparently (fetch) sees the JSON.
    const viaFetch = await fetch(a!);
    expect(await viaFetch.json()).toEqual(fx.events.get('gamma'));
  });

  it('inflated serves the JSON text', async () => {
    sb.setFaults({ fileEncoding: 'inflated' });
    const [a] = await fileUrls('gamma');
    const res = await getBytes(a!);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.bytes.toString('utf8'))).toEqual(fx.events.get('gamma'));
  });
});

describe('corrupt files', () => {
  const id = () => fx.ids.get('alpha')!;

  it('truncated-gzip damages exactly the middle file, every time', async () => {
    sb.setFaults({ corruptFiles: [id()] });
    const urls = await fileUrls('alpha');
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < urls.length; i++) {
        const res = await getBytes(urls[i]!);
        expect(res.status).toBe(200);
        if (i === 2) expect(() => gunzipSync(res.bytes)).toThrow();
        else expect(() => JSON.parse(gunzipSync(res.bytes).toString())).not.toThrow();
      }
    }
    // Other replays are untouched; version 2 has its own middle file.
    const beta = await fileUrls('beta');
    for (const u of beta) {
      const bytes = (await getBytes(u)).bytes;
      expect(() => gunzipSync(bytes)).not.toThrow();
    }
    const v2 = await fileUrls('alpha', '2');
    const v2Bodies = await Promise.all(v2.map(async (u) => (await getBytes(u)).bytes));
    const inflates = (b: Buffer): boolean => {
      try {
        gunzipSync(b);
        return true;
      } catch {
        return false;
      }
    };
    expect(v2Bodies.map(inflates)).toEqual([true, true, false, true]);
  });

  it('garbage-json serves valid gzip of text that is not JSON', async () => {
    sb.setFaults({ corruptFiles: [id()], corruptKind: 'garbage-json' });
    const urls = await fileUrls('alpha');
    const res = await getBytes(urls[2]!);
    const text = gunzipSync(res.bytes).toString('utf8');
    expect(() => JSON.parse(text)).toThrow();
    sb.setFaults({ fileEncoding: 'inflated' });
    const bad = (await getBytes(urls[2]!)).bytes.toString('utf8');
    const good = (await getBytes(urls[1]!)).bytes.toString('utf8');
    expect(() => JSON.parse(bad)).toThrow();
    expect(() => JSON.parse(good)).not.toThrow();
  });

  it('with inflated, truncated-gzip cuts the JSON text', async () => {
    sb.setFaults({ corruptFiles: [id()], fileEncoding: 'inflated' });
    const urls = await fileUrls('alpha');
    const text = (await getBytes(urls[2]!)).bytes.toString('utf8');
    expect(text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(text)).toThrow();
  });
});
