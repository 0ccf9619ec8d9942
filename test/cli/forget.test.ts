/**
 * `forget` through the CLI against the sandbox and a local archive: outputs gone, the others intact, tombstones in
 * the manifest, and later archive runs (the same sandbox, and one that lists a new replay of the user) export
 * nothing forgotten.
 */
import { appendFile, mkdir, readdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { outputKeysOf, replayKey } from '../../sinks/keys.js';
import { startSandbox, type Sandbox, type SandboxReplay } from '../../src/sandbox/index.js';
import { lastById, readManifest, tempDir } from '../pipeline/helpers.js';
import { runCli, sandboxEnv, sha256Of, walk } from './cli-helpers.js';

let sandbox: Sandbox | undefined;
let work: { dir: string; cleanup: () => Promise<void> };

beforeEach(async () => {
  work = await tempDir('replay-export-forget-');
});
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  await work.cleanup();
});

type Line = Record<string, unknown>;

function jsonLines(stderr: string): Line[] {
  return stderr
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Line);
}

/** The outcome lines of an archive run (`--log-format json`) by replay id. */
function outcomes(stderr: string): Map<string, Line> {
  return new Map(
    jsonLines(stderr)
      .filter((l) => l.event === 'replay')
      .map((l) => [l.replay_id as string, l]),
  );
}

/** The sha256 of every output file of the archive, by key. */
async function outputDigests(out: string): Promise<Map<string, string>> {
  const files = (await walk(out)).filter((f) => f !== 'manifest.ndjson' && !f.startsWith('_manifest/'));
  return new Map(await Promise.all(files.map(async (f) => [f, await sha256Of(join(out, f))] as [string, string])));
}

const json = { format: 'json', gzip: false } as const;

async function archive(
  sb: Sandbox,
  out: string,
  extra: string[] = [],
): Promise<{ code: number | null; stderr: string }> {
  return runCli(['archive', '--out', out, '--settle', '0', '--log-format', 'json', ...extra], sandboxEnv(sb));
}

