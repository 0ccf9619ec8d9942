import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { lastById, readJson, readManifest, readOutput, tempDir } from '../pipeline/helpers.js';
import { cleanEnv, runCli, sha256Of, spawnCli, walk } from './cli-helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };

beforeEach(async () => {
  work = await tempDir('replay-export-cli-');
});
afterEach(async () => {
  await sandbox?.close();
  await work.cleanup();
});

function env(sb: Sandbox, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({
    PLATFORM_API_KEY: sb.credentials.apiKey,
    PLATFORM_SECRET_KEY: sb.credentials.secretKey,
    PLATFORM_ENDPOINT: sb.url,
    ...extra,
  });
}

/** Every replay of the sandbox has its output, equal to its recording, and its manifest line's sha256 matches. */
async function expectAllExported(sb: Sandbox, out: string): Promise<void> {
  const last = lastById(await readManifest(out));
  for (const r of sb.replays()) {
    const entry = last.get(r.replayId);
    expect(entry?.status, r.replayId).toBe('ok');
    const path = join(out, entry!.key as string);
    expect(await readOutput(path)).toEqual(await readJson(r.expectedPath));
    expect(await sha256Of(path)).toBe(entry!.sha256);
    expect((await stat(path)).size).toBe(entry!.bytes);
  }
}

