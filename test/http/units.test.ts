import { describe, expect, it } from 'vitest';
import {
  REGION_HOSTS,
  backoffDelay,
  baseUrlFor,
  bodyExcerpt,
  buildUrl,
  isRetryableNetworkError,
  isRetryableStatus,
  normaliseEndpoint,
  parseRetryAfter,
  redactText,
  secretForms,
  redactUrl,
  redactedPath,
  resolveTransportOptions,
  urlKey,
} from '../../src/http/index.js';
import { sleepLong } from '../../src/http/retry.js';

describe('regions', () => {
  it('maps every placeholder to a host per region', () => {
    expect(baseUrlFor('analytics', 'us')).toBe('https://amplitude.com');
    expect(baseUrlFor('analytics', 'eu')).toBe('https://analytics.eu.amplitude.com');
    expect(baseUrlFor('api', 'eu')).toBe('https://api.eu.amplitude.com');
    expect(baseUrlFor('ingest', 'us')).toBe('https://api2.amplitude.com');
    expect(baseUrlFor('feedback', 'eu')).toBe('https://eu.amplitude.com');
    expect(baseUrlFor('base', 'us')).toBe('https://experiment.amplitude.com');
    expect(baseUrlFor('base', 'eu')).toBe('https://experiment.eu.amplitude.com');
    for (const r of ['us', 'eu'] as const)
      for (const h of Object.values(REGION_HOSTS[r])) expect(h).not.toContain('analytics.amplitude.com');
  });

  it('endpoint override replaces every host and keeps a path prefix', () => {
    for (const k of ['analytics', 'api', 'ingest', 'feedback', 'base'] as const) {
      expect(baseUrlFor(k, 'eu', 'http://127.0.0.1:9999/proxy/')).toBe('http://127.0.0.1:9999/proxy');
    }
    expect(() => normaliseEndpoint('ftp://x')).toThrow(/http/);
    expect(() => normaliseEndpoint('https://u:p@x')).toThrow(/credentials/);
    expect(() => normaliseEndpoint('not a url')).toThrow(/absolute/);
  });
});

describe('retry rules', () => {
  it('retries 429 and 5xx only', () => {
    expect([429, 500, 502, 503, 504, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 400, 401, 403, 404, 409].some(isRetryableStatus)).toBe(false);
  });

  it('recognises network errors along the cause chain', () => {
    expect(isRetryableNetworkError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(true);
    expect(
      isRetryableNetworkError(new Error('x', { cause: Object.assign(new Error('y'), { code: 'UND_ERR_SOCKET' }) })),
    ).toBe(true);
    expect(isRetryableNetworkError(Object.assign(new Error('x'), { code: 'ENOTFOUND' }))).toBe(false);
  });

  it('full jitter stays within [0, min(max, base·2^n))', () => {
    const o = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(0, { ...o, random: () => 0 })).toBe(0);
    expect(backoffDelay(0, { ...o, random: () => 0.999 })).toBe(99);
    expect(backoffDelay(2, { ...o, random: () => 0.5 })).toBe(200);
    expect(backoffDelay(10, { ...o, random: () => 0.999 })).toBe(999);
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(i % 8, { ...o, random: Math.random });
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(1000);
    }
  });

  it('reads Retry-After as seconds or HTTP date, capped', () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    expect(parseRetryAfter('2', 60_000, now)).toBe(2000);
    expect(parseRetryAfter('0', 60_000, now)).toBe(0);
    expect(parseRetryAfter('3600', 60_000, now)).toBe(60_000);
    expect(parseRetryAfter(new Date(now + 5000).toUTCString(), 60_000, now)).toBe(5000);
    expect(parseRetryAfter(new Date(now - 5000).toUTCString(), 60_000, now)).toBe(0);
    expect(parseRetryAfter('soon', 60_000, now)).toBeUndefined();
    expect(parseRetryAfter(undefined, 60_000, now)).toBeUndefined();
    expect(parseRetryAfter(['1', '9'], 60_000, now)).toBe(1000);
    // Without a cap (the default): as the server gave it.
    expect(parseRetryAfter('3598', undefined, now)).toBe(3_598_000);
    expect(resolveTransportOptions({}).retry.maxRetryAfterMs).toBeUndefined();
  });

  it('has defaults in one place and rejects nonsense', () => {
    const r = resolveTransportOptions({});
    expect(r.region).toBe('us');
    expect(r.retry.methods).toEqual(['GET', 'HEAD']);
    expect(r.concurrency.dashboard).toBe(5);
    expect(r.concurrency.useractivity).toBe(10);
    expect(resolveTransportOptions({ concurrency: { replay: 7 } }).concurrency.replay).toBe(7);
    expect(() => resolveTransportOptions({ concurrency: { replay: 0 } })).toThrow();
    expect(() => resolveTransportOptions({ retry: { retries: -1 } })).toThrow();
    expect(() => resolveTransportOptions({ region: 'ap' as never })).toThrow(/region/);
  });
});

