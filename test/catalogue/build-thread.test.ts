/**
 * The catalogue build on its own thread (issue #41): the manifest's bytes handed over file by file, errors crossing
 * back as the classes they were (a corrupt line with its number and target), the temporary file removed and the
 * thread ended on every failure, a caller's own sink, and the S3 rule for a replay's state (its latest `recorded_at`).
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Archive, archiveOfSink, openArchive } from '../../sinks/archive.js';
import { SinkError } from '../../sinks/errors.js';
import type { ManifestBytes } from '../../sinks/manifest-lines.js';
import type { ManifestEntry, Sink } from '../../sinks/sink.js';
import { buildCatalogue } from '../../src/catalogue/build.js';
import { Catalogue } from '../../src/catalogue/catalogue.js';
import { CatalogueError } from '../../src/catalogue/errors.js';
import { openDatabase } from '../../src/catalogue/database.js';
import { line } from '../sinks/helpers/entries.js';
import { tempDir } from '../pipeline/helpers.js';

let work: { dir: string; cleanup: () => Promise<void> };
const started = new Set<Worker>();
beforeEach(async () => {
  work = await tempDir('build-thread-');
  started.clear();
  const post = Worker.prototype.postMessage;
  vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: Worker, ...args) {
    started.add(this);
    return post.apply(this, args);
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await work.cleanup();
});

const at = (s: number): string => new Date(Date.UTC(2026, 10, 1, 0, 0, s)).toISOString();
const entry = (id: string, status: ManifestEntry['status'], recorded: string): ManifestEntry =>
  line({ replay_id: id, status, recorded_at: recorded, reason: 'x' });
const ndjson = (...entries: ManifestEntry[]): string => entries.map((e) => `${JSON.stringify(e)}\n`).join('');

/** `replay id → status` of the catalogue at `path`. */
function statuses(path: string): Record<string, string> {
  const db = openDatabase(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT id, status FROM replays ORDER BY id').all();
    return Object.fromEntries(rows.map((r) => [String(r['id']), String(r['status'])]));
  } finally {
    db.close();
  }
}

/** The threads of this process (a build's ends with it). */
/** The build threads started since the test began that still run (a thread's id is -1 once it has ended). */
function workers(): number {
  return [...started].filter((w) => w.threadId !== -1).length;
}

async function archiveAt(files: { snapshot?: string; log?: string }): Promise<Archive> {
  const out = join(work.dir, 'archive');
  await mkdir(join(out, '_manifest'), { recursive: true });
  if (files.snapshot !== undefined) await writeFile(join(out, '_manifest', 'snapshot.ndjson'), files.snapshot);
  if (files.log !== undefined) await writeFile(join(out, 'manifest.ndjson'), files.log);
  return openArchive(out, { create: false });
}

/** An archive whose manifest is `bytes` (what the build reads of it). */
function fakeArchive(bytes: () => ManifestBytes): Archive {
  return {
    target: 's3://bucket/fake',
    manifest: { stamp: () => Promise.resolve('fake 1'), bytes },
  } as unknown as Archive;
}

async function* chunksOf(...parts: Array<string | Uint8Array>): AsyncIterable<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part) : part;
}

