/**
 * The client and the transport against the real sandbox (src/sandbox), which behaves like the platform.
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, Transport, UrlExpiredError, ValidationError } from '../../src/http/index.js';
import {
  isPlausibleReplayTime,
  SessionReplayClient,
  type PresignedFile,
  type ReplayRecord,
} from '../../src/replay/index.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

let sandbox: Sandbox;
let transport: Transport;
let client: SessionReplayClient;

beforeAll(async () => {
  sandbox = await startSandbox({ replicas: 12 });
  transport = new Transport({
    endpoint: sandbox.url,
    credentials: sandbox.credentials,
    retry: { baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 50, retries: 4 },
  });
  client = new SessionReplayClient(transport);
});
afterAll(async () => {
  await transport.close();
  await sandbox.close();
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Runs `fn` with a client on a sandbox of its own (options the shared one does not have), then stops both. */
async function withSandbox(
  options: SandboxOptions,
  fn: (sb: Sandbox, c: SessionReplayClient) => Promise<void>,
): Promise<void> {
  const sb = await startSandbox(options);
  const t = new Transport({ endpoint: sb.url, credentials: sb.credentials });
  try {
    await fn(sb, new SessionReplayClient(t));
  } finally {
    await t.close();
    await sb.close();
  }
}

async function bytesOf(f: PresignedFile): Promise<Buffer> {
  const d = await transport.download(f.url);
  const chunks: Buffer[] = [];
  for await (const c of d.body) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

describe('against the sandbox', () => {
  it('lists every replay in both sort orders across small pages', async () => {
    const expected = sandbox.replays().map((r) => r.replayId);
    expect(expected.length).toBeGreaterThan(5);
    const asc: ReplayRecord[] = await collect(client.listReplays({ sortOrder: 'asc', pageSize: 3 }));
    const desc: ReplayRecord[] = await collect(client.listReplays({ sortOrder: 'desc', pageSize: 4 }));
    expect(asc.map((r) => r.replay_id)).toEqual(expected);
    expect(desc.map((r) => r.replay_id)).toEqual([...expected].reverse());
    for (const r of asc) {
      expect(typeof r.start_time).toBe('string');
      expect(r.device_id.length).toBeGreaterThan(0);
    }
  });

  it('lists selected replays by id', async () => {
    const ids = sandbox
      .replays()
      .slice(0, 3)
      .map((r) => r.replayId);
    const got = await collect(client.listReplays({ replayIds: ids }));
    expect(got.map((r) => r.replay_id).sort()).toEqual([...ids].sort());
  });

  it('lists every file of a replay in both versions, and they download as gzip', async () => {
    const r = sandbox.replays()[0]!;
    for (const version of [2, 3] as const) {
      const files = await collect(client.listReplayFiles(r.replayId, { version, pageSize: 1 }));
      expect(files).toHaveLength(r.fileCount[version]);
      const keys = files.map((f) => f.key);
      expect([...keys].sort()).toEqual(keys);
      const body = await bytesOf(files[0]!);
      expect(body[0]).toBe(0x1f);
      expect(body[1]).toBe(0x8b);
      expect(() => gunzipSync(body)).not.toThrow();
    }
  });

  it('retries through rate limits and server errors', async () => {
    sandbox.setFaults({ rateLimitEvery: 2, retryAfterSeconds: 0, serverErrorEvery: 3, serverErrorScope: 'both' });
    try {
      const r = sandbox.replays()[1]!;
      const files = await collect(client.listReplayFiles(r.replayId, { pageSize: 1 }));
      expect(files).toHaveLength(r.fileCount[3]);
      for (const f of files) expect((await bytesOf(f)).length).toBeGreaterThan(0);
    } finally {
      sandbox.setFaults({ rateLimitEvery: 0, serverErrorEvery: 0 });
    }
  });

  it('reports expired URLs as UrlExpiredError, and a fresh page fixes it', async () => {
    const r = sandbox.replays()[0]!;
    const page = await client.getFilesPage(r.replayId);
    sandbox.setFaults({ expireUrls: true });
    try {
      const err = (await transport.download(page.files[0]!.url).catch((e: unknown) => e)) as UrlExpiredError;
      expect(err).toBeInstanceOf(UrlExpiredError);
      expect(err.expired).toBe(true);
      expect(err.message).not.toContain('X-Amz-Signature=');
      const fresh = await client.getFilesPage(r.replayId, { pageToken: page.pageToken });
      expect(fresh.files[0]!.key).toBe(page.files[0]!.key);
      expect((await bytesOf(fresh.files[0]!)).length).toBeGreaterThan(0);
    } finally {
      sandbox.setFaults({ expireUrls: false });
    }
  });

  it('a replay without files yet gives zero files (its first page answers 404)', async () => {
    const id = sandbox.replays().find((r) => r.origin === 'sample')!.replayId;
    await withSandbox({ held: [id] }, async (held, c) => {
      expect(await collect(c.listReplayFiles(id))).toEqual([]);
      expect(await c.getFilesPage(id)).toEqual({ files: [], nextPageToken: null, pageToken: null });
      expect(held.stats().notFound).toBe(2);
      held.releaseHeld(id);
      expect((await collect(c.listReplayFiles(id))).length).toBeGreaterThan(0);
    });
  });

  it('pages through files with keys, page tokens, indexes and the time obtained; (pageToken, index) finds a file again', async () => {
    const r = sandbox.replays().reduce((a, b) => (b.fileCount[3] > a.fileCount[3] ? b : a));
    expect(r.fileCount[3]).toBeGreaterThanOrEqual(3);
    const before = Date.now();
    const files = await collect(client.listReplayFiles(r.replayId, { pageSize: 2 }));
    expect(files).toHaveLength(r.fileCount[3]);
    expect(files.map((f) => f.index)).toEqual(files.map((_, i) => i % 2));
    expect(files.map((f) => f.pageToken === null)).toEqual(files.map((_, i) => i < 2));
    expect(new Set(files.map((f) => f.pageToken)).size).toBe(Math.ceil(files.length / 2));
    for (const f of files) {
      expect(f.key).toBe(decodeURIComponent(new URL(f.url).pathname));
      expect(f.url).toContain('X-Amz-Signature=');
      expect(f.obtainedAt).toBeGreaterThanOrEqual(before);
      const again = await client.getFilesPage(r.replayId, { pageSize: 2, pageToken: f.pageToken });
      expect(again.files[f.index]!.key).toBe(f.key);
    }
  });

  it('re-requesting a page with its token gives fresh URLs for the same files (getFilesPage)', async () => {
    let clock = Date.UTC(2026, 10, 24, 12);
    await withSandbox({ now: () => clock }, async (sb, c) => {
      const id = sb.replays()[0]!.replayId;
      const first = await c.getFilesPage(id, { version: 2, pageSize: 1 });
      const token = first.nextPageToken!;
      // The token holds the replay and version 2: a request without them would be refused (page_token_mismatch).
      const a = await c.getFilesPage(id, { version: 2, pageSize: 1, pageToken: token });
      clock += 1_000;
      const b = await c.getFilesPage(id, { version: 2, pageSize: 1, pageToken: token });
      expect(a.pageToken).toBe(token);
      expect(a.files[0]!.key).not.toBe(first.files[0]!.key);
      expect(b.files[0]!.key).toBe(a.files[0]!.key);
      expect(b.files[0]!.url).not.toBe(a.files[0]!.url);
    });
  });

  it("parses the sandbox's zone-less, 1970 and 2120 timestamps, keeping the originals", async () => {
    await withSandbox({ replicas: 38 }, async (_sb, c) => {
      const got: ReplayRecord[] = await collect(c.listReplays({ pageSize: 200 }));
      const zoneLess = got.filter((r) => !/(Z|[+-]\d{2}:\d{2})$/.test(r.start_time));
      expect(zoneLess).toHaveLength(4); // replicas 4, 14, 24, 34
      for (const r of zoneLess) {
        expect(r.startMs).toBe(Date.parse(`${r.start_time}Z`));
        expect(r.endMs).toBe(Date.parse(`${r.end_time}Z`));
        expect(isPlausibleReplayTime(r.startMs)).toBe(true);
      }
      const absurd = got.filter((r) => /^(1970|2120)-/.test(r.start_time));
      expect(absurd.map((r) => r.start_time.slice(0, 4)).sort()).toEqual(['1970', '2120']);
      for (const r of absurd) {
        expect(r.startMs).toBe(Date.parse(r.start_time));
        expect(isPlausibleReplayTime(r.startMs)).toBe(false);
      }
    });
  });

  describe('read-ahead (the sandbox counts the list requests)', () => {
    async function listed(readAhead: boolean): Promise<{ ids: string[]; requests: number }> {
      const before = sandbox.stats().listRequests;
      const ids = (await collect(client.listReplays({ pageSize: 3 }, { readAhead }))).map((r) => r.replay_id);
      return { ids, requests: sandbox.stats().listRequests - before };
    }

    it('with readAhead the next page is requested before this page is consumed; the same records and requests either way', async () => {
      const before = sandbox.stats().listRequests;
      const it = client.listReplays({ pageSize: 3 }, { readAhead: true })[Symbol.asyncIterator]();
      await it.next();
      // One record of the first page taken: the second page is already on its way.
      await expect.poll(() => sandbox.stats().listRequests - before).toBe(2);
      await it.return?.();
      const plain = await listed(false);
      expect(await listed(true)).toEqual(plain);
      expect(plain.ids).toEqual(
        sandbox
          .replays()
          .map((r) => r.replayId)
          .reverse(),
      );
    });

    it('without it, a consumer that stops within the first page costs no second request', async () => {
      const before = sandbox.stats().listRequests;
      for await (const r of client.listReplays({ pageSize: 3 })) if (r.replay_id) break;
      await new Promise((res) => setTimeout(res, 50));
      expect(sandbox.stats().listRequests - before).toBe(1);
    });
  });

  it('wrong credentials give AuthError naming the host', async () => {
    const t = new Transport({
      endpoint: sandbox.url,
      credentials: { apiKey: sandbox.credentials.apiKey, secretKey: 'wrong-secret' },
    });
    try {
      const err = (await collect(new SessionReplayClient(t).listReplays({})).catch((e: unknown) => e)) as AuthError;
      expect(err).toBeInstanceOf(AuthError);
      expect(err.message).toContain(new URL(sandbox.url).host);
      expect(err.message).not.toContain('wrong-secret');
    } finally {
      await t.close();
    }
  });

  it('validation errors never reach the sandbox', async () => {
    const before = sandbox.stats().apiRequests;
    expect(() => client.listReplays({ replayIds: ['/bad'] })).toThrow(ValidationError);
    await expect(client.getFilesPage('nodevice')).rejects.toBeInstanceOf(ValidationError);
    expect(sandbox.stats().apiRequests).toBe(before);
  });
});
