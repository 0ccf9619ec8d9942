import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  exportReplays,
  ReplayExportError,
  ReplayNotFoundError,
  replayEvents,
  type ArchiveEvent,
} from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { FAST, readManifest, tempDir } from './helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  sandbox = await startSandbox({});
  work = await tempDir('replay-export-notfound-');
});
afterAll(async () => {
  await sandbox.close();
  await work.cleanup();
});

describe('a replay the API does not know', () => {
  test('replayEvents throws ReplayNotFoundError (REPLAY_NOT_FOUND) after one listing request, before any files request', async () => {
    const before = sandbox.stats();
    let caught: unknown;
    try {
      for await (const ev of replayEvents('nope/1', { endpoint: sandbox.url, ...sandbox.credentials, ...FAST }))
        expect(ev).toBeUndefined();
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ReplayNotFoundError);
    expect(caught).toBeInstanceOf(ReplayExportError);
    expect(caught).toMatchObject({ code: 'REPLAY_NOT_FOUND', category: 'data', replayId: 'nope/1' });
    const after = sandbox.stats();
    expect(after.listRequests - before.listRequests).toBe(1);
    expect(after.filesRequests - before.filesRequests).toBe(0);
  });

  test('a known replay still streams (the lookup does not get in the way)', async () => {
    const id = sandbox.replays()[0]!.replayId;
    let n = 0;
    for await (const _ of replayEvents(id, { endpoint: sandbox.url, ...sandbox.credentials, ...FAST })) n++;
    expect(n).toBeGreaterThan(0);
  });

  test('exportReplays records it not_found, writes no output, and exports the known one beside it', async () => {
    const out = `${work.dir}/nf`;
    const known = sandbox.replays()[1]!.replayId;
    const results: ArchiveEvent[] = [];
    for await (const ev of exportReplays(['gone-device/1795308171251', known], {
      endpoint: sandbox.url,
      ...sandbox.credentials,
      ...FAST,
      out,
    })) {
      if (ev.type === 'result') results.push(ev);
    }
    expect(results.map((r) => r.type === 'result' && [r.replayId, r.outcome]).sort()).toEqual(
      [
        ['gone-device/1795308171251', 'not_found'],
        [known, 'ok'],
      ].sort(),
    );
    const manifest = await readManifest(out);
    const line = manifest.find((l) => l.replay_id === 'gone-device/1795308171251');
    expect(line).toMatchObject({ status: 'not_found', error: { code: 'REPLAY_NOT_FOUND' } });
    const { readdir } = await import('node:fs/promises');
    expect((await readdir(out)).sort()).toEqual([known.split('/')[0], 'manifest.ndjson'].sort());
  });
});
