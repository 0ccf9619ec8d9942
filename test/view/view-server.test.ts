/**
 * `view` over real loopback: archives made from the sandbox (json.gz with one failed replay, ndjson, html pages and
 * html.gz), then the index's filters and paging, the events stream against each recording in every format, hostile
 * requests, and Chromium playing a replay from the index (of a json and of an html archive) with no request leaving
 * the server.
 */
import { request } from 'node:http';
import { mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../samples/lib/chromium.js';
import { archiveReplays } from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { startViewServer, type ViewServer } from '../../src/view/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { FAST, readManifest } from '../pipeline/helpers.js';
import { runCli, spawnView } from '../cli/cli-helpers.js';

let sandbox: Sandbox;
let dir: string;
let jsonServer: ViewServer;
let ndjsonServer: ViewServer;
let htmlServer: ViewServer;
let htmlGzServer: ViewServer;
let failedId: string;
const shots = join(packageRoot(), 'test-output', 'view');

async function archive(out: string, format: 'json' | 'ndjson' | 'html', gzip: boolean): Promise<void> {
  const o = { endpoint: sandbox.url, ...sandbox.credentials, ...FAST, out, settleMs: 0, format, gzip };
  for await (const ev of archiveReplays(o)) void ev;
}

/** A raw request, so that Host and the method can be anything. */
function raw(
  server: ViewServer,
  path: string,
  init: { method?: string; host?: string } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: init.method ?? 'GET',
        headers: { host: init.host ?? `127.0.0.1:${server.port}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function rowIds(html: string): string[] {
  return [...html.matchAll(/<tr><td[^>]*>(?:<a href="[^"]*">)?([^<]*)/g)].map((m) =>
    m[1]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))),
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-view-'));
  sandbox = await startSandbox({});
  failedId = sandbox.replays()[1]!.replayId;
  await archive(join(dir, 'ndjson'), 'ndjson', false);
  await archive(join(dir, 'html'), 'html', false);
  await archive(join(dir, 'html-gz'), 'html', true);
  sandbox.setFaults({ corruptFiles: [failedId] });
  await archive(join(dir, 'json'), 'json', true);
  const catalogue = { dir: join(dir, 'catalogues') };
  jsonServer = await startViewServer({ out: join(dir, 'json'), catalogue });
  ndjsonServer = await startViewServer({ out: `file://${join(dir, 'ndjson')}`, catalogue });
  htmlServer = await startViewServer({ out: join(dir, 'html'), catalogue });
  htmlGzServer = await startViewServer({ out: join(dir, 'html-gz'), catalogue });
}, 180_000);

afterAll(async () => {
  await jsonServer?.close();
  await ndjsonServer?.close();
  await htmlServer?.close();
  await htmlGzServer?.close();
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the index', () => {
  it('lists every replay newest first, with a CSP, and pages on the server', async () => {
    const all = await raw(jsonServer, '/?pageSize=1000');
    expect(all.status).toBe(200);
    expect(all.headers['content-security-policy']).toContain("default-src 'none'");
    const ids = rowIds(all.body);
    expect(new Set(ids)).toEqual(new Set(sandbox.replays().map((r) => r.replayId)));
    const starts = sandbox
      .replays()
      .map((r) => [r.replayId, Date.parse(String((r.record as { start_time?: string }).start_time))] as const);
    const startOf = new Map(starts);
    const ordered = ids.map((id) => startOf.get(id)!);
    expect(ordered).toEqual([...ordered].sort((a, b) => b - a));
    const oldest = rowIds((await raw(jsonServer, '/?pageSize=1000&sort=start')).body);
    expect(oldest).toEqual([...ids].reverse());

    const first = await raw(jsonServer, '/?pageSize=2');
    const second = await raw(jsonServer, '/?pageSize=2&page=2');
    expect(rowIds(first.body)).toEqual(ids.slice(0, 2));
    expect(rowIds(second.body)).toEqual(ids.slice(2, 4));
    expect(first.body).toContain(`page 1 of ${Math.ceil(ids.length / 2)} (${ids.length} replays)`);
    expect(first.body).toContain('page=2');
    // A page past the end answers the last page.
    const past = await raw(jsonServer, '/?pageSize=2&page=999');
    expect(past.status).toBe(200);
    expect(rowIds(past.body)).toEqual(ids.slice(-(ids.length % 2 || 2)));
  });

  it('filters by status, user, device, date and duration, and refuses bad values', async () => {
    expect(rowIds((await raw(jsonServer, '/?status=failed')).body)).toEqual([failedId]);
    const okIds = rowIds((await raw(jsonServer, '/?status=ok&pageSize=1000')).body);
    expect(okIds).not.toContain(failedId);
    expect(okIds.length).toBe(sandbox.replays().length - 1);

    const withUser = sandbox.replays().find((r) => r.replayId.includes('/'))!;
    const user = withUser.replayId.slice(0, withUser.replayId.lastIndexOf('/'));
    const byDevice = rowIds((await raw(jsonServer, `/?device=${encodeURIComponent(user)}&pageSize=1000`)).body);
    expect(byDevice).toContain(withUser.replayId);
    expect(byDevice.every((id) => id.startsWith(user))).toBe(true);
    // ?user= is the platform user id the manifest records, as `archive --user` takes it.
    const entries = (await readManifest(join(dir, 'json'))) as {
      replay_id: string;
      platform_id?: number;
      checks?: { first_url?: string };
    }[];
    const owned = entries.find((e) => typeof e.platform_id === 'number')!;
    const byUser = rowIds((await raw(jsonServer, `/?user=${owned.platform_id}&pageSize=1000`)).body);
    expect(byUser).toContain(owned.replay_id);
    expect(new Set(byUser)).toEqual(
      new Set(entries.filter((e) => e.platform_id === owned.platform_id).map((e) => e.replay_id)),
    );
    // The first page's URL, recorded at export, is a column and a filter.
    const withUrl = entries.find((e) => typeof e.checks?.first_url === 'string')!;
    const byUrl = await raw(jsonServer, `/?url=${encodeURIComponent(withUrl.checks!.first_url!)}&pageSize=1000`);
    expect(rowIds(byUrl.body)).toContain(withUrl.replay_id);

    expect(rowIds((await raw(jsonServer, '/?to=1970-01-01')).body)).toEqual([]);
    expect(rowIds((await raw(jsonServer, '/?from=1970-01-01&pageSize=1000')).body).length).toBe(
      sandbox.replays().length,
    );
    expect(rowIds((await raw(jsonServer, '/?min=99999999')).body)).toEqual([]);
    expect((await raw(jsonServer, '/?status=nope')).status).toBe(400);
    expect((await raw(jsonServer, '/?from=yesterday')).status).toBe(400);
    expect((await raw(jsonServer, '/?pageSize=100000')).status).toBe(400);
    expect((await raw(jsonServer, '/?sort=size')).status).toBe(400);
  });
});

describe('events', () => {
  it.each(['json', 'ndjson', 'html', 'html.gz'] as const)(
    'events.ndjson of every ok replay equals its recording (%s archive)',
    async (kind) => {
      const server = { json: jsonServer, ndjson: ndjsonServer, html: htmlServer, 'html.gz': htmlGzServer }[kind];
      for (const r of sandbox.replays()) {
        if (kind === 'json' && r.replayId === failedId) continue;
        const res = await raw(server, `/replays/${encodeURIComponent(r.replayId)}/events.ndjson`);
        expect(res.status, r.replayId).toBe(200);
        const got = res.body
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as unknown);
        expect(got).toEqual(JSON.parse(await readFile(r.expectedPath, 'utf8')));
      }
    },
  );

  it('a failed replay has no events', async () => {
    expect((await raw(jsonServer, `/replays/${encodeURIComponent(failedId)}/events.ndjson`)).status).toBe(404);
  });
});