describe('the catalogue build thread', () => {
  it('reads the snapshot then the log, and an unfinished last line of one file never joins the next', async () => {
    const archive = await archiveAt({
      snapshot: ndjson(entry('d/1', 'skipped', at(1)), entry('d/2', 'skipped', at(1))) + '{"replay_id":"d/3","st',
      log: ndjson(entry('d/1', 'empty', at(2)), entry('d/3', 'failed', at(3))),
    });
    const path = join(work.dir, 'catalogue.sqlite');
    const result = await buildCatalogue(archive, path);
    await archive.close();
    expect(result).toMatchObject({ rows: 3, entries: 4 });
    expect(statuses(path)).toEqual({ 'd/1': 'empty', 'd/2': 'skipped', 'd/3': 'failed' });
    expect(started.size).toBe(1);
    expect(workers()).toBe(0);
  });

  it('a corrupt line fails as MANIFEST_CORRUPT with its line number and target; the old file stays, no temp is left', async () => {
    // Numbered in its own file (the log), whatever the snapshot before it holds, its unfinished line included.
    const archive = await archiveAt({
      snapshot: ndjson(entry('d/1', 'skipped', at(1)), entry('d/2', 'skipped', at(1))) + '{"replay_id":"d/3","st',
      log: ndjson(entry('d/1', 'skipped', at(1)), entry('d/2', 'skipped', at(1))) + 'not json\n',
    });
    const folder = join(work.dir, 'cache');
    await mkdir(folder);
    const path = join(folder, 'catalogue.sqlite');
    await writeFile(path, 'the old catalogue');
    const err = await buildCatalogue(archive, path).catch((e: unknown) => e);
    await archive.close();
    expect(err).toBeInstanceOf(SinkError);
    expect(err).toMatchObject({ code: 'MANIFEST_CORRUPT', index: 3, target: archive.target });
    expect((err as Error).message).toContain('manifest line 3');
    expect(await readdir(folder)).toEqual(['catalogue.sqlite']);
    expect(workers()).toBe(0);
  });

  it('a file that cannot be written fails as CATALOGUE_IO, the temporary file removed', async () => {
    const archive = await archiveAt({ log: ndjson(entry('d/1', 'skipped', at(1))) });
    // The catalogue's path is a folder holding a file: the build completes, its rename over it fails.
    const path = join(work.dir, 'taken');
    await mkdir(path);
    await writeFile(join(path, 'x'), 'x');
    const err = await buildCatalogue(archive, path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogueError);
    expect(err).toMatchObject({ code: 'CATALOGUE_IO' });
    // No folder to write in: SQLite's own failure, on the thread.
    const missing = await buildCatalogue(archive, join(work.dir, 'no', 'such', 'c.sqlite')).catch((e: unknown) => e);
    await archive.close();
    expect(missing).toBeInstanceOf(CatalogueError);
    expect(missing).toMatchObject({ code: 'CATALOGUE_IO' });
    expect((await readdir(work.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(workers()).toBe(0);
  });

  it('a read of the manifest that fails midway ends the thread and removes the temporary file', async () => {
    const broken = new SinkError('SINK_IO', 'the disk went away', { target: 's3://bucket/fake' });
    const archive = fakeArchive(() => ({
      newest: 'last',
      files: (async function* () {
        yield {
          key: 'manifest.ndjson',
          chunks: (async function* () {
            yield Buffer.from(ndjson(entry('d/1', 'skipped', at(1))));
            throw broken;
          })(),
        };
      })(),
    }));
    const path = join(work.dir, 'catalogue.sqlite');
    await expect(buildCatalogue(archive, path)).rejects.toBe(broken);
    expect(await readdir(work.dir)).toEqual([]);
    expect(workers()).toBe(0);
  });

  it("builds from a caller's own sink (its entries serialised again)", async () => {
    const entries = [entry('d/1', 'skipped', at(1)), entry('d/2', 'failed', at(1)), entry('d/1', 'empty', at(2))];
    const sink = {
      target: 'mine',
      async *readManifest() {
        yield* entries;
      },
    } as unknown as Sink;
    const path = join(work.dir, 'catalogue.sqlite');
    expect(await buildCatalogue(archiveOfSink(sink), path)).toMatchObject({ rows: 2, entries: 3 });
    expect(statuses(path)).toEqual({ 'd/1': 'empty', 'd/2': 'failed' });
  });

  it('inflates a gzipped file (an S3 snapshot) on the thread; one that does not inflate is MANIFEST_CORRUPT', async () => {
    const snapshot = gzipSync(ndjson(entry('d/1', 'skipped', at(1)), entry('d/2', 'skipped', at(1))));
    const archive = (gz: Buffer) =>
      fakeArchive(() => ({
        newest: 'recorded',
        files: (async function* () {
          // In pieces, as a GET streams it.
          yield {
            key: '_manifest/_snapshots/all/1',
            gzip: true,
            chunks: chunksOf(gz.subarray(0, 20), gz.subarray(20)),
          };
          yield { key: '_manifest/', chunks: chunksOf(ndjson(entry('d/2', 'failed', at(2)))) };
        })(),
      }));
    const path = join(work.dir, 'catalogue.sqlite');
    expect(await buildCatalogue(archive(snapshot), path)).toMatchObject({ rows: 2, entries: 3 });
    expect(statuses(path)).toEqual({ 'd/1': 'skipped', 'd/2': 'failed' });
    const cut = snapshot.subarray(0, snapshot.length - 12);
    const err = await buildCatalogue(archive(cut), path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect(err).toMatchObject({ code: 'MANIFEST_CORRUPT', key: '_manifest/_snapshots/all/1' });
    expect(await readdir(work.dir)).toEqual(['catalogue.sqlite']);
    expect(workers()).toBe(0);
  });

  it('gives an S3 body’s chunks of 64 KiB, each its own buffer, to the thread whole: none is left here', async () => {
    const count = 2000;
    const all = Buffer.from(ndjson(...Array.from({ length: count }, (_, i) => entry(`d/${i}`, 'skipped', at(1)))));
    // As node:http gives a body: chunks of 64 KiB, each copied into a buffer of its own; the last one shorter.
    const given: Uint8Array[] = [];
    for (let at = 0; at < all.length; at += 64 * 1024) {
      const part = all.subarray(at, at + 64 * 1024);
      given.push(new Uint8Array(part));
    }
    expect(given.length).toBeGreaterThan(2);
    const archive = fakeArchive(() => ({
      newest: 'recorded',
      files: (async function* () {
        yield { key: '_manifest/', chunks: chunksOf(...given) };
      })(),
    }));
    const path = join(work.dir, 'catalogue.sqlite');
    expect(await buildCatalogue(archive, path)).toMatchObject({ rows: count, entries: count });
    // Transferred, so detached on this thread; the last one (under a quarter of a piece) was copied.
    expect(given.slice(0, -1).every((chunk) => chunk.buffer.byteLength === 0)).toBe(true);
    expect(given.at(-1)!.byteLength).toBe(all.length % (64 * 1024));
  });

  it('keeps an id holding a NUL whole: neither cut at it (Node 22 reads text so) nor taken for the id before it', async () => {
    const ids = ['d/a', 'd/a\u0000b', 'd/a\u0000c'];
    const archive = fakeArchive(() => ({
      newest: 'recorded',
      files: (async function* () {
        yield { key: '_manifest/', chunks: chunksOf(ndjson(...ids.map((id) => entry(id, 'skipped', at(1))))) };
      })(),
    }));
    const path = join(work.dir, 'catalogue.sqlite');
    expect(await buildCatalogue(archive, path)).toMatchObject({ rows: 3, entries: 3 });
    const catalogue = new Catalogue(path, openDatabase(path, { readonly: true }));
    try {
      for (const id of ids) expect(catalogue.get(id)).toMatchObject({ id, device: 'd', session: id.slice(2) });
      expect([...catalogue.rows({ sort: 'id' })].map((r) => r.id).sort()).toEqual([...ids].sort());
    } finally {
      catalogue.close();
    }
  });

  it('S3: a replay is its latest recorded_at, a later file’s among equal ones, as readManifest merges', async () => {
    const snapshot1 = ndjson(
      entry('d/1', 'skipped', at(5)),
      entry('d/2', 'skipped', at(5)),
      entry('d/3', 'ok', at(5)),
      entry('d/5', 'skipped', at(5)),
    );
    const snapshot2 = ndjson(entry('d/1', 'failed', at(4)), entry('d/2', 'empty', at(5)), entry('d/5', 'empty', at(5)));
    // The log: an entry older than the snapshot's (written late by a slow run), one newer.
    const log = ndjson(entry('d/3', 'failed', at(1)), entry('d/4', 'ok', at(9)), entry('d/2', 'not_found', at(6)));
    const archive = fakeArchive(() => ({
      newest: 'recorded',
      files: (async function* () {
        yield { key: '_manifest/_snapshots/all/1', chunks: chunksOf(snapshot1.slice(0, 50), snapshot1.slice(50)) };
        yield { key: '_manifest/_snapshots/all/2', chunks: chunksOf(snapshot2) };
        yield { key: '_manifest/', chunks: chunksOf(log) };
      })(),
    }));
    const path = join(work.dir, 'catalogue.sqlite');
    expect(await buildCatalogue(archive, path)).toMatchObject({ rows: 5, entries: 10 });
    expect(statuses(path)).toEqual({ 'd/1': 'skipped', 'd/2': 'not_found', 'd/3': 'ok', 'd/4': 'ok', 'd/5': 'empty' });
  });
});
