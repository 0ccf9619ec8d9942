/**
 * `view` streams stored events with bounded memory (issue #28, finding 5: 4 parallel reads of a stored gzip bomb took
 * the server from 75 MB to 1.15 GB, one event gathered up to 256 MiB per request). The server runs in a process of
 * its own (the built CLI) and its peak RSS (`VmHWM`) is read from /proc: a size bound, not a clock. Then the limits'
 * answers (413 naming the file before the answer begins, a cut answer after), and the NDJSON a pretty-printed array
 * gives.
 */
import { request } from 'node:http';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayKey } from '../../sinks/keys.js';
import { startViewServer, type ViewServer } from '../../src/view/index.js';
import { tempDir } from '../pipeline/helpers.js';
import { spawnView } from '../cli/cli-helpers.js';

const MiB = 1024 * 1024;
const BOMB = 'dev/1795308171001';
const PRETTY = 'dev/1795308171002';
const LONG_LINE = 'dev/1795308171003';
const EVENTS = [
  { type: 4, timestamp: 1, data: { href: 'https://example.test/', width: 800, height: 600 } },
  { type: 2, timestamp: 2, data: { node: { type: 0, childNodes: [], id: 1 }, text: 'a, b ] } "quoted \\" , ]"\n' } },
  { type: 3, timestamp: 3, data: { source: 2, positions: [1, 2, [3, [4]]] } },
];
let work: { dir: string; cleanup: () => Promise<void> };

async function store(
  id: string,
  format: 'json' | 'ndjson',
  gzip: boolean,
  body: AsyncIterable<Buffer> | Iterable<Buffer>,
): Promise<Record<string, unknown>> {
  const key = replayKey(id, { format, gzip });
  await mkdir(dirname(join(work.dir, key)), { recursive: true });
  const file = createWriteStream(join(work.dir, key));
  await (gzip ? pipeline(Readable.from(body), createGzip({ level: 1 }), file) : pipeline(Readable.from(body), file));
  return {
    replay_id: id,
    status: 'ok',
    key,
    format,
    gzip,
    recorded_at: '2026-11-27T00:00:00.000Z',
    start_time: '2026-11-26T00:00:00.000Z',
  };
}

/** One event of 1.1 GiB of `A` (about 5 MB gzipped): over the event limit and inflating past 1 GiB. */
function* bomb(): Generator<Buffer> {
  const a = Buffer.alloc(MiB, 'A');
  yield Buffer.from('[{"type":2,"timestamp":1,"data":"');
  for (let i = 0; i < 1100; i++) yield a;
  yield Buffer.from('"}]');
}

beforeAll(async () => {
  work = await tempDir('replay-export-view-bomb-');
  const lines = [
    await store(BOMB, 'json', true, bomb()),
    await store(PRETTY, 'json', false, [Buffer.from(JSON.stringify(EVENTS, null, 2))]),
    await store(LONG_LINE, 'ndjson', false, [
      Buffer.from(`${JSON.stringify(EVENTS[0])}\n{"type":5,"data":"${'x'.repeat(4096)}"}\n`),
    ]),
  ];
  await writeFile(join(work.dir, 'manifest.ndjson'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}, 60_000);

afterAll(async () => {
  await work?.cleanup();
});

/**
 * GETs `path`, counting the body's bytes (kept only when `keep`); `complete` false when the answer was cut short
 * (status 0: cut before its head).
 */
function get(
  port: number,
  path: string,
  keep = false,
): Promise<{ status: number; bytes: number; complete: boolean; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let bytes = 0;
      const kept: Buffer[] = [];
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        if (keep) kept.push(d);
      });
      const done = (complete: boolean): void =>
        resolve({ status: res.statusCode!, bytes, complete, body: Buffer.concat(kept).toString('utf8') });
      res.on('end', () => done(res.complete));
      res.on('error', () => done(false));
      res.on('aborted', () => done(false));
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' ? resolve({ status: 0, bytes: 0, complete: false, body: '' }) : reject(err),
    );
    req.end();
  });
}

async function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!kb) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}

const eventsPath = (id: string): string => `/replays/${encodeURIComponent(id)}/events.ndjson`;

describe('a stored gzip bomb', () => {
  it.runIf(process.platform === 'linux')(
    '4 parallel reads keep the server under +200 MB (peak RSS of its process)',
    async () => {
      const { child, done, url } = await spawnView(['view', work.dir]);
      try {
        const port = Number(new URL(url).port);
        expect((await get(port, '/')).status).toBe(200);
        const before = await procStatus(child.pid!, 'VmRSS');
        const reads = await Promise.all([1, 2, 3, 4].map(() => get(port, eventsPath(BOMB))));
        const peak = await procStatus(child.pid!, 'VmHWM');
        expect(peak - before).toBeLessThan(200 * 1000 * 1000);
        for (const r of reads) {
          // Cut at the event limit (256 MiB), every byte before it streamed through.
          expect(r.status).toBe(200);
          expect(r.complete).toBe(false);
          expect(r.bytes).toBeGreaterThan(200 * MiB);
        }
        // The server still answers.
        expect((await get(port, eventsPath(PRETTY))).status).toBe(200);
      } finally {
        child.kill('SIGINT');
        await done;
      }
    },
    180_000,
  );
});

describe('the limits', () => {
  let server: ViewServer;
  afterAll(async () => {
    await server?.close();
  });

  it('a replay over maxReplayBytes from its first chunk: 413 naming the file; later: the answer is cut short', async () => {
    server = await startViewServer({ out: work.dir, maxReplayBytes: 1000 });
    const refused = await get(server.port, eventsPath(BOMB), true);
    expect(refused.status).toBe(413);
    expect(refused.body).toContain(replayKey(BOMB, { format: 'json', gzip: true }));
    expect(refused.body).toContain('more than 1000 bytes once inflated');
    await server.close();

    server = await startViewServer({ out: work.dir, maxReplayBytes: 8 * MiB });
    const cut = await get(server.port, eventsPath(BOMB));
    expect(cut.status).toBe(200);
    expect(cut.complete).toBe(false);
    expect(cut.bytes).toBeLessThanOrEqual(8 * MiB);
    expect((await get(server.port, eventsPath(PRETTY))).complete).toBe(true);
  });

  it('view takes the limits as --max-replay-size and --max-event-size', async () => {
    const { child, done, url } = await spawnView([
      'view',
      work.dir,
      '--max-replay-size',
      '10KiB',
      '--max-event-size',
      '1KiB',
    ]);
    try {
      const port = Number(new URL(url).port);
      expect((await get(port, eventsPath(BOMB))).status).toBe(413);
      expect((await get(port, eventsPath(LONG_LINE))).status).toBe(502);
      expect((await get(port, eventsPath(PRETTY))).status).toBe(200);
    } finally {
      child.kill('SIGINT');
      await done;
    }
  }, 60_000);

  it('an event over maxEventBytes is refused (counted, not gathered)', async () => {
    await server.close();
    server = await startViewServer({ out: work.dir, maxEventBytes: 1024 });
    const line = await get(server.port, eventsPath(LONG_LINE), true);
    expect(line.status).toBe(502);
    expect(line.body).toContain('an event of the stored replay is over 1024 bytes');
  });

  it('a pretty-printed JSON array becomes one line per event, strings untouched', async () => {
    const res = await get(server.port, eventsPath(PRETTY), true);
    expect(res.complete).toBe(true);
    const lines = res.body.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(EVENTS);
  });
});