describe('archive through the CLI against the sandbox', () => {
  test('with every fault on (latency, 429, 5xx, resets, URLs expiring mid-run) outputs equal the recordings', async () => {
    sandbox = await startSandbox({
      replicas: 6,
      faults: { latencyMs: 10, rateLimitEvery: 9, retryAfterSeconds: 0, serverErrorEvery: 7, resetEvery: 5 },
    });
    const out = join(work.dir, 'out');
    // Every URL issued so far stops working, several times during the run: after the 3rd, 10th, 20th and 35th
    // storage request (counted, not timed, so a slow start of the CLI on a loaded machine cannot let the run
    // finish before the first flip).
    const thresholds = [3, 10, 20, 35];
    const flipper = setInterval(() => {
      while (thresholds.length > 0 && sandbox.stats().storageRequests >= thresholds[0]!) {
        thresholds.shift();
        sandbox.setFaults({ expireUrls: true });
      }
    }, 5);
    const res = await runCli(
      ['archive', '--out', out, '--settle', '0', '--log-format', 'json', '--concurrency', '3'],
      env(sandbox),
    ).finally(() => clearInterval(flipper));
    expect(res.stderr).not.toContain(sandbox.credentials.secretKey);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe('');
    const st = sandbox.stats();
    expect(st.rateLimited).toBeGreaterThan(0);
    expect(st.serverErrors).toBeGreaterThan(0);
    expect(st.resets).toBeGreaterThan(0);
    expect(st.expired).toBeGreaterThan(0);
    await expectAllExported(sandbox, out);
    const summary = res.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.event === 'summary');
    expect(summary).toMatchObject({ ok: sandbox.replays().length, failed: 0 });
  });

  test('a corrupt replay exits 1, is recorded failed with its file key, and the others are intact', async () => {
    sandbox = await startSandbox({});
    const bad = sandbox.replays()[1]!.replayId;
    sandbox.setFaults({ corruptFiles: [bad] });
    const out = join(work.dir, 'out');
    const res = await runCli(['archive', '--out', out, '--settle', '0'], env(sandbox));
    expect(res.code, res.stderr).toBe(1);
    const last = lastById(await readManifest(out));
    const failed = last.get(bad)!;
    expect(failed.status).toBe('failed');
    const fileKey = (failed.error as { file_key: string }).file_key;
    expect(fileKey).toMatch(/\/v3\/\d{13}-\d{4}\.json\.gz$/);
    expect(res.stderr).toContain(fileKey);
    expect(res.stderr).toContain(`failed ${bad}`);
    for (const r of sandbox.replays()) {
      if (r.replayId === bad) continue;
      const e = last.get(r.replayId)!;
      expect(e.status).toBe('ok');
      expect(await readOutput(join(out, e.key as string))).toEqual(await readJson(r.expectedPath));
    }
    // Nothing of the failed replay is left at its final key.
    expect((await walk(out)).filter((f) => f.startsWith(bad.split('/')[0]!))).toEqual([]);
  });

  test('hostile replay ids stay inside the target and stay distinct', async () => {
    const hostile = ['../1795000000001', '..%2F..%2Fetc/passwd', 'CON/aux', '.hidden/..', 'ÄÖ日本/🙂 x', 'A/b', 'a/b'];
    sandbox = await startSandbox({ extraReplays: hostile.map((replay_id) => ({ replay_id, sample: 'form-typing' })) });
    const root = join(work.dir, 'root');
    const out = join(root, 'inner', 'out');
    const res = await runCli(['archive', '--out', out, '--settle', '0'], env(sandbox));
    expect(res.code, res.stderr).toBe(0);
    const files = await walk(root);
    expect(files.every((f) => f.startsWith('inner/out/'))).toBe(true);
    const last = lastById(await readManifest(out));
    const keys = new Set<string>();
    for (const id of hostile) {
      const e = last.get(id)!;
      expect(e.status).toBe('ok');
      keys.add(e.key as string);
    }
    expect(keys.size).toBe(hostile.length);
    await expectAllExported(sandbox, out);
  });

  test('SIGKILL mid-archive, then a re-run: every replay exactly once and correct', async () => {
    sandbox = await startSandbox({ replicas: 24, faults: { latencyMs: 25 } });
    const out = join(work.dir, 'out');
    const { child, done } = spawnCli(['archive', '--out', out, '--settle', '0', '--concurrency', '2'], env(sandbox));
    // Kill as soon as a few outputs exist (the run is then in the middle of others).
    for (;;) {
      const outputs = (await walk(out).catch(() => [])).filter(
        (f) => f.endsWith('.json') && !f.startsWith('.') && !f.includes('/.'),
      );
      if (outputs.length >= 3) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    const killed = await done;
    expect(killed.signal).toBe('SIGKILL');
    const before = lastById(await readManifest(out));
    expect(before.size).toBeLessThan(sandbox.replays().length);

    sandbox.setFaults({ latencyMs: 0 });
    const res = await runCli(['archive', '--out', out, '--settle', '0'], env(sandbox));
    expect(res.code, res.stderr).toBe(0);
    await expectAllExported(sandbox, out);
    // Exactly one output per replay (temporary files of the killed run aside).
    const finals = (await walk(out)).filter(
      (f) => f !== 'manifest.ndjson' && !f.startsWith('_manifest/') && !f.split('/').some((s) => s.startsWith('.')),
    );
    expect(finals.length).toBe(sandbox.replays().length);
    // Replays finished before the kill were not exported again.
    const rerun = await readManifest(out);
    for (const [id, e] of before) if (e.status === 'ok') expect(rerun.filter((l) => l.replay_id === id).length).toBe(1);
  });

  test('a held replay is recorded empty, then exported by the next run once it has files', async () => {
    sandbox = await startSandbox({});
    const held = sandbox.replays()[0]!;
    await sandbox.close();
    sandbox = await startSandbox({ held: [held.replayId] });
    const out = join(work.dir, 'out');
    const first = await runCli(['archive', '--out', out, '--settle', '0'], env(sandbox));
    expect(first.code, first.stderr).toBe(0);
    expect(lastById(await readManifest(out)).get(held.replayId)).toMatchObject({ status: 'empty' });
    sandbox.releaseHeld(held.replayId);
    const second = await runCli(['archive', '--out', out, '--settle', '0'], env(sandbox));
    expect(second.code, second.stderr).toBe(0);
    await expectAllExported(sandbox, out);
  });

  test('--recheck re-exports a replay whose late files appeared; without it the replay is left alone', async () => {
    sandbox = await startSandbox({});
    const late = sandbox.replays().find((r) => r.fileCount[3] >= 2)!;
    await sandbox.close();
    sandbox = await startSandbox({ hiddenTail: { [late.replayId]: 1 } });
    const out = join(work.dir, 'out');
    expect((await runCli(['archive', '--out', out, '--settle', '0'], env(sandbox))).code).toBe(0);
    const partial = lastById(await readManifest(out)).get(late.replayId)!;
    expect(partial.status).toBe('ok');
    expect((partial.file_keys as string[]).length).toBe(late.fileCount[3] - 1);
    sandbox.releaseHeld(late.replayId);

    const plain = await runCli(['archive', '--out', out, '--settle', '0'], env(sandbox));
    expect(plain.code).toBe(0);
    expect(lastById(await readManifest(out)).get(late.replayId)!.file_keys).toEqual(partial.file_keys);

    const rechecked = await runCli(['archive', '--out', out, '--settle', '0', '--recheck', '3650d'], env(sandbox));
    expect(rechecked.code, rechecked.stderr).toBe(0);
    const full = lastById(await readManifest(out)).get(late.replayId)!;
    expect((full.file_keys as string[]).length).toBe(late.fileCount[3]);
    await expectAllExported(sandbox, out);
  });

  test('--settle skips replays that started too recently (recorded skipped/settling)', async () => {
    sandbox = await startSandbox({});
    const newest = Math.max(...sandbox.replays().map((r) => Date.parse(r.record.start_time)));
    // Wide enough to cover every sample however long ago they were recorded.
    const settleDays = Math.ceil((Date.now() - newest) / 86_400_000) + 2;
    const out = join(work.dir, 'out');
    const res = await runCli(['archive', '--out', out, '--settle', `${settleDays}d`], env(sandbox));
    expect(res.code, res.stderr).toBe(0);
    const last = lastById(await readManifest(out));
    for (const r of sandbox.replays())
      expect(last.get(r.replayId)).toMatchObject({ status: 'skipped', reason: 'settling' });
    // Nothing but the manifest, folded at the end of the run into its snapshot.
    expect(await walk(out)).toEqual(['_manifest/snapshot.ndjson']);
    expect(res.stderr).toMatch(/skipped 6/);
    // A second run with nothing new records nothing: the manifest does not grow with replays still settling.
    const lines = (await readManifest(out)).length;
    const again = await runCli(['archive', '--out', out, '--settle', `${settleDays}d`], env(sandbox));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/skipped 6/);
    expect(await readManifest(out)).toHaveLength(lines);
    // Once settled, they are exported (the settling lines did not stand in the way).
    const settled = await runCli(['archive', '--out', out, '--settle', '0'], env(sandbox));
    expect(settled.code, settled.stderr).toBe(0);
    await expectAllExported(sandbox, out);
  });

  test('the manifest records checks, expiry, file keys and versions', async () => {
    sandbox = await startSandbox({});
    const out = join(work.dir, 'out');
    const res = await runCli(
      ['archive', '--out', out, '--settle', '0', '--file-version', '2', '--format', 'ndjson', '--gzip'],
      env(sandbox),
    );
    expect(res.code, res.stderr).toBe(0);
    await expectAllExported(sandbox, out);
    const r = sandbox.replays()[0]!;
    const e = lastById(await readManifest(out)).get(r.replayId)!;
    expect(e.key).toMatch(/\.ndjson\.gz$/);
    expect(e.checks).toMatchObject({ has_meta: true, has_full_snapshot: true, timestamps_backwards: false });
    expect(e.file_versions).toEqual(new Array(r.fileCount[2]).fill(2));
    const start = Date.parse(r.record.start_time);
    expect(e.expires_at).toBe(new Date(start + r.record.retention_in_days * 86_400_000).toISOString());
    const text = await readFile(join(out, '_manifest', 'snapshot.ndjson'), 'utf8');
    expect(text).toContain(r.replayId);
    expect(text).not.toContain('X-Amz');
  });
});
