/**
 * How the pipeline treats storage answers: a redirect is not transient and fails the file at once (one request); a
 * body too slow to finish within the request deadline is transient, retried within the file's retry budget, then
 * failed. Either way the failure names the file's key.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { exportReplay } from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { FAST, tempDir } from './helpers.js';

let sandbox: Sandbox | undefined;
let work: { dir: string; cleanup: () => Promise<void> } | undefined;
afterEach(async () => {
  await sandbox?.close();
  await work?.cleanup();
  sandbox = work = undefined;
});

describe('storage answers', () => {
  test('a 302 from storage fails that file at once: one request, error naming the key and the status', async () => {
    sandbox = await startSandbox({ faults: { redirectEvery: 1 } });
    work = await tempDir('replay-export-redirect-');
    const r = sandbox.replays()[0]!;
    const entry = await exportReplay(r.replayId, { endpoint: sandbox.url, ...sandbox.credentials, ...FAST, filesAhead: 0, out: work.dir });
    expect(entry.status).toBe('failed');
    expect(entry.error).toMatchObject({ code: 'storage_redirect', status: 302, file_key: expect.stringContaining('/v3/') });
    expect(entry.error!.message).toContain(entry.error!.file_key!);
    expect(entry.error!.message).toContain('302');
    expect(sandbox.stats().storageRequests).toBe(1);
    expect(sandbox.stats().redirects).toBe(1);
  });

  test('a file body at one byte per 50 ms ends at the request deadline, is retried (bounded), then fails naming the key', async () => {
    sandbox = await startSandbox({ faults: { slowBodyMs: 50, slowBodyScope: 'storage' } });
    work = await tempDir('replay-export-slow-');
    const r = sandbox.replays()[0]!;
    const entry = await exportReplay(r.replayId, {
      endpoint: sandbox.url,
      ...sandbox.credentials,
      ...FAST,
      transportOptions: { ...FAST.transportOptions, timeouts: { deadlineMs: 500 } },
      fileRetries: 1,
      filesAhead: 0,
      out: work.dir,
    });
    expect(entry.status).toBe('failed');
    expect(entry.error).toMatchObject({ code: 'timeout', file_key: expect.stringContaining('/v3/') });
    expect(entry.error!.message).toContain('Request deadline (500 ms)');
    expect(sandbox.stats().storageRequests).toBe(2);
  });
});
