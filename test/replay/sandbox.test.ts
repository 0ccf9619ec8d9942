/**
 * The client and the transport against the real sandbox (src/sandbox), which behaves like the platform.
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, Transport, UrlExpiredError, ValidationError } from '../../src/http/index.js';
import { SessionReplayClient, type PresignedFile, type ReplayRecord } from '../../src/replay/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';

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
    const ids = sandbox.replays().slice(0, 3).map((r) => r.replayId);
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

  it('a replay without files yet gives zero files', async () => {
    const id = sandbox.replays().find((r) => r.origin === 'sample')!.replayId;
    const held = await startSandbox({ held: [id] });
    const t = new Transport({ endpoint: held.url, credentials: held.credentials });
    try {
      const c = new SessionReplayClient(t);
      expect(await collect(c.listReplayFiles(id))).toEqual([]);
      held.releaseHeld(id);
      expect((await collect(c.listReplayFiles(id))).length).toBeGreaterThan(0);
    } finally {
      await t.close();
      await held.close();
    }
  });

  it('wrong credentials give AuthError naming the host', async () => {
    const t = new Transport({ endpoint: sandbox.url, credentials: { apiKey: sandbox.credentials.apiKey, secretKey: 'wrong-secret' } });
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
