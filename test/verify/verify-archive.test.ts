/**
 * `verifyArchive` on a folder written by the local sink, with a manifest of thousands of entries (several per replay,
 * in any order): only each replay's last entry is its state, every id is counted once, and a caller that stops early
 * or aborts ends the check (the summary says it was stopped).
 */
import { appendFile, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createLocalSink } from '../../sinks/local.js';
import type { OkEntry } from '../../sinks/sink.js';
import { ConfigError, InterruptedError } from '../../src/errors.js';
import { ReplayChecks } from '../../src/pipeline/checks.js';
import { verifyArchive, type VerifyProblem } from '../../src/verify/verify-archive.js';
import { tempDir } from '../pipeline/helpers.js';

let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('replay-export-verify-lib-');
});
afterEach(async () => work.cleanup());

const REPLAYS = 5;
const BULK = 3000;

/** `REPLAYS` replays written by the local sink, then `BULK` ids recorded skipped, half of them failed later. */
async function archive(dir: string): Promise<OkEntry[]> {
  const sink = createLocalSink(dir, { hashWorker: false });
  const entries: OkEntry[] = [];
  for (let i = 0; i < REPLAYS; i++) {
    const replayId = `device-${i}/${1795308171251 + i}`;
    const events = [
      Buffer.from(`{"type":4,"data":{"href":"https://example.test/","width":1,"height":1},"timestamp":${1000 + i}}`),
      Buffer.from(`{"type":2,"data":{},"timestamp":${1100 + i}}`),
      Buffer.from(`{"type":3,"data":{"source":1},"timestamp":${1500 + 7 * i}}`),
    ];
    const checks = new ReplayChecks();
    checks.observe(events);
    const writer = await sink.open(replayId, { format: 'json', gzip: false });
    await writer.write(events);
    const done = await writer.commit();
    const entry: OkEntry = {
      replay_id: replayId,
      status: 'ok',
      key: done.key,
      event_count: done.eventCount,
      bytes: done.bytes,
      sha256: done.sha256,
      checks: checks.result(),
      format: 'json',
      gzip: false,
      file_versions: [1],
      file_keys: [`f/${i}`],
      recorded_at: new Date().toISOString(),
    };
    await sink.appendManifest(entry);
    entries.push(entry);
  }
  await sink.close();
  const lines: string[] = [];
  const at = new Date().toISOString();
  for (let i = 0; i < BULK; i++)
    lines.push(JSON.stringify({ replay_id: `bulk/${i}`, status: 'skipped', reason: 'settling', recorded_at: at }));
  for (let i = 0; i < BULK; i += 2)
    lines.push(JSON.stringify({ replay_id: `bulk/${i}`, status: 'failed', recorded_at: at }));
  // The first replay's last state: failed (its object stays, named by its earlier ok entry).
  lines.push(JSON.stringify({ replay_id: entries[0]!.replay_id, status: 'failed', recorded_at: at }));
  await appendFile(join(dir, 'manifest.ndjson'), lines.join('\n') + '\n');
  return entries;
}

async function drain(it: AsyncIterable<VerifyProblem>): Promise<VerifyProblem[]> {
  const out: VerifyProblem[] = [];
  for await (const p of it) out.push(p);
  return out;
}

describe('verifyArchive', () => {
  test('thousands of entries: each replay counted once, only last entries verified', async () => {
    await archive(work.dir);
    const verification = verifyArchive({ out: work.dir, concurrency: 2 });
    expect(await drain(verification)).toEqual([]);
    expect(await verification.summary).toMatchObject({
      target: work.dir,
      entries: REPLAYS + BULK + BULK / 2 + 1,
      replays: REPLAYS + BULK,
      verified: REPLAYS - 1,
      intact: REPLAYS - 1,
      notOk: BULK + 1,
      stored: REPLAYS,
      problems: 0,
      events: 3 * (REPLAYS - 1),
    });
    expect(() => verification[Symbol.asyncIterator]()).toThrow(/iterated once/);
  });

  test('a damaged replay whose last state is not ok is not verified; one that is, is', async () => {
    const entries = await archive(work.dir);
    await rm(join(work.dir, entries[0]!.key!));
    await rm(join(work.dir, entries[1]!.key!));
    const verification = verifyArchive({ out: work.dir });
    expect(await drain(verification)).toEqual([
      expect.objectContaining({ kind: 'missing', replayId: entries[1]!.replay_id, key: entries[1]!.key }),
    ]);
    expect((await verification.summary).byKind).toMatchObject({ missing: 1, orphan: 0 });
  });

  test('an object that is a symbolic link is unreadable and not followed; a bad concurrency is a usage error', async () => {
    const entries = await archive(work.dir);
    const outside = join(work.dir, '..', `${basename(work.dir)}-outside.json`);
    await writeFile(outside, 'not the replay');
    try {
      await rm(join(work.dir, entries[2]!.key!));
      await symlink(outside, join(work.dir, entries[2]!.key!));
      const verification = verifyArchive({ out: work.dir });
      expect(await drain(verification)).toEqual([
        expect.objectContaining({
          kind: 'unreadable',
          replayId: entries[2]!.replay_id,
          message: expect.stringContaining('it is a symbolic link'),
        }),
      ]);
    } finally {
      await rm(outside);
    }
    expect(() => verifyArchive({ out: work.dir, concurrency: 0 })).toThrow(ConfigError);
  });

  test('entries appended while the check runs are reported as a changed manifest', async () => {
    const entries = await archive(work.dir);
    await rm(join(work.dir, entries[1]!.key!));
    const verification = verifyArchive({ out: work.dir, concurrency: 1 });
    const found: VerifyProblem[] = [];
    for await (const p of verification) {
      // The first problem comes while the second pass has read only the start of the manifest (~250 KB).
      if (found.length === 0) {
        const at = new Date().toISOString();
        await appendFile(
          join(work.dir, 'manifest.ndjson'),
          `${JSON.stringify({ replay_id: 'late/1', status: 'skipped', recorded_at: at })}\n`,
        );
      }
      found.push(p);
    }
    expect(found.map((p) => p.kind)).toEqual(['missing', 'manifest_changed']);
    const entriesRead = REPLAYS + BULK + BULK / 2 + 1;
    expect(found[1]).toMatchObject({ expected: entriesRead, actual: entriesRead + 1 });
  });

  test('stopping early or aborting ends the check; the summary says it was stopped', async () => {
    const entries = await archive(work.dir);
    for (const e of entries.slice(1)) await rm(join(work.dir, e.key!));
    const early = verifyArchive({ out: work.dir, concurrency: 1 });
    for await (const p of early) {
      expect(p.kind).toBe('missing');
      break;
    }
    await expect(early.summary).rejects.toBeInstanceOf(InterruptedError);

    const controller = new AbortController();
    controller.abort(new InterruptedError());
    const aborted = verifyArchive({ out: work.dir, signal: controller.signal });
    await expect(drain(aborted)).rejects.toBeInstanceOf(InterruptedError);
    await expect(aborted.summary).rejects.toBeInstanceOf(InterruptedError);
  });
});
