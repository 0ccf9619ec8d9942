/**
 * A hostile local target (issue #37 item 1), through the commands and the library: a FIFO where a file belongs (an
 * output, an asset, a claim, the manifest, the fold lock) is refused at once with a typed error, never waited on;
 * `view` keeps answering other replays meanwhile; a file swapped for a link in a loop while `view` serves it never
 * gives the outside file; `_balance` linked to an outside folder loses nothing there; SIGTERM ends a balanced run that
 * waits on the file system.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../../sinks/archive.js';
import { replayKeyBase } from '../../../sinks/keys.js';
import { createLocalSink } from '../../../sinks/local.js';
import { Target } from '../../../sinks/target/target.js';
import { localWorkClaims, workClaimKey } from '../../../sinks/work-claims.js';
import { shardOf } from '../../../src/pipeline/shard.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { verifyArchive } from '../../../src/verify/verify-archive.js';
import { startViewServer } from '../../../src/view/server.js';
import { runCliInProcess, sandboxEnv, spawnCli } from '../../cli/cli-helpers.js';
import { tempDir } from '../../pipeline/helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
let out: string;
let outside: string;

beforeAll(async () => {
  sandbox = await startSandbox({ replicas: 2 });
});
afterAll(async () => {
  await sandbox?.close();
});
afterEach(async () => {
  await work?.cleanup();
});

async function fresh(): Promise<void> {
  work = await tempDir('replay-export-hostile-');
  out = join(work.dir, 'archive');
  outside = join(work.dir, 'outside');
  await mkdir(outside);
  await writeFile(join(outside, 'secret'), 'outside\n');
}

const mkfifo = (path: string): void => void execFileSync('mkfifo', [path]);

/** An archive of the sandbox's replays (json), with one asset stored and mapped by nothing. */
async function archived(): Promise<{ ids: string[]; keys: Map<string, string>; digest: string }> {
  const env = sandboxEnv(sandbox);
  const run = await runCliInProcess(['archive', '--out', out, '--settle', '0', '--no-compact'], { env });
  expect(run.code, run.stderr).toBe(0);
  const keys = new Map<string, string>();
  for (const line of (await readFile(join(out, 'manifest.ndjson'), 'utf8')).trim().split('\n')) {
    const e = JSON.parse(line) as { replay_id: string; key?: string };
    if (e.key !== undefined) keys.set(e.replay_id, e.key);
  }
  const body = Buffer.from('asset bytes\n');
  const digest = createHash('sha256').update(body).digest('hex');
  const sink = createLocalSink(out, { hashWorker: false });
  await sink.putAsset(digest, 'text/plain', body);
  await sink.close();
  return { ids: [...keys.keys()].sort(), keys, digest };
}

