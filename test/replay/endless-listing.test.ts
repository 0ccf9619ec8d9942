/**
 * Listings that never end: the sandbox's `endlessPages` switch answers every page with the first page's records and
 * a new page token. The client stops after `stallPages` pages in a row without a new record, with its own error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ListingStalledError, SessionReplayClient } from '../../src/replay/index.js';
import { archiveReplays } from '../../src/index.js';
import { FAST, tempDir } from '../pipeline/helpers.js';
import { errorOf, startRig, stopRig, type Rig } from './sandbox-rig.js';

afterEach(stopRig);

async function setup(
  endlessPages: 'list' | 'files',
  stallPages?: number,
): Promise<Rig & { client: SessionReplayClient }> {
  const rig = await startRig({ endlessPages });
  return { ...rig, client: new SessionReplayClient(rig.transport, stallPages !== undefined ? { stallPages } : {}) };
}

describe('a listing that brings no new record', () => {
  it('replays: stops after 3 pages in a row with no new replay id (4 requests), naming the listing', async () => {
    const { sb, client } = await setup('list');
    const err = await errorOf(client.listReplays({ pageSize: 2 }));
    expect(err).toBeInstanceOf(ListingStalledError);
    expect(err).toMatchObject({ code: 'LISTING_STALLED', listing: '/api/1/session-replays', pages: 3 });
    expect((err as Error).message).toContain('3 pages');
    expect(sb.stats().listRequests).toBe(4);
  });

  it('files: stops after 3 pages in a row with no new file key, naming the listing and the replay', async () => {
    const { sb, client } = await setup('files');
    const id = sb.replays()[0]!.replayId;
    const err = await errorOf(client.listReplayFiles(id, { pageSize: 1 }));
    expect(err).toBeInstanceOf(ListingStalledError);
    expect(err).toMatchObject({ listing: '/api/1/session-replays/files', pages: 3 });
    expect((err as Error).message).toContain(id);
    expect(sb.stats().filesRequests).toBe(4);
  });

  it('the limit is configurable', async () => {
    const { sb, transport, client } = await setup('files', 1);
    const err = await errorOf(client.listReplayFiles(sb.replays()[0]!.replayId, { pageSize: 2 }));
    expect(err).toMatchObject({ name: 'ListingStalledError', pages: 1 });
    expect(sb.stats().filesRequests).toBe(2);
    expect(() => new SessionReplayClient(transport, { stallPages: 0 })).toThrow(/stallPages/);
  });

  it('archive: an endless files listing fails each replay alone; an endless replay listing ends the run', async () => {
    const { sb } = await startRig({ endlessPages: 'files' });
    const work = await tempDir('replay-export-endless-');
    try {
      const base = { endpoint: sb.url, ...sb.credentials, ...FAST, out: work.dir, settleMs: 0, filesPageSize: 1 };
      const results: { outcome: string; code?: string }[] = [];
      for await (const ev of archiveReplays(base)) {
        if (ev.type === 'result')
          results.push({
            outcome: ev.outcome,
            ...(ev.entry?.status === 'failed' ? { code: ev.entry.error.code } : {}),
          });
      }
      expect(results).toHaveLength(sb.replays().length);
      expect(results.every((r) => r.outcome === 'failed' && r.code === 'LISTING_STALLED')).toBe(true);
      expect(sb.stats().filesRequests).toBe(4 * sb.replays().length);
      // The listing is complete before any download starts.
      expect(sb.stats().storageRequests).toBe(0);

      sb.setFaults({ endlessPages: 'list' });
      const before = sb.stats().listRequests;
      const err = await errorOf(archiveReplays({ ...base, listPageSize: 2, listingStallPages: 2 }));
      expect(err).toBeInstanceOf(ListingStalledError);
      expect(sb.stats().listRequests - before).toBe(3);
    } finally {
      await work.cleanup();
    }
  });
});
