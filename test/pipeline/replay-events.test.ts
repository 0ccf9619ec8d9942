import { afterEach, describe, expect, test } from 'vitest';
import { exportReplays, replayEvents, ValidationError, type ReplayNotice } from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { FAST, readJson } from './helpers.js';
import { systemClock } from '../../src/util/clock.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function collect(
  replayId: string,
  sb: Sandbox,
  extra: Parameters<typeof replayEvents>[1] = {},
): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const ev of replayEvents(replayId, { endpoint: sb.url, ...sb.credentials, ...FAST, ...extra }))
    out.push(ev);
  return out;
}

describe('replayEvents (library) against the sandbox', () => {
  test('every sample replay, version 3 and version 2, decodes to its recording, in order', async () => {
    sandbox = await startSandbox({});
    for (const r of sandbox.replays()) {
      const want = await readJson(r.expectedPath);
      expect(await collect(r.replayId, sandbox, { fileVersion: 3, filesPageSize: 1 })).toEqual(want);
      expect(await collect(r.replayId, sandbox, { fileVersion: 2 })).toEqual(want);
    }
  });

  test('ordering holds with prefetch while latency, 429, 5xx and resets hit the files', async () => {
    sandbox = await startSandbox({
      faults: { latencyMs: 15, rateLimitEvery: 5, retryAfterSeconds: 0, serverErrorEvery: 4, resetEvery: 3 },
    });
    const notices: ReplayNotice[] = [];
    for (const r of sandbox.replays()) {
      const got = await collect(r.replayId, sandbox, {
        filesPageSize: 1,
        filesAhead: 3,
        onNotice: (n) => notices.push(n),
      });
      expect(got).toEqual(await readJson(r.expectedPath));
    }
    expect(sandbox.stats().resets).toBeGreaterThan(0);
    expect(notices.some((n) => n.kind === 'retry')).toBe(true);
  });

  test('URLs that age past their validity are refreshed before use (page re-requested by its token)', async () => {
    sandbox = await startSandbox({});
    const r = sandbox.replays().find((x) => x.fileCount[3] >= 3)!;
    // A clock that runs 5 minutes per reading: every URL looks older than 15 min − 2 min before it is used.
    let fake = Date.now();
    const clock = { ...systemClock, now: (): number => (fake += 5 * 60_000) };
    const notices: ReplayNotice[] = [];
    const got = await collect(r.replayId, sandbox, { filesPageSize: 1, clock, onNotice: (n) => notices.push(n) });
    expect(got).toEqual(await readJson(r.expectedPath));
    const aged = notices.filter((n) => n.kind === 'url-refresh' && n.reason === 'aged');
    expect(aged.length).toBeGreaterThan(0);
    // One files request per page to list, plus the refreshes.
    expect(sandbox.stats().filesRequests).toBeGreaterThan(r.fileCount[3]);
  });

  test('URLs expiring mid-replay (storage 403) are refreshed and the same file resumes; nothing duplicated', async () => {
    sandbox = await startSandbox({});
    const sb = sandbox;
    const r = sb.replays().find((x) => x.fileCount[3] >= 3)!;
    const notices: ReplayNotice[] = [];
    let expired = false;
    // Two files a page, one at a time: the second file's URL was issued with the first, before the expiry.
    const got = await collect(r.replayId, sb, {
      filesPageSize: 2,
      filesAhead: 0,
      onNotice: (n) => {
        notices.push(n);
        // After the first file is written, every URL issued so far stops working.
        if (n.kind === 'file-done' && !expired) {
          expired = true;
          sb.setFaults({ expireUrls: true });
        }
      },
    });
    expect(got).toEqual(await readJson(r.expectedPath));
    expect(sb.stats().expired).toBeGreaterThan(0);
    expect(notices.filter((n) => n.kind === 'url-refresh' && n.reason === 'refused').length).toBeGreaterThan(0);
  });

  test('a corrupt file throws a ReplayFailedError (category data) naming the file', async () => {
    sandbox = await startSandbox({});
    const r = sandbox.replays()[0]!;
    sandbox.setFaults({ corruptFiles: [r.replayId], corruptKind: 'garbage-json' });
    await expect(collect(r.replayId, sandbox)).rejects.toMatchObject({
      name: 'ReplayFailedError',
      category: 'data',
      fileKey: expect.stringContaining('/v3/'),
    });
  });

  test('a replay id holding a lone surrogate is a ValidationError naming replay_id, and nothing is requested', async () => {
    sandbox = await startSandbox({});
    const id = `${sandbox.replays()[0]!.replayId}\ud800`;
    const err = await collect(id, sandbox).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ field: 'replay_id' });
    await expect(
      exportReplays([id], { endpoint: sandbox.url, ...sandbox.credentials, out: '/nonexistent' }).next(),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(sandbox.stats().apiRequests).toBe(0);
  });
});