describe('a FIFO where a file belongs is refused at once', () => {
  it('at the manifest: archive stops before exporting anything (SINK_PATH_ESCAPE), without waiting', async () => {
    await fresh();
    await mkdir(out);
    mkfifo(join(out, 'manifest.ndjson'));
    const run = await runCliInProcess(['archive', '--out', out, '--settle', '0'], { env: sandboxEnv(sandbox) });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/manifest\.ndjson in .* is not a regular file; refusing to use it as the manifest/);
    expect(await readdir(out)).toEqual(['manifest.ndjson']);
  });

  it('at an output and at an asset: verify reports them unreadable and ends', async () => {
    await fresh();
    const { ids, keys, digest } = await archived();
    const key = keys.get(ids[0]!)!;
    await rm(join(out, key));
    mkfifo(join(out, key));
    await rm(join(out, '_assets', digest));
    mkfifo(join(out, '_assets', digest));
    const problems = [];
    for await (const p of verifyArchive({ out })) problems.push(p);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'unreadable', key, message: expect.stringMatching(/not a regular file/) }),
        expect.objectContaining({ kind: 'unreadable', key: `_assets/${digest}` }),
      ]),
    );
  });

  it('at an output and an asset: view answers those at once (502) and keeps answering the other replays', async () => {
    await fresh();
    const { ids, keys, digest } = await archived();
    const key = keys.get(ids[0]!)!;
    await rm(join(out, key));
    mkfifo(join(out, key));
    await rm(join(out, '_assets', digest));
    mkfifo(join(out, '_assets', digest));
    const server = await startViewServer({ out });
    try {
      const get = (path: string): Promise<number> =>
        fetch(new URL(path, server.url)).then(async (r) => (await r.arrayBuffer(), r.status));
      // More at once than the thread pool's four threads: one blocked read each would hold every other answer.
      const attempts = Array.from({ length: 6 }, (_, i) =>
        get(i % 2 === 0 ? `/replays/${encodeURIComponent(ids[0]!)}/events.ndjson` : `/assets/${digest}`),
      );
      expect(await get(`/replays/${encodeURIComponent(ids[1]!)}/events.ndjson`)).toBe(200);
      expect(await Promise.all(attempts)).toEqual([502, 502, 502, 502, 502, 502]);
    } finally {
      await server.close();
    }
  });

  it('at a work claim: taking it, or recording its end, is a typed error at once', async () => {
    await fresh();
    const claims = localWorkClaims(new Target(out), 'night-1');
    expect(await claims.take('dev/1', '0/2')).toBeUndefined();
    const taken = join(out, ...workClaimKey('night-1', 'dev/2', 'taken').split('/'));
    await mkdir(join(taken, '..'), { recursive: true });
    mkfifo(taken);
    await expect(claims.take('dev/2', '0/2')).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    mkfifo(join(out, ...workClaimKey('night-1', 'dev/1', 'done').split('/')));
    await expect(claims.finish('dev/1')).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    expect(await claims.finishedAt('dev/1')).toBeUndefined();
  });

  it('at the fold lock: the fold does not run, and does not wait', async () => {
    await fresh();
    await archived();
    await mkdir(join(out, '_manifest'), { recursive: true });
    mkfifo(join(out, '_manifest', 'compact.lock'));
    const archive = await openArchive(out, { create: false });
    try {
      expect(await archive.manifest.compact({ layout: 'all' })).toMatchObject({ compacted: false });
    } finally {
      await archive.close();
    }
  });
});

describe('links', () => {
  it('_balance linked to an outside folder: the clean-up of a balanced run removes nothing there', async () => {
    await fresh();
    await mkdir(join(outside, 'night-0', 'dev'), { recursive: true });
    await writeFile(join(outside, 'night-0', 'dev', '1.taken'), '1/2');
    await mkdir(out);
    await symlink(outside, join(out, '_balance'));
    await expect(localWorkClaims(new Target(out), 'night-1').clearOtherRuns()).rejects.toMatchObject({
      code: 'SINK_PATH_ESCAPE',
    });
    // A whole balanced shard 0 run: its claims refused, nothing outside touched.
    const run = await runCliInProcess(
      ['archive', '--out', out, '--settle', '0', '--shard', '0/2', '--balance', 'night-1'],
      {
        env: sandboxEnv(sandbox),
      },
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/folder _balance in the target is a symbolic link/);
    expect((await readdir(outside, { recursive: true })).sort()).toEqual([
      'night-0',
      'night-0/dev',
      'night-0/dev/1.taken',
      'secret',
    ]);
  });

  it("an earlier run's claim folder (or a folder in it) that is a link goes itself; what it points to stays", async () => {
    await fresh();
    await mkdir(join(out, '_balance', 'night-0'), { recursive: true });
    await symlink(outside, join(out, '_balance', 'night-0', 'dev'));
    await symlink(outside, join(out, '_balance', 'night-00'));
    expect(await localWorkClaims(new Target(out), 'night-1').clearOtherRuns()).toBe(2);
    expect(await readdir(join(out, '_balance'))).toEqual([]);
    expect(await readdir(outside)).toEqual(['secret']);
  });

  it('a stored file swapped for a link in a loop while view serves it: no answer carries the outside file', async () => {
    await fresh();
    const { digest } = await archived();
    const asset = join(out, '_assets', digest);
    const inside = await readFile(asset, 'utf8');
    // Another process swaps the asset for a link to the outside file and back, as fast as it can.
    const script = `const fs = require('fs');
      const [asset, secret] = [${JSON.stringify(asset)}, ${JSON.stringify(join(outside, 'secret'))}];
      fs.copyFileSync(asset, asset + '.real');
      for (;;) {
        fs.symlinkSync(secret, asset + '.link');
        fs.renameSync(asset + '.link', asset);
        fs.copyFileSync(asset + '.real', asset + '.copy');
        fs.renameSync(asset + '.copy', asset);
      }`;
    const swapper = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    const server = await startViewServer({ out });
    const seen = { inside: 0, outside: 0, refused: 0 };
    try {
      for (let round = 0; round < 300; round++) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, async () => {
            const r = await fetch(new URL(`/assets/${digest}`, server.url));
            return { status: r.status, body: await r.text() };
          }),
        );
        for (const a of answers) {
          if (a.body.includes('outside')) seen.outside++;
          else if (a.status === 200 && a.body === inside) seen.inside++;
          else seen.refused++;
        }
      }
    } finally {
      swapper.kill('SIGKILL');
      await server.close();
    }
    expect(seen).toMatchObject({ outside: 0 });
    // The race was run: both the file and the link were met.
    expect(seen.inside).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });
});

