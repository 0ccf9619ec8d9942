import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SinkError } from '../../sinks/errors.js';
import { FileHashJob, HashWorkerError, hashWorkerInfo, stopHashWorkers } from '../../sinks/hash-worker.js';
import { createLocalSink, type LocalSinkOptions } from '../../sinks/local.js';
import { HASH_WORKER_DEFAULTS, resolveHashWorker } from '../../sinks/output-hash.js';
import type { OutputSpec, Sink } from '../../sinks/sink.js';
import { compileLocalSink } from './helpers/compile-sinks.js';
import { JSON_AND_NDJSON_OUTPUTS } from './helpers/outputs.js';

/** `n` events of about `size` bytes of JSON each (varied, so that gzip does not shrink them to nothing). */
const events = (n: number, size = 2000): Buffer[] =>
  Array.from({ length: n }, (_, i) =>
    Buffer.from(
      JSON.stringify({
        type: 3,
        timestamp: 1763629200000 + i,
        data: {
          text: createHash('sha256')
            .update(String(i))
            .digest('hex')
            .repeat(Math.ceil(size / 64)),
        },
      }),
    ),
  );

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Files under `root`, as paths relative to it. */
async function walk(root: string, dir = root): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(root, path)));
    else out.push(relative(root, path));
  }
  return out;
}

