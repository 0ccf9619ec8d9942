/**
 * The request deadline against the sandbox: a response that keeps trickling (one byte every 50 ms, so the idle body
 * timeout never fires) or whose headers come late ends at the deadline with a TimeoutError (phase `deadline`),
 * retried like the other timeouts and bounded by the retry budget.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TimeoutError, Transport } from '../../src/http/index.js';
import { SessionReplayClient } from '../../src/replay/index.js';
import { errorOf, startRig, stopRig } from './sandbox-rig.js';

afterEach(stopRig);

const RETRY = { baseDelayMs: 5, maxDelayMs: 20 };

describe('request deadline', () => {
  it('a list response at one byte per 50 ms ends at the deadline, after the retries', async () => {
    const { sb, transport } = await startRig(
      { slowBodyMs: 50, slowBodyScope: 'api' },
      { timeouts: { deadlineMs: 500 }, retry: { ...RETRY, retries: 1 } },
    );
    const err = await errorOf(new SessionReplayClient(transport).listReplays({}));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({
      phase: 'deadline',
      timeoutMs: 500,
      retries: 1,
      path: expect.stringContaining('/api/1/session-replays'),
    });
    expect((err as Error).message).toContain('deadline (500 ms)');
    expect(sb.stats().listRequests).toBe(2);
  });

  it('late headers end at the deadline too', async () => {
    const { transport } = await startRig(
      { latencyMs: 3000 },
      { timeouts: { deadlineMs: 300 }, retry: { ...RETRY, retries: 0 } },
    );
    await expect(new SessionReplayClient(transport).getReplaysPage({})).rejects.toMatchObject({
      name: 'TimeoutError',
      phase: 'deadline',
    });
  });

  it('a download body at one byte per 50 ms ends at the deadline with an error naming the object key', async () => {
    const { sb, transport: t } = await startRig(
      { slowBodyMs: 50, slowBodyScope: 'storage' },
      { timeouts: { deadlineMs: 500 }, retry: RETRY },
    );
    const page = await new SessionReplayClient(t).getFilesPage(sb.replays()[0]!.replayId);
    const file = page.files[0]!;
    const err = await errorOf((await t.download(file.url)).body);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ phase: 'deadline', key: file.key });
    expect((err as Error).message).toContain(file.key);
    expect((err as Error).message).not.toContain(new URL(file.url).searchParams.get('X-Amz-Signature')!);
    // The slot is given back: another download of the family can start (and is cut at its own deadline).
    expect(t.active('storage')).toBe(0);
  });

  it('the default is 5 minutes; a deadline must be a positive integer', () => {
    expect(new Transport({}).options.timeouts.deadlineMs).toBe(300_000);
    expect(() => new Transport({ timeouts: { deadlineMs: 0 } })).toThrow(/deadlineMs/);
  });
});
