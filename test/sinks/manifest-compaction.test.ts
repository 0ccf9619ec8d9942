/**
 * Folding a local manifest into its snapshot: the state read is the same before, during and after; appends of other
 * processes during a fold are never lost; a process killed at any moment of a fold loses nothing.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SinkError } from '../../sinks/errors.js';
import { createLocalSink } from '../../sinks/local.js';
import type { ManifestEntry } from '../../sinks/sink.js';
import { entry, killFoldAfter, spawnFold, stateOfSink, STATUSES, timeFold, type FoldChild } from './manifest-folds.js';
import type { LooseEntry } from '../sinks/helpers/entries.js';

/** Files under `dir` this process holds open (Linux: /proc/self/fd; elsewhere none are seen). */
async function openFilesUnder(dir: string): Promise<string[]> {
  const fds = await readdir('/proc/self/fd').catch(() => [] as string[]);
  const paths = await Promise.all(fds.map((fd) => readlink(join('/proc/self/fd', fd)).catch(() => '')));
  return paths.filter((p) => p.startsWith(dir + '/'));
}

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'compaction-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** The state a target's manifest reads as: the last entry of each replay (what every run decides from). */
const stateOf = (dir: string): Promise<Map<string, ManifestEntry>> => stateOfSink(createLocalSink(dir));

async function files(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map((p) => p.split('\\').join('/')).sort();
}

