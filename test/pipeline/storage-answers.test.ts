/**
 * How the pipeline treats storage answers that are not transient: a redirect fails the file at once (one request),
 * recorded with the file's key and the status.
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
});
