import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { replayKey } from '../../sinks/keys.js';
import type { OutputSpec } from '../../sinks/sink.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCliSpawned, spawnCli, walk } from '../cli/cli-helpers.js';
import { makeSamplesDir } from '../sandbox/fixtures.js';
import { lastById, readJson, readManifest, tempDir } from '../pipeline/helpers.js';
import {
  BUCKET,
  cliEnv,
  getObject,
  jsonLines,
  keepStagingFolder,
  listObjects,
  outputKeys,
  parseOutput,
  readS3Manifest,
  s3Flags,
  sha256,
  stagingLeftovers,
  startS3,
  summaryOf,
  type S3Server,
} from './s3-helpers.js';

let sandbox: Sandbox | undefined;
let s3: S3Server;
let work: { dir: string; cleanup: () => Promise<void> };

beforeEach(async () => {
  work = await tempDir('replay-export-s3-cli-');
  s3 = await startS3(join(work.dir, 's3'));
});
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  await s3.stop();
  await work.cleanup();
});

const formatFlags = (o: OutputSpec): string[] => ['--format', o.format, ...(o.gzip ? ['--gzip'] : [])];
const contentType = (o: OutputSpec): string => (o.format === 'json' ? 'application/json' : 'application/x-ndjson');

/** Manifest fields that must be the same whichever sink recorded them (time and run id aside). */
function comparable(e: Record<string, unknown>): Record<string, unknown> {
  const { recorded_at: _r, run_id: _id, objectKey: _o, ...rest } = e;
  return rest;
}

/**
 * Every replay of the sandbox has exactly one object under `prefix`, at the local sink's key, whose bytes decode to
 * the recording and whose Content-Type, Content-Encoding and sha256 metadata agree with the bytes and the manifest.
 * Returns the outputs' bytes by key.
 */
async function expectS3Outputs(
  sb: Sandbox,
  prefix: string,
  output: OutputSpec,
  manifestEntries = sb.replays().length,
): Promise<Map<string, Buffer>> {
  const objects = await listObjects(s3.reader, `${prefix}/`);
  const expectedKeys = sb
    .replays()
    .map((r) => replayKey(r.replayId, output))
    .sort();
  expect(outputKeys(objects, prefix)).toEqual(expectedKeys);
  expect(stagingLeftovers(objects, prefix)).toEqual([]);
  const manifest = await readS3Manifest(s3.reader, prefix);
  expect(manifest.length).toBe(manifestEntries);
  const last = lastById(manifest);
  const bodies = new Map<string, Buffer>();
  for (const r of sb.replays()) {
    const entry = last.get(r.replayId)!;
    expect(entry, r.replayId).toMatchObject({
      status: 'ok',
      key: replayKey(r.replayId, output),
      format: output.format,
      gzip: output.gzip,
    });
    const object = await getObject(s3.reader, `${prefix}/${entry.key as string}`);
    expect(parseOutput(entry.key as string, object.body), r.replayId).toEqual(await readJson(r.expectedPath));
    expect(object.contentType).toBe(contentType(output));
    expect(object.contentEncoding).toBe(output.gzip ? 'gzip' : undefined);
    const digest = sha256(object.body);
    expect(object.metadata['sha256']).toBe(digest);
    expect(entry.sha256).toBe(digest);
    expect(entry.bytes).toBe(object.body.length);
    expect(entry.event_count).toBe(r.eventCount);
    bodies.set(entry.key as string, object.body);
  }
  return bodies;
}