describe('signals', () => {
  it('SIGTERM during the fold at the end of an archive run ends the command; the fold stops, nothing is lost', async () => {
    await fresh();
    await mkdir(out);
    // A log long enough that its fold lasts: the run's own replays come on top of it.
    const lines = 400_000;
    const at = new Date(Date.UTC(2026, 10, 1)).toISOString();
    const log = Array.from(
      { length: lines },
      (_, i) => `{"replay_id":"dev/${i}","status":"skipped","reason":"settling","recorded_at":"${at}"}\n`,
    ).join('');
    await writeFile(join(out, 'manifest.ndjson'), log);
    const { child, done } = spawnCli(['archive', '--out', out, '--settle', '0'], sandboxEnv(sandbox));
    const lock = join(out, '_manifest', 'compact.lock');
    let folding = false;
    for (let i = 0; i < 3000 && !folding; i++) {
      folding = (await readdir(join(out, '_manifest')).catch(() => [] as string[])).includes('compact.lock');
      if (!folding) await new Promise((r) => setTimeout(r, 20));
    }
    expect(folding, lock).toBe(true);
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code, result.stderr).toBe(130);
    // Stopped before its snapshot was put in place: the log, moved aside, still holds every line; none is lost.
    expect(await readdir(join(out, '_manifest'))).not.toContain('snapshot.ndjson');
    const archive = await openArchive(out, { create: false });
    const ids = new Set<string>();
    try {
      for await (const entry of archive.manifest.read()) ids.add(entry.replay_id);
    } finally {
      await archive.close();
    }
    expect(ids.size).toBe(lines + sandbox.replays().length);
  });

  it('SIGTERM ends a balanced archive that waits for a claim another shard holds', async () => {
    await fresh();
    const ids = sandbox.replays().map((r) => r.replayId);
    const held = ids.find((id) => shardOf(id, 2) === 0)!;
    const claim = join(out, '_balance', 'night-1', `${replayKeyBase(held)}.taken`);
    await mkdir(join(claim, '..'), { recursive: true });
    await writeFile(claim, '1/2');
    const { child, done } = spawnCli(
      ['archive', '--out', out, '--settle', '0', '--shard', '0/2', '--balance', 'night-1', '--no-compact'],
      sandboxEnv(sandbox),
    );
    // Every other replay recorded: what is left is the wait for the held one (10 minutes by default).
    for (let i = 0; i < 600; i++) {
      const lines = await readFile(join(out, 'manifest.ndjson'), 'utf8').catch(() => '');
      if (lines.trim().split('\n').filter(Boolean).length >= ids.length - 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code, result.stderr).toBe(130);
  });
});
