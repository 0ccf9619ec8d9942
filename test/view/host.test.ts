/**
 * `view --host` (issue #28, finding 5: bound to 127.0.0.1 only, the server could not be reached from the shipped
 * container): another address to listen on, a warning when it is not loopback (the server has no authentication), and
 * the Host allow-list against DNS rebinding extended for it — the bound address, for `0.0.0.0` the machine's
 * interface addresses and hostname, and `--allow-host` names — still refusing every other name.
 */
import { request } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startViewServer } from '../../src/view/index.js';
import { tempDir } from '../pipeline/helpers.js';
import { runCli, spawnView } from '../cli/cli-helpers.js';

let work: { dir: string; cleanup: () => Promise<void> };
/** A non-loopback IPv4 address of this machine, when it has one. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

beforeAll(async () => {
  work = await tempDir('replay-export-view-host-');
  const line = {
    replay_id: 'dev/1795308171251',
    status: 'failed',
    recorded_at: '2026-11-27T00:00:00.000Z',
    error: { code: 'x', message: 'x' },
  };
  await writeFile(join(work.dir, 'manifest.ndjson'), `${JSON.stringify(line)}\n`);
});

afterAll(async () => {
  await work?.cleanup();
});

/** The status of GET / sent to `address`:`port` with `host` as the Host header. */
function status(address: string, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: address, port, path: '/', headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the Host allow-list', () => {
  it('on 127.0.0.1 (the default): loopback names on any port; other names refused', async () => {
    const server = await startViewServer({ out: work.dir });
    try {
      expect(server.loopback).toBe(true);
      expect(await status('127.0.0.1', server.port, `127.0.0.1:${server.port}`)).toBe(200);
      expect(await status('127.0.0.1', server.port, 'localhost:9000')).toBe(200);
      for (const foreign of [
        `evil.example:${server.port}`,
        'evil.example',
        hostname(),
        ...(external ? [external] : []),
        'localhost.evil.example',
      ]) {
        expect(await status('127.0.0.1', server.port, foreign), foreign).toBe(421);
      }
    } finally {
      await server.close();
    }
  });

  it('on 0.0.0.0: the machine hostname, its interface addresses and --allow-host names; no other', async () => {
    const server = await startViewServer({
      out: work.dir,
      host: '0.0.0.0',
      allowHosts: ['replay-view', 'Viewer.Example:8080'],
    });
    try {
      expect(server.loopback).toBe(false);
      expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
      for (const name of [
        hostname(),
        `${hostname()}:${server.port}`,
        `127.0.0.1:${server.port}`,
        'replay-view:8080',
        'viewer.example',
      ]) {
        expect(await status('127.0.0.1', server.port, name), name).toBe(200);
      }
      if (external) expect(await status(external, server.port, `${external}:${server.port}`)).toBe(200);
      for (const foreign of [
        'evil.example',
        `evil.example:${server.port}`,
        'replay-view.evil.example',
        '[::2]',
        'a b',
      ]) {
        expect(await status('127.0.0.1', server.port, foreign), foreign).toBe(421);
      }
    } finally {
      await server.close();
    }
  });

  it.runIf(external !== undefined)('on one outside address: that address, not the loopback names', async () => {
    const server = await startViewServer({ out: work.dir, host: external! });
    try {
      expect(server.url).toBe(`http://${external}:${server.port}/`);
      expect(await status(external!, server.port, `${external}:${server.port}`)).toBe(200);
      expect(await status(external!, server.port, `localhost:${server.port}`)).toBe(421);
      expect(await status(external!, server.port, hostname())).toBe(421);
    } finally {
      await server.close();
    }
  });

  it('refuses an --allow-host that is not a host name', async () => {
    await expect(startViewServer({ out: work.dir, allowHosts: ['a/b'] })).rejects.toThrow(
      '--allow-host must be a host name',
    );
  });
});

describe('view --host', () => {
  it('prints a warning when the address is not loopback, none when it is', async () => {
    const open = await spawnView(['view', work.dir, '--host', '0.0.0.0', '--allow-host', 'replay-view']);
    expect(await status('127.0.0.1', Number(new URL(open.url).port), 'replay-view')).toBe(200);
    open.child.kill('SIGINT');
    const opened = await open.done;
    expect(opened.code).toBe(0);
    expect(opened.stderr).toMatch(
      /warn.*view has no authentication: anyone who can reach 0\.0\.0\.0 port \d+ reads every replay/,
    );
    expect(opened.stderr).toContain('replay-view');

    const local = await spawnView(['view', work.dir]);
    local.child.kill('SIGINT');
    const closed = await local.done;
    expect(closed.code).toBe(0);
    expect(closed.stderr).not.toContain('no authentication');
    expect(closed.stderr).toContain('on 127.0.0.1 only');
  }, 60_000);

  it('an --allow-host that is not a host name is a usage error', async () => {
    const bad = await runCli(['view', work.dir, '--allow-host', 'a/b']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--allow-host must be a host name');
  }, 30_000);
});
