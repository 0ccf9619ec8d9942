/** An archive run lists 200 replays a page (the API's largest) unless told otherwise. */
import { afterEach, describe, expect, test } from 'vitest';
import { archiveReplays } from '../../src/index.js';
import { FAST, SandboxRun } from './helpers.js';

const run = new SandboxRun();
afterEach(run.stop);

async function listRequests(
  listPageSize: number | undefined,
): Promise<{ requests: number; replays: number; ok: number }> {
  const { sb, dir } = await run.start({ replicas: 250 }, 'replay-export-listing-');
  let ok = 0;
  for await (const ev of archiveReplays({
    endpoint: sb.url,
    ...sb.credentials,
    ...FAST,
    out: dir,
    settleMs: 0,
    ...(listPageSize ? { listPageSize } : {}),
  })) {
    if (ev.type === 'result' && ev.outcome === 'ok') ok++;
  }
  return { requests: sb.stats().listRequests, replays: sb.replays().length, ok };
}

describe('archive listing', () => {
  test('pages of 200 by default; listPageSize changes it; every replay exported either way', async () => {
    const byDefault = await listRequests(undefined);
    expect(byDefault.ok).toBe(byDefault.replays);
    expect(byDefault.requests).toBe(Math.ceil(byDefault.replays / 200));
    await run.stop();
    const small = await listRequests(50);
    expect(small.ok).toBe(small.replays);
    expect(small.requests).toBe(Math.ceil(small.replays / 50));
  });
});
