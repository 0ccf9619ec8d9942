import { randomBytes } from 'node:crypto';
import { mkdtemp, open, readFile, rm, stat, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FLUSH_EVERY_BYTES, WriteAhead, type WritableFile } from '../../sinks/write-ahead.js';

/** A real file handle that records its flushes, and fails them on demand. */
function recording(handle: FileHandle, failFlush?: Error) {
  const log = { flushes: 0, overlapping: 0, running: 0 };
  const file: WritableFile = {
    write: handle.write.bind(handle) as FileHandle['write'],
    writev: handle.writev.bind(handle),
    async datasync() {
      log.flushes++;
      if (log.running > 0) log.overlapping++;
      log.running++;
      try {
        await new Promise((r) => setTimeout(r, 5));
        if (failFlush !== undefined) throw failFlush;
        await handle.datasync();
      } finally {
        log.running--;
      }
    },
  };
  return { file, log };
}

describe('WriteAhead', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'write-ahead-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports the bytes written from the start of the file after each write has completed', async () => {
    const path = join(dir, 'out');
    const handle = await open(path, 'wx');
    const reports: Array<{ told: number; onDisk: number }> = [];
    const pending: Array<Promise<void>> = [];
    const ahead = new WriteAhead(handle, (bytes) => {
      // In the order told (the stat calls may resolve in any order).
      const report = { told: bytes, onDisk: -1 };
      reports.push(report);
      pending.push(stat(path).then((s) => void (report.onDisk = s.size)));
    });
    const pieces = Array.from({ length: 12 }, (_, k) => randomBytes(200_000 + k * 1000));
    for (const [k, piece] of pieces.entries()) {
      if (k % 2 === 0) await ahead.write(piece);
      else await ahead.writev([piece.subarray(0, 10), piece.subarray(10)]);
    }
    await ahead.drain();
    await Promise.all(pending);
    await handle.close();
    const ends = pieces.map((_, k) => pieces.slice(0, k + 1).reduce((n, p) => n + p.length, 0));
    expect(reports.map((r) => r.told)).toEqual(ends);
    for (const r of reports) expect(r.onDisk).toBeGreaterThanOrEqual(r.told);
  });

  it('writes every byte in order and flushes the file early as it grows, one flush at a time', async () => {
    const path = join(dir, 'out');
    const handle = await open(path, 'wx');
    const { file, log } = recording(handle);
    const ahead = new WriteAhead(file);
    const pieces: Buffer[] = [];
    let total = 0;
    while (total < 2.5 * FLUSH_EVERY_BYTES) {
      const piece = randomBytes(300_000 + (pieces.length % 7) * 50_000);
      pieces.push(piece);
      total += piece.length;
      if (pieces.length % 3 === 0) await ahead.writev([piece.subarray(0, 1000), piece.subarray(1000)]);
      else await ahead.write(piece);
    }
    await ahead.drain();
    await handle.close();
    expect((await readFile(path)).equals(Buffer.concat(pieces))).toBe(true);
    expect(log.flushes).toBeGreaterThanOrEqual(1);
    expect(log.flushes).toBeLessThanOrEqual(2);
    expect(log.overlapping).toBe(0);
    expect(log.running).toBe(0);
  });

  it('does not flush a file shorter than the flush interval (its final fsync is enough)', async () => {
    const handle = await open(join(dir, 'small'), 'wx');
    const { file, log } = recording(handle);
    const ahead = new WriteAhead(file);
    for (let i = 0; i < 10; i++) await ahead.write(randomBytes(100_000));
    await ahead.drain();
    await handle.close();
    expect(log.flushes).toBe(0);
  });

  it('keeps a failed early flush: later writes and drain throw it (a later fsync might not report it again)', async () => {
    const handle = await open(join(dir, 'failing'), 'wx');
    const failure = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    const { file, log } = recording(handle, failure);
    const ahead = new WriteAhead(file);
    const piece = randomBytes(1 << 20);
    let thrown: unknown;
    try {
      for (let i = 0; i < 4 * (FLUSH_EVERY_BYTES >> 20); i++) {
        await ahead.write(piece);
        await new Promise((r) => setTimeout(r, 1));
      }
    } catch (err) {
      thrown = err;
    }
    expect(log.flushes).toBe(1);
    expect(thrown).toBe(failure);
    await expect(ahead.drain()).rejects.toBe(failure);
    await expect(ahead.write(piece)).rejects.toBe(failure);
    await handle.close();
  });
});
