/**
 * `view` offers a replay as a video download when a browser is there (issue #32, item 6): the index's link, the
 * route's MP4 (read back by a demuxer), one render at a time (429), the temporary file in the OS temp dir and gone
 * after; with no browser, no link and a clear 503; a server given no renderer has no such route.
 */
import { request } from 'node:http';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportReplay } from '../../src/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { startViewServer, type ViewServer } from '../../src/view/index.js';
import { viewVideo } from '../../bin/cli/view-video.js';
import { readVideo, sampleFile } from '../video/helpers.js';
import { runCliSpawned, spawnView } from '../cli/cli-helpers.js';

const PREFIX = 'replay-export-view-video-';
let dir: string;
let archive: string;
let id: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-test-view-video-'));
  archive = join(dir, 'archive');
  ({ id } = await sampleFile('styles-resize'));
  const sandbox = await startSandbox({});
  try {
    const entry = await exportReplay(id, {
      endpoint: sandbox.url,
      ...sandbox.credentials,
      out: archive,
      format: 'ndjson',
      gzip: true,
    });
    expect(entry.status).toBe('ok');
  } finally {
    await sandbox.close();
  }
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function get(
  server: ViewServer,
  path: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function head(server: ViewServer, path: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: 'HEAD' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode! }));
    });
    req.on('error', reject);
    req.end();
  });
}

const videoPath = (replay: string): string => `/replays/${encodeURIComponent(replay)}/video.mp4`;
const renderFolders = async (): Promise<string[]> => (await readdir(tmpdir())).filter((n) => n.startsWith(PREFIX));

describe('with a browser', () => {
  it('the index links each replay to its MP4; the route renders it, one at a time, outside the archive', async () => {
    const video = await viewVideo({ out: archive }, { env: {} });
    expect(video.available).toBe(true);
    const server = await startViewServer({ out: archive, video });
    try {
      const index = await get(server, '/');
      expect(index.body.toString()).toContain(`<a href="${videoPath(id)}" download>MP4</a>`);
      const archived = await readdir(archive, { recursive: true });
      const before = await renderFolders();

      const first = get(server, videoPath(id));
      // A second request while the first renders (its folder is there): refused, the first goes on.
      await expect.poll(async () => (await renderFolders()).length, { timeout: 60_000 }).toBeGreaterThan(before.length);
      const second = await get(server, videoPath(id));
      expect(second.status).toBe(429);
      expect(second.body.toString()).toContain('another video is being rendered');

      const res = await first;
      expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      expect(res.headers['content-type']).toBe('video/mp4');
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="[A-Za-z0-9._-]+\.mp4"$/);
      expect(res.body.subarray(4, 8).toString('latin1')).toBe('ftyp');
      const file = join(dir, 'download.mp4');
      await writeFile(file, res.body);
      const facts = await readVideo(file);
      expect(facts.codec).toMatch(/^avc1\./);
      expect(facts.packets).toBeGreaterThan(1);
      expect(facts.width).toBeGreaterThan(0);

      // Nothing left in the temp dir (removed once the answer is sent), nothing written to the archive.
      await expect.poll(renderFolders).toEqual(before);
      expect(await readdir(archive, { recursive: true })).toEqual(archived);
      expect((await get(server, videoPath('nope/1'))).status).toBe(404);

      // A client that goes away stops its render: the folder goes and the next one may start.
      const gone = request({ host: '127.0.0.1', port: server.port, path: videoPath(id) });
      gone.on('error', () => undefined);
      gone.end();
      await expect.poll(async () => (await renderFolders()).length, { timeout: 60_000 }).toBeGreaterThan(before.length);
      gone.destroy();
      await expect.poll(renderFolders, { timeout: 60_000 }).toEqual(before);
      await expect.poll(async () => (await head(server, videoPath(id))).status).toBe(200);
    } finally {
      await server.close();
    }
  }, 300_000);
});

