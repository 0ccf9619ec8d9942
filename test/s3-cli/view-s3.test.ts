/**
 * `view` of an `s3://bucket/prefix` archive on a real s3rver: the index from the S3 manifest, each replay's events
 * streamed from its object exactly, a missing object a 404, the CLI's S3 flags, and no secret in any answer.
 */
import { request } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { startViewServer, type ViewServer } from '../../src/view/index.js';
import { replayKey } from '../../sinks/index.js';
import { runCliSpawned, spawnView } from '../cli/cli-helpers.js';
import { BUCKET, cliEnv, s3Flags, startS3, type S3Server } from './s3-helpers.js';

let sandbox: Sandbox;
let s3: S3Server;
let dir: string;
let view: ViewServer;
const PREFIX = 'viewed';
const SECRET = 'S3RVER';

function get(server: ViewServer, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: server.port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    })
      .on('error', reject)
      .end();
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-view-s3-'));
  sandbox = await startSandbox({});
  s3 = await startS3(join(dir, 's3'));
  const res = await runCliSpawned(['archive', ...s3Flags(s3, PREFIX), '--gzip', '--settle', '0'], cliEnv(sandbox));
  expect(res.code, res.stderr).toBe(0);
  view = await startViewServer({
    out: `s3://${BUCKET}/${PREFIX}`,
    sinkOptions: {
      s3: {
        endpoint: s3.endpoint,
        forcePathStyle: true,
        region: 'us-east-1',
        checksums: 'when-required',
        credentials: { accessKeyId: SECRET, secretAccessKey: SECRET },
      },
    },
  });
}, 120_000);

afterAll(async () => {
  await view?.close();
  await s3?.stop();
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('view of an S3 archive', () => {
  it('lists every replay of the S3 manifest and streams each one exactly as recorded', async () => {
    expect(view.replays).toBe(sandbox.replays().length);
    const index = await get(view, '/?pageSize=1000');
    expect(index.status).toBe(200);
    expect(index.body).toContain(`s3://${BUCKET}/${PREFIX}`);
    for (const r of sandbox.replays()) {
      expect(index.body).toContain(encodeURIComponent(r.replayId));
      const events = await get(view, `/replays/${encodeURIComponent(r.replayId)}/events.ndjson`);
      expect(events.status, r.replayId).toBe(200);
      const got = events.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown);
      expect(got).toEqual(JSON.parse(await readFile(r.expectedPath, 'utf8')));
      expect(events.body).not.toContain(SECRET);
    }
    const page = await get(view, `/replays/${encodeURIComponent(sandbox.replays()[0]!.replayId)}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('/player/');
  });

  it('a replay whose object is gone is a 404, the others still play', async () => {
    const [gone, kept] = sandbox.replays();
    await s3.reader.send(
      new DeleteObjectCommand({
        Bucket: BUCKET,
        Key: `${PREFIX}/${replayKey(gone!.replayId, { format: 'json', gzip: true })}`,
      }),
    );
    expect((await get(view, `/replays/${encodeURIComponent(gone!.replayId)}/events.ndjson`)).status).toBe(404);
    expect((await get(view, `/replays/${encodeURIComponent(kept!.replayId)}/events.ndjson`)).status).toBe(200);
  });

  it('the view command takes the S3 flags and serves the archive', async () => {
    const { child, done, url } = await spawnView(
      [
        'view',
        `s3://${BUCKET}/${PREFIX}`,
        '--s3-endpoint',
        s3.endpoint,
        '--s3-force-path-style',
        '--s3-region',
        'us-east-1',
      ],
      cliEnv(sandbox),
    );
    const body = await (await fetch(url)).text();
    expect(body).toContain(encodeURIComponent(sandbox.replays()[1]!.replayId));
    child.kill('SIGINT');
    const res = await done;
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr + res.stdout).not.toContain(SECRET);
  });
});