describe('forget through the CLI (local archive, real sandbox)', () => {
  test('a replay, then a user: outputs gone, others intact, tombstones recorded; later runs export nothing forgotten', async () => {
    sandbox = await startSandbox({ replicas: 6 });
    const all = sandbox.replays();
    const out = join(work.dir, 'archive');
    expect((await archive(sandbox, out)).code).toBe(0);
    const before = await outputDigests(out);
    expect(before.size).toBe(all.length);

    // One replay.
    const one = all.find((r) => r.origin === 'sample')!;
    const res1 = await runCli(['forget', '--out', out, '--replay', one.replayId, '--log-format', 'json']);
    expect(res1.code, res1.stderr).toBe(0);
    expect(jsonLines(res1.stderr).find((l) => l.event === 'forgotten')).toMatchObject({
      replay_id: one.replayId,
      tombstone: true,
      removed: [replayKey(one.replayId, json)],
    });

    // A user with two replays (a sample and its replica share the platform id).
    const platformId = all.find((r) => r.replayId !== one.replayId && r.record.platform_id !== one.record.platform_id)!
      .record.platform_id;
    const users = all.filter((r) => r.record.platform_id === platformId);
    expect(users.length).toBe(2);
    const res2 = await runCli([
      'forget',
      '--out',
      out,
      '--user',
      String(platformId),
      '--reason',
      'erasure request 118',
    ]);
    expect(res2.code, res2.stderr).toBe(0);
    expect(res2.stderr).toContain(`forgot user ${platformId}`);
    expect(res2.stderr).toContain('2 replays forgotten, 2 outputs removed, 0 failed');

    const forgotten = new Set([one.replayId, ...users.map((r) => r.replayId)]);
    const after = await outputDigests(out);
    const kept = all.filter((r) => !forgotten.has(r.replayId));
    // Exactly the forgotten outputs are gone (their device folders with them); every other output is byte for byte as before.
    expect([...after.keys()].sort()).toEqual(kept.map((r) => replayKey(r.replayId, json)).sort());
    for (const [key, digest] of after) expect(digest, key).toBe(before.get(key));
    expect((await walk(out)).some((f) => f.startsWith(one.replayId.split('/')[0]!))).toBe(false);

    const lines = await readManifest(out);
    const last = lastById(lines);
    expect(last.get(one.replayId)).toMatchObject({
      status: 'forgotten',
      scope: 'replay',
      reason: 'forget requested',
      platform_id: one.record.platform_id,
      removed_keys: [replayKey(one.replayId, json)],
      recorded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    for (const r of users) {
      expect(last.get(r.replayId)).toMatchObject({
        status: 'forgotten',
        scope: 'replay',
        reason: 'erasure request 118',
        platform_id: platformId,
        removed_keys: [replayKey(r.replayId, json)],
      });
    }
    const userLine = lines.find((l) => l.scope === 'user')!;
    expect(userLine).toMatchObject({
      replay_id: `forgotten-user:${platformId}/`,
      status: 'forgotten',
      platform_id: platformId,
      reason: 'erasure request 118',
    });
    // The user's tombstone comes before its replays' (a crash in between still covers them all).
    const firstOfUser = Math.min(
      ...users.map((r) => lines.findIndex((l) => l.replay_id === r.replayId && l.status === 'forgotten')),
    );
    expect(lines.indexOf(userLine)).toBeLessThan(firstOfUser);

    // The same sandbox again: the forgotten replays are skipped (reason forgotten) and nothing is recorded for them.
    // The run folds the manifest at its end: the tombstones are the state in the snapshot, the user's too.
    const again = await archive(sandbox, out);
    expect(again.code, again.stderr).toBe(0);
    const seen = outcomes(again.stderr);
    for (const id of forgotten) expect(seen.get(id), id).toMatchObject({ outcome: 'skipped', reason: 'forgotten' });
    expect(await walk(out)).not.toContain('manifest.ndjson');
    const folded = lastById(await readManifest(out));
    for (const id of [...forgotten, `forgotten-user:${platformId}/`]) expect(folded.get(id), id).toEqual(last.get(id));
    expect([...(await outputDigests(out)).keys()].sort()).toEqual([...after.keys()].sort());

    // The sandbox lists no replay later; a second sandbox over the same samples lists two new ones: one of the
    // forgotten user, one of another user. Only the other user's is exported.
    await sandbox.close();
    const late = { replay_id: 'late-device/1795308199999', sample: users[0]!.sample, platform_id: platformId };
    const other = {
      replay_id: 'late-device/1795308199998',
      sample: kept[0]!.sample,
      platform_id: kept[0]!.record.platform_id,
    };
    sandbox = await startSandbox({ replicas: 6, extraReplays: [late, other] });
    const plan = await runCli(
      ['archive', '--out', out, '--settle', '0', '--dry-run', '--log-format', 'json'],
      sandboxEnv(sandbox),
    );
    expect(plan.code, plan.stderr).toBe(0);
    const planned = new Map(
      plan.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line)
        .map((l) => [l.replay_id as string, l]),
    );
    expect(planned.get(late.replay_id)).toMatchObject({ action: 'skip', reason: 'forgotten' });
    expect(planned.get(other.replay_id)).toMatchObject({ action: 'export' });
    const third = await archive(sandbox, out);
    expect(third.code, third.stderr).toBe(0);
    expect(outcomes(third.stderr).get(late.replay_id)).toMatchObject({ outcome: 'skipped', reason: 'forgotten' });
    expect(outcomes(third.stderr).get(other.replay_id)).toMatchObject({ outcome: 'ok' });
    const files = await walk(out);
    expect(files).toContain(replayKey(other.replay_id, json));
    expect(files).not.toContain(replayKey(late.replay_id, json));
    expect(lastById(await readManifest(out)).has(late.replay_id)).toBe(false);

    // Forgetting the user again finds it done: no second tombstone, nothing to remove.
    const count = (await readManifest(out)).length;
    const repeat = await runCli(['forget', '--out', out, '--user', String(platformId)]);
    expect(repeat.code, repeat.stderr).toBe(0);
    expect(repeat.stderr).toContain(`user ${platformId} already forgotten`);
    expect(repeat.stderr).toContain('0 outputs removed');
    expect((await readManifest(out)).length).toBe(count);
  });

  test('a crash between tombstone and removal: archive skips the replay, and forget run again finishes the job', async () => {
    sandbox = await startSandbox({});
    const [a, b] = sandbox.replays() as [SandboxReplay, SandboxReplay];
    const out = join(work.dir, 'archive');
    expect((await archive(sandbox, out)).code).toBe(0);
    // The same replays also as gzipped ndjson in the same target: a replay has outputs in two formats.
    expect((await archive(sandbox, out, ['--format', 'ndjson', '--gzip'])).code).toBe(0);
    const ndjson = { format: 'ndjson', gzip: true } as const;
    // What forget writes first, left alone by a crash: the tombstone, the outputs still there.
    const tombstone = {
      replay_id: a.replayId,
      status: 'forgotten',
      scope: 'replay',
      reason: 'forget requested',
      removed_keys: [],
      recorded_at: new Date().toISOString(),
    };
    await appendFile(join(out, 'manifest.ndjson'), JSON.stringify(tombstone) + '\n');

    const run = await archive(sandbox, out, ['--format', 'ndjson', '--gzip']);
    expect(run.code, run.stderr).toBe(0);
    expect(outcomes(run.stderr).get(a.replayId)).toMatchObject({ outcome: 'skipped', reason: 'forgotten' });
    expect(lastById(await readManifest(out)).get(a.replayId)).toEqual(tombstone);
    const lines = (await readManifest(out)).length;
    // verify names the forgotten replay's outputs still stored.
    const unfinished = await runCli(['verify', out, '--log-format', 'json']);
    expect(unfinished.code, unfinished.stderr).toBe(1);
    const problems = jsonLines(unfinished.stderr).filter((l) => l.kind === 'forgotten_present');
    expect(problems.map((p) => p.key).sort()).toEqual(
      [replayKey(a.replayId, json), replayKey(a.replayId, ndjson)].sort(),
    );

    const finish = await runCli(['forget', '--out', out, '--replay', a.replayId, '--log-format', 'json']);
    expect(finish.code, finish.stderr).toBe(0);
    expect(jsonLines(finish.stderr).find((l) => l.event === 'forgotten')).toMatchObject({
      tombstone: false,
      removed: [replayKey(a.replayId, json), replayKey(a.replayId, ndjson)],
    });
    expect((await readManifest(out)).length).toBe(lines);
    const files = await walk(out);
    for (const key of outputKeysOf(a.replayId)) expect(files).not.toContain(key);
    expect(files).toContain(replayKey(b.replayId, json));
    expect(files).toContain(replayKey(b.replayId, ndjson));
    expect(
      jsonLines((await runCli(['verify', out, '--log-format', 'json'])).stderr).filter(
        (l) => l.kind === 'forgotten_present',
      ),
    ).toEqual([]);

    // export, named, into the same target: skipped too, nothing written.
    const named = await runCli(['export', a.replayId, '--out', out, '--log-format', 'json'], sandboxEnv(sandbox));
    expect(named.code, named.stderr).toBe(0);
    expect(outcomes(named.stderr).get(a.replayId)).toMatchObject({ outcome: 'skipped', reason: 'forgotten' });
    expect(await walk(out)).toEqual(files);
    expect((await readManifest(out)).length).toBe(lines);
  });

  test('a folder that holds no archive (mistyped, or empty) is refused with exit 1 and nothing is created', async () => {
    const mistyped = join(work.dir, 'archiv');
    const res = await runCli(['forget', '--out', mistyped, '--user', '1']);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toContain(`no archive at ${mistyped} (no manifest found)`);
    expect(res.stderr).not.toContain('tombstone');
    expect(await readdir(work.dir)).toEqual([]);

    const empty = join(work.dir, 'empty');
    await mkdir(empty);
    const dry = await runCli(['forget', '--out', empty, '--replay', 'dev/1', '--dry-run', '--log-format', 'json']);
    expect(dry.code, dry.stderr).toBe(1);
    expect(jsonLines(dry.stderr)).toEqual([
      expect.objectContaining({ event: 'fatal', msg: `no archive at ${empty} (no manifest found)` }),
    ]);
    expect(await readdir(empty)).toEqual([]);
  });

  test('--dry-run names the tombstones, outputs and captured assets it would remove, and writes nothing', async () => {
    const out = join(work.dir, 'archive');
    const shared = 'a'.repeat(64);
    const own = 'b'.repeat(64);
    const entry = (id: string, platformId: number, assets: Record<string, string>): string =>
      JSON.stringify({
        replay_id: id,
        status: 'ok',
        key: replayKey(id, json),
        format: 'json',
        gzip: false,
        platform_id: platformId,
        assets,
        recorded_at: '',
      });
    await mkdir(join(out, 'dev'), { recursive: true });
    await mkdir(join(out, '_assets'));
    for (const id of ['dev/1', 'dev/2', 'dev/3']) await appendFile(join(out, replayKey(id, json)), '[]');
    for (const digest of [shared, own]) await appendFile(join(out, '_assets', digest), 'x');
    await appendFile(
      join(out, 'manifest.ndjson'),
      [
        entry('dev/1', 5, { 'https://a/x.css': own, 'https://a/y.css': shared }),
        entry('dev/2', 5, {}),
        entry('dev/3', 6, { 'https://a/y.css': shared }),
      ].join('\n') + '\n',
    );
    const before = await Promise.all((await walk(out)).map(async (f) => [f, await sha256Of(join(out, f))]));

    const dry = await runCli(['forget', '--out', out, '--user', '5', '--dry-run', '--log-format', 'json']);
    expect(dry.code, dry.stderr).toBe(0);
    const lines = jsonLines(dry.stderr);
    expect(lines.find((l) => l.event === 'forgotten_user')).toMatchObject({
      dry_run: true,
      platform_id: 5,
      tombstone: true,
    });
    const forgotten = lines.filter((l) => l.event === 'forgotten');
    expect(forgotten).toEqual([
      expect.objectContaining({
        dry_run: true,
        replay_id: 'dev/1',
        tombstone: true,
        removed: [replayKey('dev/1', json)],
        removed_assets: [own],
      }),
      expect.objectContaining({
        dry_run: true,
        replay_id: 'dev/2',
        tombstone: true,
        removed: [replayKey('dev/2', json)],
        removed_assets: [],
      }),
    ]);
    expect(lines.find((l) => l.event === 'summary')).toMatchObject({
      dry_run: true,
      forgotten: 2,
      removed: 2,
      removed_assets: 1,
    });
    // Not a byte written: the same files, the same contents, the manifest included.
    expect(await Promise.all((await walk(out)).map(async (f) => [f, await sha256Of(join(out, f))]))).toEqual(before);

    // The real run removes exactly what the dry run named.
    const real = await runCli(['forget', '--out', out, '--user', '5', '--log-format', 'json']);
    expect(real.code, real.stderr).toBe(0);
    expect(
      jsonLines(real.stderr)
        .filter((l) => l.event === 'forgotten')
        .map((l) => [l.replay_id, l.removed, l.removed_assets]),
    ).toEqual(forgotten.map((l) => [l.replay_id, l.removed, l.removed_assets]));
    expect((await walk(out)).filter((f) => !f.includes('manifest'))).toEqual([
      `_assets/${shared}`,
      replayKey('dev/3', json),
    ]);
  });

  test('hostile manifest lines and a linked device folder stay inside the target; usage errors exit 2 before any write', async () => {
    const root = join(work.dir, 'root');
    const out = join(root, 'archive');
    const victim = join(root, 'victim.json');
    await mkdir(out, { recursive: true });
    await appendFile(victim, '[]');
    const hostile = ['../victim', '../../root/victim', '..', 'forgotten-user:5/'];
    const text = hostile
      .map((id) =>
        JSON.stringify({ replay_id: id, status: 'ok', key: '../victim.json', platform_id: 5, recorded_at: '' }),
      )
      .join('\n');
    await appendFile(join(out, 'manifest.ndjson'), text + '\n');
    const res = await runCli(['forget', '--out', out, '--user', '5']);
    expect(res.code, res.stderr).toBe(0);
    expect(await readFile(victim, 'utf8')).toBe('[]');
    expect(await walk(root)).toEqual(['archive/manifest.ndjson', 'victim.json']);
    const last = lastById(await readManifest(out));
    for (const id of hostile.slice(0, 3))
      expect(last.get(id), id).toMatchObject({ status: 'forgotten', removed_keys: [] });
    expect(last.get('forgotten-user:5/')).toMatchObject({ status: 'forgotten', scope: 'user', platform_id: 5 });

    // A device folder that is a link out of the target: refused (exit 1), what it points to untouched, the
    // tombstone recorded all the same.
    await mkdir(join(root, 'outside'));
    await appendFile(join(root, 'outside', '1.json'), '[]');
    await symlink(join(root, 'outside'), join(out, 'dev'));
    const refused = await runCli(['forget', '--out', out, '--replay', 'dev/1']);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(
      /failed dev\/1: cannot remove dev\/1\.json: .*symbolic link.*\(tombstone recorded; run the same forget again/,
    );
    expect(await readFile(join(root, 'outside', '1.json'), 'utf8')).toBe('[]');
    expect(lastById(await readManifest(out)).get('dev/1')).toMatchObject({ status: 'forgotten', removed_keys: [] });

    const lines = (await readManifest(out)).length;
    for (const args of [
      ['forget', '--out', out],
      ['forget', '--out', out, '--user', '5', '--replay', 'a/b'],
      ['forget', '--out', out, '--user', 'alice'],
      ['forget', '--out', out, '--replay', 'no-slash'],
      ['forget', '--out', out, '--replay', 'a/b', '--reason', 'x'.repeat(501)],
      ['forget', '--replay', 'a/b'],
    ]) {
      const r = await runCli(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
    }
    expect((await readManifest(out)).length).toBe(lines);
  });
});