/** The nice value of one of this process's threads, from /proc (Linux). */
async function niceOf(tid: number): Promise<number> {
  const stat = await readFile(`/proc/self/task/${tid}/stat`, 'utf8');
  // Fields after the command name (which is in parentheses): state is field 3, nice field 19.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'hash-worker-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});
afterEach(async () => {
  await stopHashWorkers();
});

async function exportTo(opts: LocalSinkOptions, output: OutputSpec, batches: Buffer[][], id = 'dev/r1') {
  const dir = await mkdtemp(join(base, 't-'));
  const sink = createLocalSink(dir, opts);
  const writer = await sink.open(id, output);
  for (const batch of batches) await writer.write(batch);
  const result = await writer.commit();
  const stored = await readFile(join(dir, ...result.key.split('/')));
  await sink.close();
  return { dir, result, stored };
}

/** Exports a replay of 1500 events to `sink` (a local sink at `dir`) and checks its sha256 against the file. */
async function expectReplayHashed(sink: Sink, dir: string, id: string): Promise<void> {
  const writer = await sink.open(id, { format: 'json', gzip: false });
  await writer.write(events(1500));
  const done = await writer.commit();
  expect(done.sha256).toBe(sha256(await readFile(join(dir, ...done.key.split('/')))));
}

const linux = process.platform === 'linux';

describe('local sink: SHA-256 of large outputs on the hashing worker', () => {
  for (const output of JSON_AND_NDJSON_OUTPUTS) {
    it(`${output.format}${output.gzip ? ' + gzip' : ''}: the worker hashes the written file; sha256 and bytes match it`, async () => {
      const all = events(3000);
      const batches = Array.from({ length: 30 }, (_, k) => all.slice(k * 100, k * 100 + 100));
      const { result, stored } = await exportTo({ hashWorker: { fromBytes: 0, minRate: 0 } }, output, batches);
      expect(await hashWorkerInfo(HASH_WORKER_DEFAULTS.nice)).toBeDefined();
      expect(result.bytes).toBe(stored.length);
      expect(result.sha256).toBe(sha256(stored));
      expect(result.eventCount).toBe(3000);
    });
  }

  it('an output up to fromBytes (default 4 MiB) is hashed on the calling thread, a larger one on the worker', async () => {
    // minRate 0: the hand-over depends on the size alone here (the rate rule has its own test).
    const small = await exportTo({ hashWorker: { minRate: 0 } }, { format: 'json', gzip: false }, [events(500)]);
    expect(small.stored.length).toBeLessThan(HASH_WORKER_DEFAULTS.fromBytes);
    expect(small.result.sha256).toBe(sha256(small.stored));
    expect(hashWorkerInfo(HASH_WORKER_DEFAULTS.nice)).toBeUndefined();

    const all = events(3000);
    const large = await exportTo(
      { hashWorker: { minRate: 0 } },
      { format: 'json', gzip: false },
      Array.from({ length: 6 }, (_, k) => all.slice(k * 500, k * 500 + 500)),
    );
    expect(large.stored.length).toBeGreaterThan(HASH_WORKER_DEFAULTS.fromBytes);
    expect(large.result.sha256).toBe(sha256(large.stored));
    expect(hashWorkerInfo(HASH_WORKER_DEFAULTS.nice)).toBeDefined();
  });

  it('an output produced slower than minRate stays on the calling thread; the rate is looked at again every 4 MiB', async () => {
    const slow = await exportTo(
      { hashWorker: { fromBytes: 1 << 20, minRate: 1e15 } },
      { format: 'json', gzip: false },
      [events(3000)],
    );
    expect(slow.stored.length).toBeGreaterThan(4 << 20);
    expect(slow.result.sha256).toBe(sha256(slow.stored));
    expect(hashWorkerInfo(HASH_WORKER_DEFAULTS.nice)).toBeUndefined();

    // Slow at first (a pause between batches: under 10 MB/s), then fast (no pause: far above 50 MB/s even on a busy
    // machine): handed over at a later look.
    const dir = await mkdtemp(join(base, 't-'));
    const sink = createLocalSink(dir, { hashWorker: { minRate: 50e6 } });
    const writer = await sink.open('dev/speeds-up', { format: 'json', gzip: false });
    const all = events(8000);
    for (let k = 0; k < 30; k++) {
      await writer.write(all.slice(k * 100, k * 100 + 100));
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(hashWorkerInfo(HASH_WORKER_DEFAULTS.nice)).toBeUndefined();
    // Fast: batches with no pause; the first look after the pauses still spans some of them, the next one does not.
    for (let from = 3000; from < all.length; from += 500) await writer.write(all.slice(from, from + 500));
    const done = await writer.commit();
    expect(hashWorkerInfo(HASH_WORKER_DEFAULTS.nice)).toBeDefined();
    expect(done.sha256).toBe(sha256(await readFile(join(dir, 'dev', 'speeds-up.json'))));
    await sink.close();
  });

  it('hashWorker: false keeps every hash on the calling thread; the sink itself reads no environment variable', async () => {
    const big = [events(3000)];
    const a = await exportTo({ hashWorker: false }, { format: 'ndjson', gzip: false }, big);
    expect(a.result.sha256).toBe(sha256(a.stored));
    expect(hashWorkerInfo(HASH_WORKER_DEFAULTS.nice)).toBeUndefined();
    // REPLAY_EXPORT_HASH_WORKER=0 becomes `hashWorker: false` in the run's settings (test/pipeline/settings.test.ts);
    // a sink used on its own does what its options say.
    process.env['REPLAY_EXPORT_HASH_WORKER'] = '0';
    try {
      expect(resolveHashWorker({ fromBytes: 0 })).not.toBe(false);
      const b = await exportTo({ hashWorker: { fromBytes: 0, minRate: 0 } }, { format: 'ndjson', gzip: false }, big);
      expect(b.result.sha256).toBe(a.result.sha256);
      expect(await hashWorkerInfo(HASH_WORKER_DEFAULTS.nice)).toBeDefined();
    } finally {
      delete process.env['REPLAY_EXPORT_HASH_WORKER'];
    }
  });

  it('refuses settings out of range', () => {
    expect(() => resolveHashWorker({ fromBytes: -1 })).toThrow(
      expect.objectContaining({
        code: 'SINK_CONFIG',
        category: 'usage',
        message: expect.stringContaining('hashWorker.fromBytes'),
      }),
    );
    expect(() => resolveHashWorker({ nice: 20 })).toThrow(/0 to 19/);
    expect(() => createLocalSink(base, { hashWorker: { nice: 1.5 } })).toThrow(SinkError);
    expect(() => resolveHashWorker({ idleMs: Number.NaN })).toThrow(/idleMs/);
    expect(() => resolveHashWorker({ minRate: -1 })).toThrow(/minRate/);
  });

  it.runIf(linux)('on Linux the worker runs at its nice value (default 10), the calling thread unchanged', async () => {
    await exportTo({ hashWorker: { fromBytes: 0, minRate: 0 } }, { format: 'json', gzip: false }, [events(10)]);
    const info = await hashWorkerInfo(10);
    expect(info?.niced).toBe(true);
    expect(await niceOf(info!.tid)).toBe(10);
    expect(await niceOf(process.pid)).not.toBe(10);

    await exportTo({ hashWorker: { fromBytes: 0, minRate: 0, nice: 19 } }, { format: 'json', gzip: false }, [
      events(10),
    ]);
    expect(await niceOf((await hashWorkerInfo(19))!.tid)).toBe(19);
  });

  it('a worker that ends mid-replay fails that replay (SINK_IO, nothing at its key); the next replay gets a new worker', async () => {
    const dir = await mkdtemp(join(base, 't-'));
    const sink = createLocalSink(dir, { hashWorker: { fromBytes: 0, minRate: 0 } });
    const writer = await sink.open('dev/broken', { format: 'json', gzip: false });
    await writer.write(events(1000));
    await stopHashWorkers();
    await writer.write(events(1000));
    const failure = await writer.commit().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(SinkError);
    expect(failure).toMatchObject({ code: 'SINK_IO', key: 'dev/broken.json', replayId: 'dev/broken' });
    expect((failure as Error).message).toMatch(/hashing thread/);
    expect(await walk(dir)).toEqual([]);

    await expectReplayHashed(sink, dir, 'dev/next');
    await sink.close();
  });

  it('a temporary file changed behind the writer fails the commit as SINK_INTEGRITY, nothing at the key', async () => {
    const dir = await mkdtemp(join(base, 't-'));
    const sink = createLocalSink(dir, { hashWorker: { fromBytes: 0, minRate: 0 } });
    const writer = await sink.open('dev/tampered', { format: 'json', gzip: false });
    const batch = events(1500);
    await writer.write(batch);
    // '[' + events joined by ','; wait until all of it is in the file, then add two bytes after it.
    const size = 1 + batch.reduce((n, e) => n + e.length, 0) + batch.length - 1;
    const [temp] = await walk(dir);
    for (let i = 0; i < 500 && (await stat(join(dir, temp!))).size < size; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect((await stat(join(dir, temp!))).size).toBe(size);
    await appendFile(join(dir, temp!), 'xy');
    // The closing ']' overwrites the 'x': the file ends one byte longer than what was written.
    const failure = await writer.commit().catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: 'SinkError', code: 'SINK_INTEGRITY', key: 'dev/tampered.json' });
    expect((failure as Error).message).toContain(`the file has ${size + 2} bytes, ${size + 1} were written`);
    expect(await walk(dir)).toEqual([]);
    await sink.close();
  });

  it('an aborted replay leaves no temporary file and does not disturb the worker', async () => {
    const dir = await mkdtemp(join(base, 't-'));
    const sink = createLocalSink(dir, { hashWorker: { fromBytes: 0, minRate: 0 } });
    const writer = await sink.open('dev/aborted', { format: 'json', gzip: false });
    await writer.write(events(1500));
    await writer.abort();
    expect(await walk(dir)).toEqual([]);
    await expectReplayHashed(sink, dir, 'dev/kept');
    await sink.close();
  });
});

describe('hashing worker: a file that does not hold what was written', () => {
  async function fileOf(bytes: Buffer): Promise<string> {
    const path = join(await mkdtemp(join(base, 'f-')), 'out');
    await writeFile(path, bytes);
    return path;
  }

  /** The read-back of the file at `path`: the path and the identity of what is there (or of `like`). */
  async function readBack(path: string, like = path): Promise<{ path: string; dev: number; ino: number }> {
    const { dev, ino } = await stat(like);
    return { path, dev, ino };
  }

  it('hashes exactly the bytes reported, in steps', async () => {
    const bytes = Buffer.concat(events(2000));
    const path = await fileOf(bytes);
    const job = new FileHashJob(await readBack(path), 10);
    for (let at = 0; at < bytes.length; at += 300_000) job.progress(at);
    await expect(job.finish(bytes.length)).resolves.toBe(sha256(bytes));
  });

  it('a file shorter or longer than reported is an error naming both sizes', async () => {
    const bytes = Buffer.concat(events(100));
    const short = await fileOf(bytes);
    await expect(new FileHashJob(await readBack(short), 10).finish(bytes.length + 10)).rejects.toMatchObject({
      message: `the file ends at byte ${bytes.length}, ${bytes.length + 10} were written`,
      kind: 'size',
    });
    const long = await fileOf(bytes);
    await appendFile(long, 'x');
    const longer = await new FileHashJob(await readBack(long), 10).finish(bytes.length).catch((e: unknown) => e);
    expect(longer).toBeInstanceOf(HashWorkerError);
    expect(longer).toMatchObject({
      message: `the file has ${bytes.length + 1} bytes, ${bytes.length} were written`,
      kind: 'size',
    });
  });

  it('a file that cannot be opened fails its job with the system error code, also when reported before the end', async () => {
    const job = new FileHashJob({ path: join(base, 'missing', 'file'), dev: 0, ino: 0 }, 10);
    job.progress(5 << 20);
    await new Promise((r) => setTimeout(r, 50));
    await expect(job.finish(5 << 20)).rejects.toMatchObject({ name: 'HashWorkerError', code: 'ENOENT' });
  });

  it("a symbolic link at the file's path is not read through (ELOOP), even to a file of the right size", async () => {
    const bytes = Buffer.concat(events(10));
    const target = await fileOf(bytes);
    const link = join(await mkdtemp(join(base, 'l-')), 'out');
    await symlink(target, link);
    await expect(new FileHashJob(await readBack(link, target), 10).finish(bytes.length)).rejects.toMatchObject({
      name: 'HashWorkerError',
      code: 'ELOOP',
    });
  });

  it('reads back only the very file being written: another file at the path, or a FIFO, fails at once', async () => {
    const bytes = Buffer.concat(events(10));
    const written = await fileOf(bytes);
    const other = await fileOf(bytes);
    await expect(new FileHashJob(await readBack(other, written), 10).finish(bytes.length)).rejects.toMatchObject({
      name: 'HashWorkerError',
      code: 'ESTALE',
    });
    const fifo = join(await mkdtemp(join(base, 'p-')), 'out');
    execFileSync('mkfifo', [fifo]);
    await expect(new FileHashJob(await readBack(fifo, written), 10).finish(bytes.length)).rejects.toMatchObject({
      name: 'HashWorkerError',
      code: 'ESTALE',
    });
  });
});

describe('hashing worker: process lifetime', () => {
  it('the worker ends after idleMs without a job; the next large output starts a new one', async () => {
    const opts = { hashWorker: { fromBytes: 0, minRate: 0, idleMs: 100 } };
    await exportTo(opts, { format: 'json', gzip: false }, [events(50)]);
    const first = await hashWorkerInfo(10);
    expect(first).toBeDefined();
    await new Promise((r) => setTimeout(r, 400));
    expect(hashWorkerInfo(10)).toBeUndefined();
    const again = await exportTo(opts, { format: 'json', gzip: false }, [events(50)]);
    expect(again.result.sha256).toBe(sha256(again.stored));
    expect((await hashWorkerInfo(10))!.tid).not.toBe(first!.tid);
  });

  /**
   * Runs `body` (ESM, after imports of the compiled local sink and hash worker) in a child node process with a new
   * folder as `process.argv[2]`; the child is killed if it has not exited after 20 s (code null).
   */
  async function runSinkChild(body: string): Promise<{ code: number | null; out: string; dir: string }> {
    const compiled = await compileLocalSink();
    const dir = await mkdtemp(join(base, 'p-'));
    const script = join(compiled, 'child.mjs');
    await writeFile(
      script,
      `import { createLocalSink } from ${JSON.stringify(join(compiled, 'local.js'))};
import { hashWorkerInfo } from ${JSON.stringify(join(compiled, 'hash-worker.js'))};
const batch = (k) => Array.from({ length: 100 }, (_, i) => Buffer.from(JSON.stringify({ k, i, pad: 'p'.repeat(1500) })));
${body}`,
    );
    const child = spawn(process.execPath, [script, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    await rm(compiled, { recursive: true, force: true });
    return { code, out, dir };
  }

  it('a writer abandoned mid-output (neither committed nor aborted) does not keep its process alive', async () => {
    const { code, out } = await runSinkChild(`
const sink = createLocalSink(process.argv[2], { hashWorker: { fromBytes: 0, minRate: 0 } });
const w = await sink.open('dev/abandoned', { format: 'json', gzip: false });
for (let k = 0; k < 10; k++) await w.write(batch(k));
// The worker's start-up answer does not keep the process alive either: a timer waits for it.
const keep = setInterval(() => {}, 1000);
const info = await hashWorkerInfo(10);
clearInterval(keep);
process.stdout.write(info === undefined ? 'no worker' : 'worker running');
`);
    expect(out).toBe('worker running');
    expect(code).toBe(0);
  });

  it('a process exits by itself after committing a large output, with the right sha256 (the worker holds it only while hashing)', async () => {
    const { code, out, dir } = await runSinkChild(`
const sink = createLocalSink(process.argv[2], { hashWorker: { minRate: 0 } });
const w = await sink.open('dev/big', { format: 'json', gzip: false });
for (let k = 0; k < 40; k++) await w.write(batch(k));
const done = await w.commit();
await sink.close();
process.stdout.write(done.sha256);
`);
    expect(code).toBe(0);
    const stored = await readFile(join(dir, 'dev', 'big.json'));
    expect(stored.length).toBeGreaterThan(HASH_WORKER_DEFAULTS.fromBytes);
    expect(out).toBe(sha256(stored));
  });
});