describe('one shared player', () => {
  it('a replay page is a small shell; the player files are served once, versioned and cached for good', async () => {
    const target = sandbox.replays().find((r) => r.replayId !== failedId)!;
    const shell = await raw(jsonServer, `/replays/${encodeURIComponent(target.replayId)}`);
    expect(shell.status).toBe(200);
    expect(shell.headers['content-security-policy']).toContain("script-src 'self'");
    // A way back to the index.
    expect(shell.body).toContain('<a id="back" href="/">');
    const assets = [...shell.body.matchAll(/(?:src|href)="(\/player\/[0-9a-f]{16}\/[a-z.]+)"/g)].map((m) => m[1]!);
    expect(assets.sort()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/rrweb\.js$/),
        expect.stringMatching(/player\.js$/),
        expect.stringMatching(/player\.css$/),
      ]),
    );
    let playerBytes = 0;
    for (const path of assets) {
      const file = await raw(jsonServer, path);
      expect(file.status, path).toBe(200);
      expect(file.headers['cache-control']).toContain('immutable');
      playerBytes += Buffer.byteLength(file.body);
    }
    // The page of each replay is a small fraction of the player it no longer carries.
    expect(Buffer.byteLength(shell.body)).toBeLessThan(playerBytes / 50);
    const stale = assets[0]!.replace(/\/player\/[0-9a-f]{16}\//, '/player/0000000000000000/');
    expect((await raw(jsonServer, stale)).status).toBe(404);
    expect((await raw(jsonServer, '/player/../manifest.ndjson')).status).toBe(404);
  });

  it('the page and a HEAD of the events open the stored object only to close it at once', async () => {
    const target = sandbox.replays().find((r) => r.replayId !== failedId)!;
    const path = `/replays/${encodeURIComponent(target.replayId)}`;
    expect((await raw(jsonServer, path)).status).toBe(200);
    expect((await raw(jsonServer, `${path}/events.ndjson`, { method: 'HEAD' })).status).toBe(200);
    // Nothing of the archive is held open after the answers (Linux: /proc/self/fd).
    const fds = await readdir('/proc/self/fd').catch(() => [] as string[]);
    const open = await Promise.all(fds.map((fd) => readlink(join('/proc/self/fd', fd)).catch(() => '')));
    expect(open.filter((p) => p.startsWith(join(dir, 'json') + '/'))).toEqual([]);
  });
});