describe('archive to S3 through the CLI (real s3rver, real sandbox)', () => {
  const outputs: OutputSpec[] = [
    { format: 'json', gzip: true },
    { format: 'ndjson', gzip: false },
    { format: 'json', gzip: false },
    { format: 'ndjson', gzip: true },
  ];

  test('every format: same layout, bytes and manifest as the local sink; type, encoding and sha256 right', async () => {
    const sb = (sandbox = await startSandbox({ replicas: 2 }));
    const runs = outputs.map(async (output) => {
      const prefix = `fmt/${output.format}${output.gzip ? '-gz' : ''}`;
      const local = join(work.dir, 'local', prefix);
      await keepStagingFolder(s3, prefix);
      const [remote, onDisk] = await Promise.all([
        // s3rver accepts the SDK's default CRC checksums too: one variant runs with them.
        runCliSpawned(
          [
            'archive',
            ...s3Flags(s3, prefix, output.format === 'ndjson' && output.gzip ? 'when-supported' : 'when-required'),
            ...formatFlags(output),
            '--settle',
            '0',
          ],
          cliEnv(sb),
        ),
        runCliSpawned(['archive', '--out', local, ...formatFlags(output), '--settle', '0'], cliEnv(sb)),
      ]);
      expect(remote.code, remote.stderr).toBe(0);
      expect(onDisk.code, onDisk.stderr).toBe(0);
      expect(remote.stderr).not.toContain('S3RVER');
      const bodies = await expectS3Outputs(sb, prefix, output);
      // Same layout and the very same bytes as the local folder.
      expect((await walk(local)).filter((f) => f !== 'manifest.ndjson' && !f.startsWith('_manifest/'))).toEqual(
        [...bodies.keys()].sort(),
      );
      for (const [key, body] of bodies) expect((await readFile(join(local, key))).equals(body), key).toBe(true);
      // Same manifest content (one entry per replay on both sides).
      const s3Manifest = [...lastById(await readS3Manifest(s3.reader, prefix)).values()].map(comparable);
      const localManifest = [...lastById(await readManifest(local)).values()].map(comparable);
      const byId = (a: Record<string, unknown>, b: Record<string, unknown>): number =>
        String(a.replay_id).localeCompare(String(b.replay_id));
      expect(s3Manifest.sort(byId)).toEqual(localManifest.sort(byId));
    });
    await Promise.all(runs);
  });

  test('a second run over the same prefix re-does nothing and writes nothing', async () => {
    const sb = (sandbox = await startSandbox({ replicas: 2 }));
    const output: OutputSpec = { format: 'json', gzip: true };
    await keepStagingFolder(s3, 'nightly');
    const first = await runCliSpawned(['archive', ...s3Flags(s3, 'nightly'), '--gzip', '--settle', '0'], cliEnv(sb));
    expect(first.code, first.stderr).toBe(0);
    await expectS3Outputs(sb, 'nightly', output);
    const before = await listObjects(s3.reader, 'nightly/');

    const sent = s3.requests.length;
    const second = await runCliSpawned(
      ['archive', ...s3Flags(s3, 'nightly'), '--gzip', '--settle', '0', '--log-format', 'json'],
      cliEnv(sb),
    );
    expect(second.code, second.stderr).toBe(0);
    // "Already done" comes from one listing of the outputs, not a HEAD per archived replay.
    const requests = s3.requests.slice(sent);
    expect(requests.filter((r) => r.startsWith('HEAD '))).toEqual([]);
    const outputListings = requests.filter(
      (r) => r.startsWith('GET ') && r.includes('list-type=2') && !r.includes('_manifest'),
    );
    expect(outputListings.length).toBeGreaterThanOrEqual(1);
    expect(outputListings.length).toBeLessThanOrEqual(3);
    const n = sb.replays().length;
    expect(summaryOf(second.stderr)).toMatchObject({
      ok: 0,
      failed: 0,
      done_before: n,
      target: 's3://replays/nightly',
    });
    const results = jsonLines(second.stderr).filter((l) => l.event === 'replay');
    expect(results.length).toBe(n);
    expect(results.every((l) => l.outcome === 'done-before')).toBe(true);
    expect(jsonLines(second.stderr).some((l) => l.event === 'started')).toBe(false);
    // Not one object added, replaced or removed (outputs and manifest alike).
    expect(await listObjects(s3.reader, 'nightly/')).toEqual(before);
  });

  test('a corrupt replay fails with nothing at its key; the re-run completes it and leaves the others alone', async () => {
    const sb = (sandbox = await startSandbox({ replicas: 1 }));
    const bad = sb.replays()[2]!;
    sb.setFaults({ corruptFiles: [bad.replayId] });
    const output: OutputSpec = { format: 'ndjson', gzip: true };
    await keepStagingFolder(s3, 'corrupt');
    const flags = [...s3Flags(s3, 'corrupt'), ...formatFlags(output), '--settle', '0'];
    const first = await runCliSpawned(['archive', ...flags], cliEnv(sb));
    expect(first.code, first.stderr).toBe(1);
    const badKey = replayKey(bad.replayId, output);
    const afterFirst = await listObjects(s3.reader, 'corrupt/');
    expect(outputKeys(afterFirst, 'corrupt')).not.toContain(badKey);
    expect(outputKeys(afterFirst, 'corrupt').length).toBe(sb.replays().length - 1);
    expect(stagingLeftovers(afterFirst, 'corrupt')).toEqual([]);
    const failed = lastById(await readS3Manifest(s3.reader, 'corrupt')).get(bad.replayId)!;
    expect(failed.status).toBe('failed');
    expect((failed.error as { file_key?: string }).file_key).toMatch(/\/v3\/\d{13}-\d{4}\.json\.gz$/);

    sb.setFaults({ corruptFiles: [] });
    const second = await runCliSpawned(['archive', ...flags, '--log-format', 'json'], cliEnv(sb));
    expect(second.code, second.stderr).toBe(0);
    expect(summaryOf(second.stderr)).toMatchObject({ ok: 1, failed: 0, done_before: sb.replays().length - 1 });
    // The run ended by folding the manifest: one entry per replay (the failed one's replaced by its ok).
    const bodies = await expectS3Outputs(sb, 'corrupt', output);
    expect(bodies.has(badKey)).toBe(true);
    // The others' objects were not rewritten.
    const afterSecond = await listObjects(s3.reader, 'corrupt/');
    for (const o of afterFirst.filter((x) => !x.key.includes('/_manifest/'))) {
      expect(afterSecond.find((x) => x.key === o.key)).toEqual(o);
    }
  });

  test('S3 going away mid-run: the run stops with exit 1, no partial object at any key; the re-run completes it', async () => {
    const sb = (sandbox = await startSandbox({ replicas: 14, faults: { latencyMs: 20 } }));
    const output: OutputSpec = { format: 'json', gzip: true };
    await keepStagingFolder(s3, 'outage');
    const flags = [...s3Flags(s3, 'outage'), '--gzip', '--settle', '0', '--log-format', 'json'];
    const { done } = spawnCli(['archive', ...flags, '--concurrency', '3'], cliEnv(sb));
    // Stop the server once a few replays are in, while others are being uploaded.
    for (;;) {
      const outputs = outputKeys(await listObjects(s3.reader, 'outage/'), 'outage');
      if (outputs.length >= 3) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const { port, directory } = s3;
    await s3.stop();
    const broken = await done;
    expect(broken.signal).toBeNull();
    expect(broken.code, broken.stderr).toBe(1);
    // In-flight replays fail on the cut connections; the next S3 request (a manifest entry, a HeadObject) ends the run.
    expect(broken.stderr).toMatch(/ECONNREFUSED|ECONNRESET|socket hang up/);

    s3 = await startS3(directory, port);
    const n = sb.replays().length;
    const before = lastById(await readS3Manifest(s3.reader, 'outage'));
    const okBefore = [...before.values()].filter((e) => e.status === 'ok').map((e) => e.replay_id as string);
    expect(okBefore.length).toBeLessThan(n);
    // Whatever reached a final key is complete — the recording, with its sha256 metadata — whether or not its
    // manifest entry made it before the outage.
    const present = outputKeys(await listObjects(s3.reader, 'outage/'), 'outage');
    expect(present.length).toBeGreaterThanOrEqual(3);
    expect(present.length).toBeLessThan(n);
    for (const r of sb.replays()) {
      const key = replayKey(r.replayId, output);
      if (!present.includes(key)) continue;
      const object = await getObject(s3.reader, `outage/${key}`);
      expect(parseOutput(key, object.body), r.replayId).toEqual(await readJson(r.expectedPath));
      expect(object.metadata['sha256']).toBe(sha256(object.body));
    }

    sb.setFaults({ latencyMs: 0 });
    const rerun = await runCliSpawned(['archive', ...flags], cliEnv(sb));
    expect(rerun.code, rerun.stderr).toBe(0);
    const results = jsonLines(rerun.stderr).filter((l) => l.event === 'replay');
    expect(results.length).toBe(n);
    // Replays recorded ok before the outage were left alone.
    for (const id of okBefore) expect(results.find((l) => l.replay_id === id)?.outcome, id).toBe('done-before');
    const manifest = await readS3Manifest(s3.reader, 'outage');
    const last = lastById(manifest);
    expect(last.size).toBe(n);
    const objects = await listObjects(s3.reader, 'outage/');
    expect(outputKeys(objects, 'outage')).toEqual(
      sb
        .replays()
        .map((r) => replayKey(r.replayId, output))
        .sort(),
    );
    for (const r of sb.replays()) {
      const e = last.get(r.replayId)!;
      expect(e.status, r.replayId).toBe('ok');
      const object = await getObject(s3.reader, `outage/${e.key as string}`);
      expect(parseOutput(e.key as string, object.body), r.replayId).toEqual(await readJson(r.expectedPath));
      expect(object.metadata['sha256']).toBe(e.sha256);
      expect(sha256(object.body)).toBe(e.sha256);
    }
  });

  test('a replay larger than a part goes up as a multipart upload through the CLI (--s3-part-size, --s3-queue-size)', async () => {
    // 12 events of ~1 MB each: a ~12 MB JSON output in 5 MiB parts (the sample replays are far smaller than a part).
    const fx = makeSamplesDir([
      { name: 'big', files: 4, startMs: Date.UTC(2026, 10, 20, 9, 0, 0), platformId: 1, padBytes: 1_000_000 },
    ]);
    try {
      const sb = (sandbox = await startSandbox({ samplesDir: fx.dir }));
      const flags = [
        ...s3Flags(s3, 'multipart'),
        '--s3-part-size',
        String(5 * 1024 * 1024),
        '--s3-queue-size',
        '2',
        '--settle',
        '0',
      ];
      const run = await runCliSpawned(['archive', ...flags], cliEnv(sb));
      expect(run.code, run.stderr).toBe(0);
      // Parts 1–3 of one multipart upload (to the staging key), then the copy to the final key.
      const parts = s3.requests.filter(
        (r) => r.startsWith('PUT ') && /[?&]partNumber=\d+/.test(r) && r.includes('uploadId='),
      );
      expect(parts.length).toBe(3);
      const id = fx.ids.get('big')!;
      const key = replayKey(id, { format: 'json', gzip: false });
      const objects = await listObjects(s3.reader, 'multipart/');
      expect(outputKeys(objects, 'multipart')).toEqual([key]);
      expect(stagingLeftovers(objects, 'multipart')).toEqual([]);
      const object = await getObject(s3.reader, `multipart/${key}`);
      expect(object.body.length).toBeGreaterThan(2 * 5 * 1024 * 1024);
      expect(object.body.equals(Buffer.from(JSON.stringify(fx.events.get('big'))))).toBe(true);
      const entry = lastById(await readS3Manifest(s3.reader, 'multipart')).get(id)!;
      expect(entry).toMatchObject({ status: 'ok', key, bytes: object.body.length, sha256: sha256(object.body) });
      expect(object.metadata['sha256']).toBe(sha256(object.body));
    } finally {
      fx.cleanup();
    }
  });

  test('S3 refusing the access key, or no S3 credentials at all: exit 3 naming the S3 error, nothing written', async () => {
    const sb = (sandbox = await startSandbox({}));
    const wrongKey = cliEnv(sb, {
      AWS_ACCESS_KEY_ID: 'NOT-A-KEY-OF-THIS-STORE',
      AWS_SECRET_ACCESS_KEY: 'shh-do-not-print',
    });
    const noCredentials = cliEnv(sb, {
      AWS_SHARED_CREDENTIALS_FILE: join(work.dir, 'none'),
      AWS_CONFIG_FILE: join(work.dir, 'none'),
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    delete noCredentials['AWS_ACCESS_KEY_ID'];
    delete noCredentials['AWS_SECRET_ACCESS_KEY'];
    for (const [env, reason] of [
      [wrongKey, /InvalidAccessKeyId/],
      [noCredentials, /CredentialsProviderError|credentials/i],
    ] as const) {
      for (const command of [
        ['archive', '--settle', '0'],
        ['export', sb.replays()[0]!.replayId],
      ]) {
        const run = await runCliSpawned([...command, ...s3Flags(s3, 'auth')], env);
        expect(run.code, run.stderr).toBe(3);
        expect(run.stderr).toMatch(reason);
        expect(run.stderr).not.toContain('shh-do-not-print');
      }
    }
    expect(await listObjects(s3.reader, 'auth/')).toEqual([]);
  });

  test('a torn manifest object (left by a non-atomic store) stops the run naming it; without it the run resumes', async () => {
    const sb = (sandbox = await startSandbox({}));
    await keepStagingFolder(s3, 'torn');
    const flags = [...s3Flags(s3, 'torn'), '--settle', '0', '--log-format', 'json'];
    expect((await runCliSpawned(['archive', ...flags], cliEnv(sb))).code).toBe(0);
    const torn = `torn/_manifest/dev/1/0000000000001-abc-0000000001.json`;
    await s3.reader.send(new PutObjectCommand({ Bucket: BUCKET, Key: torn, Body: '{"replay_id":"dev/1","sta' }));
    const before = await listObjects(s3.reader, 'torn/');
    const stopped = await runCliSpawned(['archive', ...flags], cliEnv(sb));
    expect(stopped.code, stopped.stderr).toBe(1);
    expect(jsonLines(stopped.stderr).find((l) => l.event === 'fatal')?.msg).toContain(
      '_manifest/dev/1/0000000000001-abc-0000000001.json',
    );
    expect(await listObjects(s3.reader, 'torn/')).toEqual(before);
    await s3.reader.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: torn }));
    const resumed = await runCliSpawned(['archive', ...flags], cliEnv(sb));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(summaryOf(resumed.stderr)).toMatchObject({ ok: 0, done_before: sb.replays().length });
  });
});