describe('redaction', () => {
  const presigned =
    'https://bucket.s3.amazonaws.com/replays/dev%2Fice/1763629200000-0000.json.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA123%2F20260101%2Fus-east-1&X-Amz-Signature=deadbeefcafe&X-Amz-Expires=900';

  it('removes signatures and credentials from URLs, keeps harmless parameters', () => {
    const r = redactUrl(presigned);
    expect(r).not.toContain('deadbeefcafe');
    expect(r).not.toContain('AKIA123');
    expect(r).toContain('X-Amz-Expires=900');
    expect(r).toContain('X-Amz-Signature=[REDACTED]');
    expect(redactedPath('https://h/p?api_key=k123&x=1')).toBe('/p?api_key=[REDACTED]&x=1');
    expect(urlKey(presigned)).toBe('/replays/dev/ice/1763629200000-0000.json.gz');
  });

  it('scrubs secrets and signed parameters from free text', () => {
    const t = `denied for ${presigned} with key SECRET-XYZ and api_key=abc123&more Signature=zzz`;
    const r = redactText(t, ['SECRET-XYZ']);
    for (const s of ['SECRET-XYZ', 'deadbeefcafe', 'AKIA123', 'abc123', 'zzz']) expect(r).not.toContain(s);
    expect(bodyExcerpt('x'.repeat(2000)).length).toBeLessThanOrEqual(500);
  });

  it('redacts every form of a secret the tool could write, of any length, in one pass', () => {
    const secret = 'p"a\\ss/w+rd%x';
    const forms = secretForms(secret);
    for (const form of [
      'p\\"a\\\\ss/w+rd%x',
      encodeURIComponent(secret),
      'p%22a%5Css%2Fw%2Brd%25x',
      Buffer.from(secret).toString('base64url'),
    ]) {
      expect(forms).toContain(form);
    }
    const text = `raw ${secret}; json ${JSON.stringify({ s: secret })}; twice ${JSON.stringify(JSON.stringify({ s: secret }))}; url ?s=${encodeURIComponent(secret)}`;
    const r = redactText(text, [secret]);
    for (const form of forms) expect(r).not.toContain(form);
    expect(r.match(/\[REDACTED\]/g)).toHaveLength(4);
    expect(redactText('id abcd1234, key abcd1234', ['abcd1234'])).toBe('id [REDACTED], key [REDACTED]');
    expect(redactText('nothing to hide', ['', undefined])).toBe('nothing to hide');
  });

  it('scrubs whole secrets of 8 characters or more only: a short key or a part of a word is left alone', () => {
    // A one-letter key mangled every message ("[REDACTED]rror").
    expect(redactText('error: the export failed', ['e'])).toBe('error: the export failed');
    expect(redactText('key 1234567 shown', ['1234567'])).toBe('key 1234567 shown');
    // Inside a longer run of letters and digits it is not that secret.
    expect(redactText('id xabcd1234y', ['abcd1234'])).toBe('id xabcd1234y');
    expect(redactText('Basic YWJjZDEyMzQ=, "abcd1234".', ['abcd1234'])).toBe('Basic [REDACTED], "[REDACTED]".');
  });

  it('percent-encodes a slash inside a query value', () => {
    expect(buildUrl('http://h', '/a', { replay_id: 'dev/123', n: [1, 2], skip: undefined }).search).toBe(
      '?replay_id=dev%2F123&n=1&n=2',
    );
  });
});

describe('sleepLong', () => {
  it('sleeps a wait past a Node timer range in parts (a longer timer would fire at once)', async () => {
    const parts: number[] = [];
    const record = async (ms: number): Promise<void> => void parts.push(ms);
    await sleepLong(2 * (2 ** 31 - 1) + 5, undefined, record);
    expect(parts).toEqual([2 ** 31 - 1, 2 ** 31 - 1, 5]);
    parts.length = 0;
    await sleepLong(300_000, undefined, record);
    expect(parts).toEqual([300_000]);
  });
});