describe('hostile requests', () => {
  it('refuses paths outside the manifest, unknown ids, other hosts and other methods', async () => {
    for (const path of [
      '/manifest.ndjson',
      '/../manifest.ndjson',
      '/replays/..%2Fmanifest.ndjson',
      '/replays/..%2F..%2F..%2Fetc%2Fpasswd/events.ndjson',
      '/replays/nope',
      '/replays/%E0%A4%A',
      '/replays/x/y/z',
    ]) {
      const res = await raw(jsonServer, path);
      expect([400, 404], path).toContain(res.status);
      expect(res.body).not.toContain('replay_id');
    }
    expect((await raw(jsonServer, '/', { host: 'evil.example:80' })).status).toBe(421);
    expect((await raw(jsonServer, '/', { host: `evil.example:${jsonServer.port}` })).status).toBe(421);
    expect((await raw(jsonServer, '/', { host: `localhost:${jsonServer.port}` })).status).toBe(200);
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS'])
      expect((await raw(jsonServer, '/', { method })).status).toBe(405);
    const head = await raw(jsonServer, `/replays/${encodeURIComponent(sandbox.replays()[0]!.replayId)}`, {
      method: 'HEAD',
    });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('refuses a replay whose folder was swapped for a symbolic link', async () => {
    const target = sandbox.replays().find((r) => r.replayId !== failedId)!;
    const res = await raw(ndjsonServer, `/replays/${encodeURIComponent(target.replayId)}/events.ndjson`);
    expect(res.status).toBe(200);
    const manifest = await readManifest(join(dir, 'ndjson'));
    const key = manifest.find((e) => e.replay_id === target.replayId)!.key as string;
    const folder = join(dir, 'ndjson', key.split('/')[0]!);
    await rename(folder, `${folder}.real`);
    await symlink(`${folder}.real`, folder);
    try {
      expect((await raw(ndjsonServer, `/replays/${encodeURIComponent(target.replayId)}/events.ndjson`)).status).toBe(
        502,
      );
    } finally {
      await rm(folder);
      await rename(`${folder}.real`, folder);
    }
  });
});

describe('in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
    await mkdir(shots, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it.each(['json', 'html'] as const)(
    'opens the index and plays a replay from it, with no request leaving the server (%s archive)',
    async (kind) => {
      const server = kind === 'json' ? jsonServer : htmlServer;
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const origin = server.url.replace(/\/$/, '');
      const left: string[] = [];
      const violations: string[] = [];
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:') || url === 'about:blank')
          return route.continue();
        left.push(url);
        return route.abort();
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      page.on('console', (msg) => {
        if (/Content Security Policy/i.test(msg.text()) && /script/i.test(msg.text())) violations.push(msg.text());
      });
      await page.goto(server.url);
      await page.waitForSelector('table tbody tr');
      await page.screenshot({ path: join(shots, `index-${kind}.png`) });
      const target = sandbox.replays().find((r) => r.replayId !== failedId)!;
      await page.click(`a[href="/replays/${encodeURIComponent(target.replayId)}"]`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForSelector('#stage iframe');
      await page.waitForTimeout(500);
      await page.screenshot({ path: join(shots, `replay-${kind}.png`) });
      await page.waitForSelector('body[data-loaded="true"]');
      await expect.poll(() => page.textContent('#status')).toContain(` · ${target.eventCount} events`);
      expect(errors).toEqual([]);
      expect(violations).toEqual([]);
      expect(left.filter((u) => !u.startsWith('chrome') && !u.startsWith('about:'))).toEqual([]);
      await context.close();
    },
    60_000,
  );

  it('shows the index on a 390 px screen as a list that fits it', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${jsonServer.url}?pageSize=5`);
    await page.waitForSelector('table tbody tr');
    await page.screenshot({ path: join(shots, 'index-390.png'), fullPage: true });
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      rows: Array.from(document.querySelectorAll('tbody tr')).map((tr) => tr.getBoundingClientRect().right),
      head: getComputedStyle(document.querySelector('thead')!).display,
    }));
    expect(widths.page).toBeLessThanOrEqual(390);
    expect(widths.rows.every((right) => right <= 390)).toBe(true);
    expect(widths.head).toBe('none');
    // Each replay a block of labelled lines; the sort is a choice of the form.
    expect(await page.textContent('tbody tr td[data-l="start"]')).toMatch(/^\d{4}-/);
    expect(await page.locator('select[name="sort"] option').count()).toBeGreaterThan(20);
    await context.close();
  }, 60_000);
});

describe('the view command', () => {
  it('prints the URL, serves the archive and stops on SIGINT with exit code 0', async () => {
    const { child, done, url } = await spawnView(['view', join(dir, 'ndjson')]);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(rowIds(await res.text()).length).toBe(sandbox.replays().length);
    child.kill('SIGINT');
    const result = await done;
    expect(result.code).toBe(0);
    expect(
      (await raw({ port: Number(new URL(url).port) } as ViewServer, '/').catch((e: Error) => e)) instanceof Error,
    ).toBe(true);
  }, 60_000);

  it('refuses an archive of another scheme (usage error) and a folder without a manifest (exit 1, nothing created)', async () => {
    const other = await runCli(['view', 'gs://bucket/prefix']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('unsupported target scheme: gs');
    const missing = await runCli(['view', join(dir, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no archive at ${join(dir, 'nope')} (no manifest found)`);
    await expect(stat(join(dir, 'nope'))).rejects.toThrow();
  }, 60_000);
});