describe('local manifest compaction', () => {
  test('folds the log into the snapshot: same state, one line per replay, the log gone; later lines fold on top', async () => {
    const dir = await mkdtemp(join(base, 'fold-'));
    const sink = createLocalSink(dir);
    let t = 0;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 40; i++) await sink.appendManifest(entry(`d/${i}`, STATUSES[(i + round) % 3]!, t++));
    }
    const before = await stateOf(dir);
    expect(before.size).toBe(40);
    const result = await sink.compactManifest!({ layout: 'all' });
    expect(result).toEqual({ compacted: true, entries: 40, folded: 120, removed: 1 });
    expect(await files(dir)).toEqual(['_manifest', '_manifest/snapshot.ndjson']);
    expect(await stateOf(dir)).toEqual(before);
    const lines = (await readFile(join(dir, '_manifest', 'snapshot.ndjson'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(40);

    // New lines after the fold: a new log; the next fold keeps the snapshot's other replays as they were.
    for (let i = 30; i < 50; i++) await sink.appendManifest(entry(`d/${i}`, 'ok', t++, { key: `k${i}` }));
    const after = await stateOf(dir);
    expect(after.size).toBe(50);
    expect(after.get('d/35')).toMatchObject({ status: 'ok', key: 'k35' });
    expect(after.get('d/5')).toEqual(before.get('d/5'));
    expect(await sink.compactManifest!({ layout: 'all' })).toEqual({
      compacted: true,
      entries: 50,
      folded: 20,
      removed: 1,
    });
    expect(await stateOf(dir)).toEqual(after);
    // Nothing appended since: nothing to fold, nothing written.
    expect((await sink.compactManifest!({ layout: 'all' })).compacted).toBe(false);
    await sink.close();
  });

  test('appends of another process while it folds are never lost (the log renamed under an open writer)', async () => {
    const dir = await mkdtemp(join(base, 'concurrent-'));
    const writer = createLocalSink(dir);
    const folder = createLocalSink(dir);
    const N = 1500;
    let writing = true;
    const appends = (async () => {
      for (let i = 0; i < N; i++)
        await writer.appendManifest(entry(`w/${i % 500}`, i < 1000 ? 'failed' : 'ok', i, { event_count: i }));
      writing = false;
    })();
    let folds = 0;
    while (writing) {
      if ((await folder.compactManifest!({ layout: 'all' })).compacted) folds++;
    }
    await appends;
    expect(folds).toBeGreaterThan(2);
    const state = await stateOf(dir);
    expect(state.size).toBe(500);
    for (let id = 0; id < 500; id++)
      expect(state.get(`w/${id}`)).toMatchObject({ status: 'ok', event_count: 1000 + id });
    await folder.compactManifest!({ layout: 'all' });
    expect(await stateOf(dir)).toEqual(state);
    await Promise.all([writer.close(), folder.close()]);
  });

  test('one sink folding while it appends (a fold during a run): no append fails, no line is lost', async () => {
    const dir = await mkdtemp(join(base, 'same-sink-'));
    const sink = createLocalSink(dir);
    let writing = true;
    const appends = (async () => {
      // Several appends in flight at once, as a run's workers make them.
      for (let i = 0; i < 1200; i += 6) {
        await Promise.all(
          Array.from({ length: 6 }, (_, k) =>
            sink.appendManifest(entry(`s/${(i + k) % 300}`, 'ok', i + k, { event_count: i + k })),
          ),
        );
      }
      writing = false;
    })();
    let folds = 0;
    while (writing) if ((await sink.compactManifest!({ layout: 'all' })).compacted) folds++;
    await appends;
    expect(folds).toBeGreaterThan(2);
    const state = await stateOf(dir);
    expect(state.size).toBe(300);
    for (let id = 0; id < 300; id++)
      expect((state.get(`s/${id}`) as LooseEntry | undefined)?.event_count).toBe(900 + id);
    await sink.close();
  });

  test('a process killed at any moment of a fold loses nothing; the next fold takes its lock over at once', async () => {
    const dir = await mkdtemp(join(base, 'kill-'));
    // 60,000 lines over 20,000 replays, written as runs would have left them.
    await mkdir(dir, { recursive: true });
    const out = createWriteStream(join(dir, 'manifest.ndjson'));
    for (let i = 0; i < 60_000; i++) {
      const e = entry(`k/${i % 20_000}`, STATUSES[Math.floor(i / 20_000)]!, i, { file_keys: [`f-${i}-a`, `f-${i}-b`] });
      if (!out.write(JSON.stringify(e) + '\n')) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const expected = await stateOf(dir);
    expect(expected.size).toBe(20_000);

    const fold = (): FoldChild => spawnFold('createLocalSink(process.argv[1])', [dir]);
    const staleLock = async (): Promise<void> => {
      const old = new Date(Date.now() - 11 * 60_000);
      await utimes(join(dir, '_manifest', 'compact.lock'), old, old).catch(() => undefined);
    };

    const sink = createLocalSink(dir);
    let at = 200_000;
    /** Lines of a later run: every fold below has work to do. */
    const more = async (): Promise<void> => {
      for (let i = 0; i < 300; i++) {
        const e = entry(`k/${(at * 7) % 20_000}`, 'ok', at++, { key: `late-${at}` });
        await sink.appendManifest(e);
        expected.set(e.replay_id, e);
      }
    };
    expect(await fold().done).toBe(0);
    expect(await stateOf(dir)).toEqual(expected);
    // A fold like the killed ones below, timed; the kills are spread over that time.
    await more();
    const took = await timeFold(fold());
    expect(await stateOf(dir)).toEqual(expected);
    let midFold = 0;
    for (const ms of [0, 0.1, 0.25, 0.4, 0.55, 0.7, 0.85].map((f) => Math.round(f * took))) {
      await more();
      await killFoldAfter(fold(), ms);
      // Killed with its work in place: the log renamed for folding, or a snapshot being written.
      if ((await files(dir)).some((f) => /folding-|\.snapshot-/.test(f))) midFold++;
      expect(await stateOf(dir), `killed after ${ms} ms`).toEqual(expected);
      // The killed fold's lock (when it had taken it) names a process of this host that is gone: no wait.
    }
    expect(midFold).toBeGreaterThan(0);
    const last = entry('k/1', 'ok', at++, { key: 'last' });
    await sink.appendManifest(last);
    expected.set(last.replay_id, last);
    await sink.close();
    // A lock that names no process this code can check, not yet stale: the next fold leaves it alone (another host's
    // process may be folding).
    const held = join(dir, '_manifest', 'compact.lock');
    await writeFile(held, 'someone\n');
    const blocked = createLocalSink(dir);
    expect((await blocked.compactManifest!({ layout: 'all' })).compacted).toBe(false);
    await staleLock();
    const result = await blocked.compactManifest!({ layout: 'all' });
    expect(result.compacted).toBe(true);
    expect(result.entries).toBe(20_000);
    await blocked.close();
    expect(await stateOf(dir)).toEqual(expected);
    // Whatever the kills left (folding files, a temporary snapshot, the lock) is gone after a complete fold.
    expect(await files(dir)).toEqual(['_manifest', '_manifest/snapshot.ndjson']);
  }, 120_000);

  test('a full disk while taking the fold lock leaves no lock behind: the next fold, with room again, runs', async (ctx) => {
    const mnt = await mkdtemp(join(base, 'small-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { stdio: 'ignore' });
    } catch {
      // Mounting needs root with CAP_SYS_ADMIN (CI runs as root; a container may still refuse it).
      ctx.skip();
    }
    try {
      const sink = createLocalSink(mnt);
      await sink.appendManifest(entry('d/1', 'ok', 1));
      await mkdir(join(mnt, '_manifest'));
      // Fill the file system to the last block.
      const filler = join(mnt, 'filler');
      await writeFile(filler, Buffer.alloc(256 * 1024)).catch(() => undefined);
      await expect(sink.compactManifest!({ layout: 'all' })).rejects.toBeInstanceOf(SinkError);
      expect(await readdir(join(mnt, '_manifest'))).toEqual([]);
      await rm(filler);
      expect((await sink.compactManifest!({ layout: 'all' })).compacted).toBe(true);
      await sink.close();
      expect([...(await stateOf(mnt)).values()].map((e) => [e.replay_id, e.status])).toEqual([['d/1', 'ok']]);
    } finally {
      execFileSync('umount', [mnt]);
    }
  });

  test('a _manifest folder or snapshot that is a symbolic link is refused, read or folded; nothing outside is touched', async () => {
    const outside = await mkdtemp(join(base, 'outside-'));
    const victim = join(outside, 'snapshot.ndjson');
    const original = JSON.stringify(entry('outside/1', 'ok', 0)) + '\n';
    await writeFile(victim, original);

    const linkedFolder = await mkdtemp(join(base, 'linked-folder-'));
    await symlink(outside, join(linkedFolder, '_manifest'));
    const a = createLocalSink(linkedFolder);
    await a.appendManifest(entry('d/1', 'ok', 1));
    await expect(a.compactManifest!({ layout: 'all' })).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    await expect(stateOf(linkedFolder)).rejects.toBeInstanceOf(SinkError);
    await a.close();

    const linkedSnapshot = await mkdtemp(join(base, 'linked-snapshot-'));
    await mkdir(join(linkedSnapshot, '_manifest'));
    await symlink(victim, join(linkedSnapshot, '_manifest', 'snapshot.ndjson'));
    const b = createLocalSink(linkedSnapshot);
    await b.appendManifest(entry('d/2', 'ok', 2));
    await b.close();
    await expect(stateOf(linkedSnapshot)).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    // The log, opened before the snapshot was refused, was closed with it (not left to the garbage collector).
    expect(await openFilesUnder(linkedSnapshot)).toEqual([]);
    await expect(b.compactManifest!({ layout: 'all' })).rejects.toBeInstanceOf(SinkError);
    await b.close();
    expect(await openFilesUnder(linkedSnapshot)).toEqual([]);
    expect(await readFile(victim, 'utf8')).toBe(original);
    expect(await readdir(outside)).toEqual(['snapshot.ndjson']);
  });
});
