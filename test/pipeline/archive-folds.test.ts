/** An archive run folds its manifest while it grows and at its end; `compactManifest: false` leaves the log alone. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { archiveReplays, type ArchiveEvent } from '../../src/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { FAST, lastById, readManifest, SandboxRun } from './helpers.js';

const sandbox = new SandboxRun();
let sb: Sandbox;
let work: { dir: string };
beforeAll(async () => {
  const started = await sandbox.start({ replicas: 12 }, 'replay-export-folds-');
  sb = started.sb;
  work = { dir: started.dir };
});
afterAll(sandbox.stop);

async function run(out: string, options: Record<string, unknown>): Promise<ArchiveEvent[]> {
  const events: ArchiveEvent[] = [];
  for await (const ev of archiveReplays({
    endpoint: sb.url,
    ...sb.credentials,
    ...FAST,
    out,
    settleMs: 0,
    concurrency: 2,
    ...options,
  }))
    events.push(ev);
  return events;
}

describe('manifest folds in an archive run', () => {
  test('every compactEvery lines during the run and once at its end: the state is every replay ok', async () => {
    const out = join(work.dir, 'folds');
    const events = await run(out, { compactEvery: 5 });
    const folds = events.filter((e): e is Extract<ArchiveEvent, { type: 'compacted' }> => e.type === 'compacted');
    const n = sb.replays().length;
    // 5 lines, then 5 more (at least as many as read at the start: none), then the end.
    expect(folds.length).toBeGreaterThanOrEqual(2);
    expect(folds.at(-1)!.result.entries).toBe(n);
    expect(await readdir(join(out, '_manifest'))).toEqual(['snapshot.ndjson']);
    const state = lastById(await readManifest(out));
    expect(state.size).toBe(n);
    for (const e of state.values()) expect(e.status).toBe('ok');
    // A second run has nothing to record and nothing to fold.
    const again = await run(out, { compactEvery: 5 });
    expect(again.filter((e) => e.type === 'compacted')).toEqual([]);
    expect(again.filter((e) => e.type === 'result' && e.outcome === 'done-before')).toHaveLength(n);
  });

  test('compactManifest: false keeps the plain log', async () => {
    const out = join(work.dir, 'no-fold');
    const events = await run(out, { compactManifest: false });
    expect(events.filter((e) => e.type === 'compacted')).toEqual([]);
    expect((await readdir(out)).filter((f) => f.includes('manifest'))).toEqual(['manifest.ndjson']);
  });
});
