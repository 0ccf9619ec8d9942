import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { apiUrl, basic, getBytes, getJson } from './fixtures.js';

// The default sandbox: the recorded samples under <package root>/samples, plus replicas.
let sb: Sandbox;
let auth: string;

beforeAll(async () => {
  sb = await startSandbox({ replicas: 250 });
  auth = basic(sb.credentials.apiKey, sb.credentials.secretKey);
});
afterAll(async () => {
  await sb.close();
});

describe('default sandbox over the recorded samples', () => {
  it('serves every sample replay so that its version 3 files concatenate to the expected events', async () => {
    const samples = sb.replays().filter((r) => r.origin === 'sample');
    expect(samples.length).toBeGreaterThan(0);
    for (const r of samples) {
      const res = await getJson(apiUrl(sb.url, '/api/1/session-replays/files', [['replay_id', r.replayId]]), auth);
      expect(res.status).toBe(200);
      expect(res.body.files).toHaveLength(r.fileCount[3]);
      const events: unknown[] = [];
      for (const u of res.body.files as string[]) {
        events.push(...(JSON.parse(gunzipSync((await getBytes(u)).bytes).toString('utf8')) as unknown[]));
      }
      const expected = JSON.parse(readFileSync(r.expectedPath, 'utf8')) as unknown[];
      expect(events).toHaveLength(r.eventCount);
      expect(events).toEqual(expected);
    }
  });

  it('lists samples and replicas over several pages', async () => {
    let token: string | null = null;
    let count = 0;
    let pages = 0;
    do {
      const params: Array<[string, string]> = token ? [['page_token', token]] : [['page_size', '100']];
      if (token) params.push(['page_size', '100']);
      const res = await getJson(apiUrl(sb.url, '/api/1/session-replays', params), auth);
      expect(res.status).toBe(200);
      count += res.body.session_replays.length;
      token = res.body.next_page_token;
      pages++;
    } while (token !== null);
    expect(count).toBe(sb.replays().length);
    expect(pages).toBe(Math.ceil(count / 100));
  });
});
