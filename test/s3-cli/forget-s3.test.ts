/**
 * `forget` through the CLI on an S3 archive (real s3rver, real sandbox): objects gone, the others untouched,
 * tombstones among the manifest objects, and later archive runs export nothing forgotten.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { replayKey } from '../../sinks/keys.js';
import { createS3Sink } from '../../sinks/s3.js';
import { readResumeState } from '../../src/pipeline/resume-state.js';
import { shardOf } from '../../src/pipeline/shard.js';
import { userTombstoneId } from '../../src/pipeline/tombstone.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { cleanEnv, runCliSpawned } from '../cli/cli-helpers.js';
import { lastById, tempDir } from '../pipeline/helpers.js';
import {
  BUCKET,
  cliEnv,
  jsonLines,
  keepStagingFolder,
  listObjects,
  outputKeys,
  readS3Manifest,
  s3Flags,
  startS3,
  type S3Server,
} from './s3-helpers.js';
import { archiveOfSink } from '../../sinks/archive.js';
import { line } from '../sinks/helpers/entries.js';

let sandbox: Sandbox | undefined;
let s3: S3Server;
let work: { dir: string; cleanup: () => Promise<void> };

beforeEach(async () => {
  work = await tempDir('replay-export-s3-forget-');
  s3 = await startS3(join(work.dir, 's3'));
});
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  await s3.stop();
  await work.cleanup();
});

const gz = { format: 'json', gzip: true } as const;

describe('forget on S3 through the CLI (real s3rver, real sandbox)', () => {
  test('a replay and a user: objects deleted, others untouched, tombstones recorded; later runs skip them', async () => {
    const sb = (sandbox = await startSandbox({ replicas: 6 }));
    const prefix = 'forget';
    await keepStagingFolder(s3, prefix);
    const flags = [...s3Flags(s3, prefix), '--gzip', '--settle', '0'];
    const first = await runCliSpawned(['archive', ...flags], cliEnv(sb));
    expect(first.code, first.stderr).toBe(0);
    const all = sb.replays();
    const before = await listObjects(s3.reader, `${prefix}/`);
    expect(outputKeys(before, prefix).length).toBe(all.length);

    const one = all.find((r) => r.origin === 'replica')!;
    const platformId = all.find((r) => r.record.platform_id !== one.record.platform_id)!.record.platform_id;
    const users = all.filter((r) => r.record.platform_id === platformId);
    expect(users.length).toBe(2);
    const byReplay = await runCliSpawned(
      ['forget', ...s3Flags(s3, prefix), '--replay', one.replayId, '--log-format', 'json'],
      cliEnv(sb),
    );
    expect(byReplay.code, byReplay.stderr).toBe(0);
    expect(byReplay.stderr).not.toContain('S3RVER');
    expect(jsonLines(byReplay.stderr).find((l) => l.event === 'forgotten')).toMatchObject({
      replay_id: one.replayId,
      tombstone: true,
      removed: [replayKey(one.replayId, gz)],
    });
    const byUser = await runCliSpawned(
      ['forget', ...s3Flags(s3, prefix), '--user', String(platformId), '--reason', 'erasure request'],
      cliEnv(sb),
    );
    expect(byUser.code, byUser.stderr).toBe(0);
    expect(byUser.stderr).toContain('2 replays forgotten, 2 outputs removed, 0 failed');

    const forgotten = new Set([one.replayId, ...users.map((r) => r.replayId)]);
    const after = await listObjects(s3.reader, `${prefix}/`);
    const keptKeys = all
      .filter((r) => !forgotten.has(r.replayId))
      .map((r) => replayKey(r.replayId, gz))
      .sort();
    expect(outputKeys(after, prefix)).toEqual(keptKeys);
    // The objects kept are the very same (etag and time), not rewritten.
    const byKey = new Map(before.map((o) => [o.key, o]));
    for (const o of after.filter((x) => keptKeys.includes(x.key.slice(prefix.length + 1))))
      expect(o).toEqual(byKey.get(o.key));

    const manifest = await readS3Manifest(s3.reader, prefix);
    const last = lastById(manifest);
    expect(last.get(one.replayId)).toMatchObject({
      status: 'forgotten',
      scope: 'replay',
      reason: 'forget requested',
      removed_keys: [replayKey(one.replayId, gz)],
      platform_id: one.record.platform_id,
    });
    for (const r of users)
      expect(last.get(r.replayId)).toMatchObject({
        status: 'forgotten',
        reason: 'erasure request',
        platform_id: platformId,
      });
    expect(last.get(`forgotten-user:${platformId}/`)).toMatchObject({
      status: 'forgotten',
      scope: 'user',
      platform_id: platformId,
      reason: 'erasure request',
    });

    const outputsOf = (objects: typeof after): typeof after =>
      objects.filter((o) => !o.key.startsWith(`${prefix}/_manifest/`));
    const stateOf = async (): Promise<Map<string, Record<string, unknown>>> =>
      new Map(
        [...lastById(await readS3Manifest(s3.reader, prefix))].map(([id, { objectKey: _where, ...e }]) => [id, e]),
      );
    const state = await stateOf();
    // Later runs: the same listing, then one with a new replay of the forgotten user. Nothing forgotten is exported
    // and no manifest object is added for it.
    const again = await runCliSpawned(['archive', ...flags, '--log-format', 'json'], cliEnv(sb));
    expect(again.code, again.stderr).toBe(0);
    const skipped = jsonLines(again.stderr)
      .filter((l) => l.event === 'replay' && l.reason === 'forgotten')
      .map((l) => l.replay_id);
    expect(skipped.sort()).toEqual([...forgotten].sort());
    // Outputs untouched; the manifest's state the same (the run folded the tombstones into a snapshot, adding no entry).
    expect(outputsOf(await listObjects(s3.reader, `${prefix}/`))).toEqual(outputsOf(after));
    expect(await stateOf()).toEqual(state);

    await sb.close();
    const late = { replay_id: 'late-device/1795308199999', sample: users[0]!.sample, platform_id: platformId };
    sandbox = await startSandbox({ replicas: 6, extraReplays: [late] });
    const third = await runCliSpawned(['archive', ...flags, '--log-format', 'json'], cliEnv(sandbox));
    expect(third.code, third.stderr).toBe(0);
    expect(jsonLines(third.stderr).find((l) => l.replay_id === late.replay_id)).toMatchObject({
      outcome: 'skipped',
      reason: 'forgotten',
    });
    expect(outputsOf(await listObjects(s3.reader, `${prefix}/`))).toEqual(outputsOf(after));
    expect(await stateOf()).toEqual(state);
  });

  test('a prefix that holds no archive (mistyped) is refused with exit 1, for forget, verify and view, and no object is created', async () => {
    const env = cleanEnv({ AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' });
    const refused = `no archive at s3://${BUCKET}/typo (no manifest found)`;
    const forget = await runCliSpawned(['forget', ...s3Flags(s3, 'typo'), '--user', '1'], env);
    expect(forget.code, forget.stderr).toBe(1);
    expect(forget.stderr).toContain(refused);
    const s3Only = s3Flags(s3, 'typo').slice(2);
    for (const command of ['verify', 'view']) {
      const res = await runCliSpawned([command, `s3://${BUCKET}/typo`, ...s3Only], env);
      expect(res.code, `${command}: ${res.stderr}`).toBe(1);
      expect(res.stderr).toContain(refused);
    }
    expect(await listObjects(s3.reader, '')).toEqual([]);
  });

  test("a shard reads every user's tombstone, though it fetches only its own replays' manifest objects, folded or not", async () => {
    const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
    const sink = createS3Sink(`s3://${BUCKET}/shards`, {
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials,
      region: 'us-east-1',
    });
    // A user whose tombstone id falls in shard 0 of 2, and a replay of that user in shard 1.
    let user = 1000;
    while (shardOf(userTombstoneId(String(user)), 2) !== 0) user++;
    let n = 0;
    while (shardOf(`dev/${n}`, 2) !== 1) n++;
    await sink.appendManifest(
      line({
        replay_id: userTombstoneId(String(user)),
        status: 'forgotten',
        scope: 'user',
        platform_id: user,
        recorded_at: new Date().toISOString(),
      }),
    );
    await sink.appendManifest(
      line({
        replay_id: `dev/${n}`,
        status: 'ok',
        key: `dev/${n}.json`,
        platform_id: user,
        recorded_at: new Date().toISOString(),
      }),
    );
    const sent = s3.requests.length;
    const state = await readResumeState(archiveOfSink(sink).manifest, {
      keyFor: (id) => `${id}.json`,
      shard: { index: 1, count: 2 },
      now: Date.now(),
    });
    expect(state.forgotten({ replay_id: `dev/${n}`, platform_id: user })).toBe(true);
    expect(state.forgotten({ replay_id: 'later/1', platform_id: user })).toBe(true);
    // The shard fetched both objects (its replay's and the user's tombstone), nothing else was there to skip.
    expect(s3.requests.slice(sent).filter((r) => r.startsWith('GET ') && !r.includes('list-type=2'))).toHaveLength(2);
    // Folded into a snapshot (both shards' layouts, then all): the tombstone is still read, by either shard.
    for (const layout of ['0-of-2', '1-of-2', 'all']) {
      const keep = layout === 'all' ? undefined : (id: string): boolean => shardOf(id, 2) === Number(layout[0]);
      expect((await sink.compactManifest!({ layout, ...(keep ? { keep } : {}) })).compacted, layout).toBe(true);
      for (const index of [0, 1]) {
        const folded = await readResumeState(archiveOfSink(sink).manifest, {
          keyFor: (id) => `${id}.json`,
          shard: { index, count: 2 },
          now: Date.now(),
        });
        expect(folded.forgotten({ replay_id: 'later/1', platform_id: user }), `${layout} ${index}`).toBe(true);
      }
    }
    expect(
      (await listObjects(s3.reader, 'shards/_manifest/')).every((o) =>
        o.key.startsWith('shards/_manifest/_snapshots/'),
      ),
    ).toBe(true);
    await sink.close();
  });
});
