/**
 * The files listing is not trusted as returned: files come out in key order whatever order the API lists them in,
 * a key listed twice is taken once with a warning, and an absurdly long listing fails the replay before any download.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { archiveReplays, exportReplay, replayEvents, type ReplayNotice } from '../../src/index.js';
import { FAST, readJson, readOutput, SandboxRun } from './helpers.js';
import type { LooseEntry } from '../sinks/helpers/entries.js';

const run = new SandboxRun();
afterEach(run.stop);
const SHUFFLED = { faults: { filesOrder: 'reversed', duplicateFiles: true } } as const;

describe('files listed out of order and with a duplicate key', () => {
  test('events come out in key order, each file once; the duplicate is reported', async () => {
    const { sb } = await run.start(SHUFFLED, 'replay-export-events-');
    const r = sb.replays().find((x) => x.fileCount[3] >= 3)!;
    const conn = { endpoint: sb.url, ...sb.credentials, ...FAST };
    for (const pageSize of [2, 100]) {
      const notices: ReplayNotice[] = [];
      const got: unknown[] = [];
      for await (const ev of replayEvents(r.replayId, {
        ...conn,
        filesPageSize: pageSize,
        onNotice: (n) => notices.push(n),
      }))
        got.push(ev);
      expect(got).toEqual(await readJson(r.expectedPath));
      const dups = notices.filter((n) => n.kind === 'duplicate-file');
      // Each page lists its first file twice.
      expect(dups).toHaveLength(Math.ceil(r.fileCount[3] / pageSize));
      expect(dups.every((n) => n.replayId === r.replayId && n.fileKey.includes('/v3/'))).toBe(true);
    }
  });

  test('export: the output is in key order, the manifest lists each key once, in order', async () => {
    const { sb, dir } = await run.start(SHUFFLED, 'replay-export-order-');
    const r = sb.replays().find((x) => x.fileCount[3] >= 3)!;
    const entry: LooseEntry = await exportReplay(r.replayId, {
      endpoint: sb.url,
      ...sb.credentials,
      ...FAST,
      out: dir,
    });
    expect(entry.status).toBe('ok');
    expect(await readOutput(join(dir, entry.key!))).toEqual(await readJson(r.expectedPath));
    const keys = entry.file_keys!;
    expect(keys).toHaveLength(r.fileCount[3]);
    expect(keys).toEqual([...new Set(keys)].sort());
    expect(entry.file_versions).toHaveLength(keys.length);
  });

  test('a re-check lists the files the same way: the replay is unchanged', async () => {
    const { sb, dir } = await run.start(SHUFFLED, 'replay-export-recheck-');
    const o = {
      endpoint: sb.url,
      ...sb.credentials,
      ...FAST,
      out: dir,
      settleMs: 0,
      recheckMs: 100 * 365 * 86_400_000,
    };
    const outcomes = async (): Promise<string[]> => {
      const got: string[] = [];
      for await (const ev of archiveReplays(o)) if (ev.type === 'result') got.push(ev.outcome);
      return got;
    };
    expect(new Set(await outcomes())).toEqual(new Set(['ok']));
    expect(new Set(await outcomes())).toEqual(new Set(['unchanged']));
  });
});

describe('a replay with too many files', () => {
  test('fails with TOO_MANY_FILES naming the limit, while listing, before any download', async () => {
    const { sb: sandbox, dir } = await run.start({}, 'replay-export-many-');
    const r = sandbox.replays().find((x) => x.fileCount[3] >= 3)!;
    const entry: LooseEntry = await exportReplay(r.replayId, {
      endpoint: sandbox.url,
      ...sandbox.credentials,
      ...FAST,
      maxFilesPerReplay: 2,
      filesPageSize: 1,
      out: dir,
    });
    expect(entry.status).toBe('failed');
    expect(entry.error).toMatchObject({ code: 'TOO_MANY_FILES' });
    expect(entry.error!.message).toContain('more than 2 files');
    expect(entry.error!.message).toContain(r.replayId);
    // The listing stopped at the third file: three pages of one, nothing downloaded.
    expect(sandbox.stats().filesRequests).toBe(3);
    expect(sandbox.stats().storageRequests).toBe(0);
  });
});
