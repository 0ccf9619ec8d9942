/**
 * `verify s3://bucket/prefix` on a real s3rver, over an archive the CLI made: clean, it exits 0 and reads each
 * object once; an object deleted, one overwritten with other bytes, one cut short and a stray object are each
 * reported (the sink's manifest and staging objects are not outputs), by the CLI and by the library.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { verifyArchive, type VerifyProblem } from '../../src/archive.js';
import { runCliSpawned } from '../cli/cli-helpers.js';
import {
  BUCKET,
  cliEnv,
  getObject,
  jsonLines,
  keepStagingFolder,
  readS3Manifest,
  s3Flags,
  startS3,
  type S3Server,
} from './s3-helpers.js';

let sandbox: Sandbox;
let s3: S3Server;
let dir: string;
const PREFIX = 'verified';
const ARCHIVE = `s3://${BUCKET}/${PREFIX}`;

/** The CLI's S3 flags for this server, without `--out`. */
const readFlags = (): string[] => s3Flags(s3, PREFIX).slice(2);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-verify-s3-'));
  sandbox = await startSandbox({});
  s3 = await startS3(join(dir, 's3'));
  await keepStagingFolder(s3, PREFIX);
  const res = await runCliSpawned(['archive', ...s3Flags(s3, PREFIX), '--gzip', '--settle', '0'], cliEnv(sandbox));
  expect(res.code, res.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await s3?.stop();
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('verify an S3 archive', () => {
  it('a clean archive: exit 0, each object read once, no problem', async () => {
    const before = s3.requests.length;
    const res = await runCliSpawned(['verify', ARCHIVE, ...readFlags(), '--log-format', 'json'], cliEnv(sandbox));
    expect(res.code, res.stderr).toBe(0);
    const n = sandbox.replays().length;
    // (The AWS SDK's notice about the Node version, when it gives one, is a warning line of its own.)
    expect(jsonLines(res.stderr).filter((l) => l.event !== 'warning')).toEqual([
      expect.objectContaining({
        event: 'summary',
        target: ARCHIVE,
        replays: n,
        verified: n,
        intact: n,
        stored: n,
        problems: 0,
      }),
    ]);
    const reads = s3.requests
      .slice(before)
      .filter(
        (r) => r.startsWith('GET ') && !r.includes('_manifest') && !r.includes('list-type') && !r.includes('prefix='),
      );
    expect(reads).toHaveLength(n);
  });

  it('an object deleted, overwritten or cut short, and a stray object: each reported, exit 1', async () => {
    const entries = (await readS3Manifest(s3.reader, PREFIX)).filter((e) => e.status === 'ok') as unknown as Array<
      Record<string, unknown> & { key: string; replay_id: string }
    >;
    const [deleted, overwritten, cut] = entries;
    await s3.reader.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}/${deleted!.key}` }));
    const body = (await getObject(s3.reader, `${PREFIX}/${overwritten!.key}`)).body;
    const other = Buffer.from(body);
    other[other.length - 5] ^= 0x01; // the gzip trailer: same size, the CRC no longer matches
    await s3.reader.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}/${overwritten!.key}`, Body: other }));
    const cutBody = (await getObject(s3.reader, `${PREFIX}/${cut!.key}`)).body;
    await s3.reader.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: `${PREFIX}/${cut!.key}`,
        Body: cutBody.subarray(0, cutBody.length >> 1),
      }),
    );
    await s3.reader.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}/stray/object.json.gz`, Body: 'x' }));

    const res = await runCliSpawned(['verify', ARCHIVE, ...readFlags(), '--log-format', 'json'], cliEnv(sandbox));
    expect(res.code, res.stderr).toBe(1);
    const problems = jsonLines(res.stderr).filter((l) => l.event === 'problem');
    const kinds = (id: string) =>
      problems
        .filter((p) => p.replay_id === id)
        .map((p) => p.kind)
        .sort();
    expect(kinds(deleted!.replay_id)).toEqual(['missing']);
    expect(kinds(overwritten!.replay_id)).toEqual(['sha256_mismatch', 'undecodable']);
    expect(kinds(cut!.replay_id)).toEqual(['size_mismatch', 'undecodable']);
    expect(problems.filter((p) => p.kind === 'orphan')).toEqual([
      expect.objectContaining({ key: 'stray/object.json.gz' }),
    ]);
    expect(problems).toHaveLength(6);

    // The library gives the same problems, and the summary.
    const verification = verifyArchive({
      out: ARCHIVE,
      sinkOptions: {
        s3: {
          endpoint: s3.endpoint,
          forcePathStyle: true,
          region: 'us-east-1',
          checksums: 'when-required',
          credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        },
      },
    });
    const found: VerifyProblem[] = [];
    for await (const p of verification) found.push(p);
    expect(found.map((p) => p.kind).sort()).toEqual(problems.map((p) => p.kind as string).sort());
    expect(await verification.summary).toMatchObject({
      target: ARCHIVE,
      problems: 6,
      intact: sandbox.replays().length - 3,
    });
  });
});