describe('with no browser', () => {
  it('no link, and the route says why', async () => {
    const video = await viewVideo({ out: archive }, { browser: join(dir, 'no-such-chrome'), env: {} });
    expect(video).toEqual({
      available: false,
      reason: expect.stringContaining(
        `the browser ${join(dir, 'no-such-chrome')} (--browser) is not an executable file`,
      ),
    });
    const server = await startViewServer({ out: archive, video });
    try {
      const index = await get(server, '/');
      expect(index.status).toBe(200);
      expect(index.body.toString()).not.toContain('video.mp4');
      const res = await get(server, videoPath(id));
      expect(res.status).toBe(503);
      expect(res.body.toString()).toContain('no video: the browser');
    } finally {
      await server.close();
    }
    const bare = await startViewServer({ out: archive });
    try {
      expect((await get(bare, videoPath(id))).status).toBe(404);
    } finally {
      await bare.close();
    }
  });

  it('the view command says so once, at start', async () => {
    const { child, done } = await spawnView(['view', archive, '--browser', join(dir, 'no-such-chrome')]);
    child.kill('SIGINT');
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('no video downloads: the browser');
  }, 60_000);
});

describe('--render-limit', () => {
  it("the renderer carries the flag's time to the route (default: the route's 10 minutes)", async () => {
    const limited = await viewVideo({ out: archive }, { env: {}, renderTimeLimitMs: 90_000 });
    const plain = await viewVideo({ out: archive }, { env: {} });
    expect(limited.available && limited.renderTimeLimitMs).toBe(90_000);
    expect(plain.available && plain.renderTimeLimitMs).toBeUndefined();
  });

  it('a duration of 0 or one that is not a duration is a usage error naming the flag', async () => {
    for (const value of ['0', 'soon']) {
      const result = await runCliSpawned(['view', archive, '--render-limit', value]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--render-limit: /); // the flag's own refusal, not commander's unknown option
    }
  }, 60_000);
});

describe('the render slot (issue #40)', () => {
  /** A renderer of 16 MiB files that waits, when told, until its signal aborts; `started` once a render began. */
  let started: () => void = () => undefined;
  const fake = (hang: () => boolean, deadline: () => AbortSignal) =>
    ({
      available: true,
      renderTimeLimitMs: 60_000,
      deadline,
      async render(_id: string, out: string, signal: AbortSignal) {
        started();
        if (hang()) {
          await new Promise<void>((_resolve, reject) => {
            if (signal.aborted) reject(signal.reason);
            signal.addEventListener('abort', () => reject(signal.reason));
          });
        }
        await writeFile(out, Buffer.alloc(16 * 1024 * 1024));
      },
    }) as const;

  it('a render over the time limit is stopped and answered 503; the next one may start', async () => {
    let hang = true;
    // The route's clock: the time limit passes when the test says.
    let deadline = new AbortController();
    const server = await startViewServer({
      out: archive,
      video: fake(
        () => hang,
        () => deadline.signal,
      ),
    });
    try {
      const rendering = new Promise<void>((resolve) => (started = resolve));
      const late = get(server, videoPath(id));
      await rendering;
      expect((await get(server, videoPath(id))).status).toBe(429);
      deadline.abort(new Error('the time limit'));
      const res = await late;
      expect(res.status).toBe(503);
      expect(res.body.toString()).toMatch(/took longer than 60 s to render .*: its render was stopped/);
      hang = false;
      deadline = new AbortController();
      expect((await get(server, videoPath(id))).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('a client holding its download open keeps nobody waiting: the slot is freed once the file is rendered', async () => {
    const server = await startViewServer({
      out: archive,
      video: fake(
        () => false,
        () => new AbortController().signal,
      ),
    });
    try {
      // The first client takes the headers and reads no further (16 MiB do not fit the socket's buffers).
      const held = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: server.port, path: videoPath(id) }, resolve);
        req.on('error', reject);
        req.end();
      });
      expect(held.statusCode).toBe(200);
      held.pause();
      const next = await get(server, videoPath(id));
      expect(next.status).toBe(200);
      expect(next.body.length).toBe(16 * 1024 * 1024);
      held.destroy();
    } finally {
      await server.close();
    }
  });
});
