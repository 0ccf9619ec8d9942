/**
 * An archive run lists 200 replays a page (the API's largest) unless told otherwise. Every replay listed is decided
 * and recorded. Next to none is exported: with a settle window of 50 years nearly every replay is still settling, so
 * that counting the listing requests of 250 replicas costs their listing, not 500 exports.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { archiveReplays } from '../../src/index.js';
import { FAST, SandboxRun } from './helpers.js';

const run = new SandboxRun();
afterEach(run.stop);

const FIFTY_YEARS_MS = 50 * 365 * 86_400_000;

async function listRequests(
  listPageSize: number | undefined,
): Promise<{ requests: number; replays: number; decided: Set<string>; settling: number }> {
  const { sb, dir } = await run.start({ replicas: 250 }, 'replay-export-listing-');
  const decided = new Set<string>();
  let settling = 0;
  for await (const ev of archiveReplays({
    endpoint: sb.url,
    ...sb.credentials,
    ...FAST,
    out: dir,
    settleMs: FIFTY_YEARS_MS,
    ...(listPageSize ? { listPageSize } : {}),
  })) {
    if (ev.type !== 'result') continue;
    decided.add(ev.replayId);
    if (ev.outcome === 'skipped') settling++;
  }
  return { requests: sb.stats().listRequests, replays: sb.replays().length, decided, settling };
}

describe('archive listing', () => {
  test('pages of 200 by default; listPageSize changes it; every replay listed and decided either way', async () => {
    const byDefault = await listRequests(undefined);
    expect(byDefault.replays).toBeGreaterThan(200);
    expect(byDefault.decided.size).toBe(byDefault.replays);
    expect(byDefault.settling).toBeGreaterThan(200);
    expect(byDefault.requests).toBe(Math.ceil(byDefault.replays / 200));
    await run.stop();
    const small = await listRequests(50);
    expect(small.decided.size).toBe(small.replays);
    expect(small.requests).toBe(Math.ceil(small.replays / 50));
  });
});
