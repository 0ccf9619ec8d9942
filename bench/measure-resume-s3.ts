/**
 * Resume at scale on S3: a synthetic archive of N replays whose manifest is folded into one snapshot (as `archive`
 * leaves it), stored in a real s3rver, resumed by a child process the way `archive` does (readResumeState through the
 * S3 sink). Reports the child's wall time and peak RSS, and every request it sent. The outputs' listing (1,000 keys a
 * request) is counted, not timed: s3rver walks its whole folder tree for each listing page, which real S3 does not.
 */

import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, Server } from 'node:http';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import S3rver from 's3rver';
import { replayKeyBase } from '../sinks/index.js';
import { snapshotKey } from '../sinks/s3-manifest.js';
import { runReporting } from './child-runner.js';
import { okEntry, syntheticReplayId, syntheticStart } from './resume-data.js';

const CHILD = fileURLToPath(new URL('./resume-child.js', import.meta.url));
const BUCKET = 'bench';
const ACCESS = 'S3RVER';

export interface S3ResumeResult {
  replays: number;
  snapshotBytes: number;
  ms: number;
  maxRssBytes: number;
  /** Requests the resume sent (method and path). */
  requests: number;
  /** Listing requests the outputs of N replays take (computed: 1,000 keys a request). */
  outputListing: number;
  checks: string[];
}

export async function measureResumeS3(opts: {
  replays: number;
  workDir: string;
  log: (line: string) => void;
}): Promise<S3ResumeResult> {
  const dir = await mkdtemp(join(opts.workDir, 'resume-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: dir,
    silent: true,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const requests: string[] = [];
  (server as unknown as { httpServer: Server }).httpServer.prependListener('request', (req: IncomingMessage) =>
    requests.push(`${req.method} ${req.url}`),
  );
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS, secretAccessKey: ACCESS },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  try {
    opts.log(`  writing a folded manifest of ${opts.replays} replays to s3rver`);
    const snapshotBytes = await uploadSnapshot(client, opts.replays);
    const before = requests.length;
    const report = await runReporting<{ ms: number; done: number; maxRssBytes: number }>(
      CHILD,
      [`s3://${BUCKET}/archive`, String(opts.replays), 's3', endpoint],
      {},
    );
    const sent = requests.length - before;
    if (report.done !== opts.replays)
      throw new Error(`bench: the S3 resume found ${report.done} of ${opts.replays} replays done`);
    return {
      replays: opts.replays,
      snapshotBytes,
      ms: report.ms,
      maxRssBytes: report.maxRssBytes,
      requests: sent,
      outputListing: Math.ceil(opts.replays / 1000),
      checks: [`readResumeState through the S3 sink found all ${opts.replays} replays done (${sent} requests)`],
    };
  } finally {
    client.destroy();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The snapshot a fold writes: the last entry of each replay (`lineOf(i)`, the resume's synthetic `ok` entry by
 * default), gzip NDJSON in key order, under `archive/` of the bench's bucket. Returns its size.
 */
export async function uploadSnapshot(
  client: S3Client,
  replays: number,
  lineOf: (i: number) => string = (i) => JSON.stringify(okEntry(i, syntheticReplayId(i), syntheticStart(i))),
): Promise<number> {
  const order = Array.from({ length: replays }, (_, i) => i);
  const groups = order.map((i) => replayKeyBase(syntheticReplayId(i)) + '/');
  order.sort((a, b) => (groups[a]! < groups[b]! ? -1 : groups[a]! > groups[b]! ? 1 : 0));
  const gzip = createGzip();
  const body = new PassThrough();
  let bytes = 0;
  gzip.on('data', (chunk: Buffer) => (bytes += chunk.length));
  gzip.pipe(body);
  const upload = new Upload({
    client,
    params: { Bucket: BUCKET, Key: snapshotKey('archive/', 'all', Date.now(), 'be0c4', replays), Body: body },
    partSize: 16 * 1024 * 1024,
  });
  const done = upload.done();
  for (const i of order) if (!gzip.write(lineOf(i) + '\n')) await once(gzip, 'drain');
  gzip.end();
  await done;
  return bytes;
}
