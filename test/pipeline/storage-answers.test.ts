/**
 * How the pipeline treats storage answers: a redirect is not transient and fails the file at once (one request); a
 * body too slow to finish within the request deadline is transient, retried within the file's retry budget, then
 * failed. Either way the failure names the file's key.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { exportReplay } from '../../src/index.js';
import { FAST, SandboxRun } from './helpers.js';
import type { LooseEntry } from '../sinks/helpers/entries.js';

const run = new SandboxRun();
afterEach(run.stop);

describe('storage answers', () => {
  test('a 302 from storage fails that file at once: one request, error naming the key and the status', async () => {
    const { sb: sandbox, dir } = await run.start({ faults: { redirectEvery: 1 } }, 'replay-export-redirect-');
    const r = sandbox.replays()[0]!;
    const entry: LooseEntry = await exportReplay(r.replayId, {
      endpoint: sandbox.url,
      ...sandbox.credentials,
      ...FAST,
      filesAhead: 0,
      out: dir,
    });
    expect(entry.status).toBe('failed');
    expect(entry.error).toMatchObject({
      code: 'STORAGE_REDIRECT',
      status: 302,
      file_key: expect.stringContaining('/v3/'),
    });
    expect(entry.error!.message).toContain(entry.error!.file_key!);
    expect(entry.error!.message).toContain('302');
    expect(sandbox.stats().storageRequests).toBe(1);
    expect(sandbox.stats().redirects).toBe(1);
  });

  test('a file body at one byte per 50 ms ends at the request deadline, is retried (bounded), then fails naming the key', async () => {
    const { sb: sandbox, dir } = await run.start(
      { faults: { slowBodyMs: 50, slowBodyScope: 'storage' } },
      'replay-export-slow-',
    );
    const r = sandbox.replays()[0]!;
    const entry: LooseEntry = await exportReplay(r.replayId, {
      endpoint: sandbox.url,
      ...sandbox.credentials,
      ...FAST,
      transportOptions: { ...FAST.transportOptions, timeouts: { deadlineMs: 500 } },
      fileRetries: 1,
      filesAhead: 0,
      out: dir,
    });
    expect(entry.status).toBe('failed');
    expect(entry.error).toMatchObject({ code: 'TIMEOUT', file_key: expect.stringContaining('/v3/') });
    expect(entry.error!.message).toContain('Request deadline (500 ms)');
    expect(sandbox.stats().storageRequests).toBe(2);
  });
});
