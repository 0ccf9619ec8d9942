import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SinkError } from '../../sinks/errors.js';
import { openSink } from '../../sinks/open.js';
import { createS3Sink, type S3SinkOptions } from '../../sinks/s3.js';
import type { ManifestEntry } from '../../sinks/sink.js';
import { JSON_AND_NDJSON_OUTPUTS } from './helpers/outputs.js';
import { runOf } from './helpers/runs.js';
import { type LooseEntry, line } from '../sinks/helpers/entries.js';
import { createS3rver } from '../helpers/s3rver.js';

const BUCKET = 'replays';
const MIB = 1024 * 1024;
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

let server: S3rver;
let directory: string;
let endpoint: string;
let reader: S3Client;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  server = createS3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: BUCKET }],
  });
  const address = (await server.run()) as { port: number };
  endpoint = `http://127.0.0.1:${address.port}`;
  reader = new S3Client(clientConfig());
});

afterAll(async () => {
  reader?.destroy();
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

function clientConfig(): S3ClientConfig {
  return {
    endpoint,
    credentials,
    region: 'us-east-1',
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

function sinkOptions(extra: S3SinkOptions = {}): S3SinkOptions {
  return { endpoint, credentials, forcePathStyle: true, ...extra };
}

const events = (n: number, from = 0): Buffer[] =>
  Array.from({ length: n }, (_, i) =>
    Buffer.from(JSON.stringify({ type: 3, timestamp: 1763629200000 + from + i, data: { s: 'é😀', i: from + i } })),
  );

/** About 1 MiB of hard-to-compress events. */
const bigBatch = (): Buffer[] =>
  Array.from({ length: 256 }, () =>
    Buffer.from(JSON.stringify({ type: 3, data: randomBytes(3000).toString('base64') })),
  );

async function getObject(key: string): Promise<{
  body: Buffer;
  contentType?: string | undefined;
  contentEncoding?: string | undefined;
  metadata?: Record<string, string> | undefined;
}> {
  const response = await reader.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  const body = Buffer.from(await response.Body!.transformToByteArray());
  return {
    body,
    contentType: response.ContentType,
    contentEncoding: response.ContentEncoding,
    metadata: response.Metadata,
  };
}

async function listKeys(prefix: string): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const page = await reader.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) out.push(o.Key!);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return out;
}

async function headStatus(key: string): Promise<number> {
  try {
    await reader.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    return 200;
  } catch (err) {
    return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? -1;
  }
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** A client whose UploadPart number `failPart` fails once, recording every command sent. */
function faultyClient(failPart: number): { client: S3Client; commands: string[] } {
  const client = new S3Client(clientConfig());
  const commands: string[] = [];
  let failed = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(context.commandName ?? '?');
      const input = args.input as { PartNumber?: number };
      if (!failed && context.commandName === 'UploadPartCommand' && input.PartNumber === failPart) {
        failed = true;
        throw new Error('injected failure of part ' + failPart);
      }
      return next(args);
    },
    { step: 'initialize', name: 'injectPartFailure' },
  );
  return { client, commands };
}

describe('S3 sink against s3rver', () => {
  for (const output of JSON_AND_NDJSON_OUTPUTS) {
    it(`stores ${output.format}${output.gzip ? ' + gzip' : ''} with content type, encoding and sha256 metadata`, async () => {
      const sink = createS3Sink(`s3://${BUCKET}/fmt-${output.format}-${output.gzip}`, sinkOptions());
      const all = events(2000);
      const writer = await sink.open('dev-1/1763629200000', output);
      await writer.write(all.slice(0, 1));
      await writer.write(all.slice(1));
      const result = await writer.commit();
      expect(result.key).toBe(sink.keyFor('dev-1/1763629200000', output));
      const object = await getObject(`fmt-${output.format}-${output.gzip}/${result.key}`);
      expect(object.body.length).toBe(result.bytes);
      expect(createHash('sha256').update(object.body).digest('hex')).toBe(result.sha256);
      expect(object.metadata?.['sha256']).toBe(result.sha256);
      expect(object.contentType).toBe(output.format === 'json' ? 'application/json' : 'application/x-ndjson');
      expect(object.contentEncoding).toBe(output.gzip ? 'gzip' : undefined);
      const text = (output.gzip ? gunzipSync(object.body) : object.body).toString('utf8');
      const parsed = all.map((b) => JSON.parse(b.toString()));
      if (output.format === 'json') expect(JSON.parse(text)).toEqual(parsed);
      else
        expect(
          text
            .split('\n')
            .slice(0, -1)
            .map((l) => JSON.parse(l)),
        ).toEqual(parsed);
      expect(await sink.exists(result.key)).toBe(true);
      expect(await listKeys(`fmt-${output.format}-${output.gzip}/_staging/`)).toEqual([]);
      await sink.close();
    });
  }

  it('writeRuns stores the same object as write() of the same events, multipart included, every output', async () => {
    // About 6 MiB of events, so that 5 MiB parts make a multipart upload out of runs too.
    const texts = Array.from({ length: 2000 }, (_, i) =>
      JSON.stringify({
        type: 3,
        timestamp: 1763629200000 + i,
        data: { s: 'é😀\u2028', blob: randomBytes(2300).toString('base64'), i },
      }),
    );
    for (const output of JSON_AND_NDJSON_OUTPUTS) {
      const prefix = `runs-${output.format}-${output.gzip}`;
      const viaWrite = createS3Sink(`s3://${BUCKET}/${prefix}-write`, sinkOptions({ partSize: 5 * MIB, queueSize: 2 }));
      const viaRuns = createS3Sink(`s3://${BUCKET}/${prefix}-runs`, sinkOptions({ partSize: 5 * MIB, queueSize: 2 }));
      const wa = await viaWrite.open('dev/runs', output);
      for (let i = 0; i < texts.length; i += 700) await wa.write(texts.slice(i, i + 700).map((t) => Buffer.from(t)));
      const ra = await wa.commit();
      const wb = await viaRuns.open('dev/runs', output);
      expect(wb.writeRuns).toBeTypeOf('function');
      await wb.writeRuns!([runOf(texts.slice(0, 1)), runOf(texts.slice(1, 900))]);
      await wb.writeRuns!([]);
      await wb.writeRuns!([runOf(texts.slice(900))]);
      const rb = await wb.commit();
      expect(rb).toEqual(ra);
      const a = await getObject(`${prefix}-write/${ra.key}`);
      const b = await getObject(`${prefix}-runs/${rb.key}`);
      expect(b.body.equals(a.body)).toBe(true);
      expect(b.metadata?.['sha256']).toBe(rb.sha256);
      expect(createHash('sha256').update(b.body).digest('hex')).toBe(rb.sha256);
      if (!output.gzip) expect(rb.bytes).toBeGreaterThan(5 * MIB);
      await viaWrite.close();
      await viaRuns.close();
    }
  });

  it('writeRuns refuses a run with a raw line break (SINK_BAD_EVENT naming the event) and leaves nothing', async () => {
    const sink = createS3Sink(`s3://${BUCKET}/runs-bad`, sinkOptions());
    const writer = await sink.open('dev/bad', { format: 'ndjson', gzip: false });
    await writer.writeRuns!([runOf(['{"a":1}', '{"b":2}'])]);
    const err = await writer.writeRuns!([
      { bytes: Buffer.from('{"a":1},{"b":\n2}'), ends: Int32Array.of(7, 16) },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect((err as SinkError).code).toBe('SINK_BAD_EVENT');
    expect((err as SinkError).index).toBe(3);
    expect(await sink.exists(writer.key)).toBe(false);
    expect(await listKeys('runs-bad/')).toEqual([]);
    await sink.close();
  });

  it('writes an empty replay as []', async () => {
    const sink = createS3Sink(`s3://${BUCKET}/empty`, sinkOptions());
    const result = await (await sink.open('d/e', { format: 'json', gzip: false })).commit();
    expect((await getObject(`empty/${result.key}`)).body.toString()).toBe('[]');
    await sink.close();
  });

  it('streams a multipart upload (5 MiB parts) with either checksum mode', async () => {
    for (const checksums of ['when-required', 'when-supported'] as const) {
      const sink = createS3Sink(
        `s3://${BUCKET}/big-${checksums}`,
        sinkOptions({ partSize: 5 * MIB, queueSize: 2, checksums }),
      );
      const writer = await sink.open('dev/big', { format: 'ndjson', gzip: false });
      const hash = createHash('sha256');
      for (let i = 0; i < 12; i++) {
        const batch = bigBatch();
        for (const e of batch) hash.update(e).update('\n');
        await writer.write(batch);
      }
      const result = await writer.commit();
      expect(result.bytes).toBeGreaterThan(11 * MIB);
      expect(result.sha256).toBe(hash.digest('hex'));
      const object = await getObject(`big-${checksums}/dev/big.ndjson`);
      expect(object.body.length).toBe(result.bytes);
      expect(object.metadata?.['sha256']).toBe(result.sha256);
      await sink.close();
    }
  });

  it('a source that fails mid-upload leaves nothing at the final key; a re-run completes it', async () => {
    const { client, commands } = faultyClient(Number.MAX_SAFE_INTEGER);
    const sink = createS3Sink(`s3://${BUCKET}/src-fail`, { client, partSize: 5 * MIB, queueSize: 1 });
    const writer = await sink.open('dev/r', { format: 'json', gzip: false });
    for (let i = 0; i < 12; i++) await writer.write(bigBatch());
    await writer.abort(new Error('source stream failed'));
    expect(commands).toContain('CreateMultipartUploadCommand');
    expect(commands).toContain('UploadPartCommand');
    expect(commands).toContain('AbortMultipartUploadCommand');
    expect(commands).not.toContain('CompleteMultipartUploadCommand');
    expect(await headStatus('src-fail/dev/r.json')).toBe(404);
    expect(await sink.exists('dev/r.json')).toBe(false);
    expect(await listKeys('src-fail/')).toEqual([]);

    const again = await sink.open('dev/r', { format: 'json', gzip: false });
    await again.write(events(10));
    const result = await again.commit();
    expect(JSON.parse((await getObject('src-fail/dev/r.json')).body.toString())).toHaveLength(10);
    expect(result.eventCount).toBe(10);
    await sink.close();
    client.destroy();
  });

  it('a failed part upload aborts the multipart upload, leaves no object, and a re-run completes', async () => {
    const { client, commands } = faultyClient(2);
    const sink = createS3Sink(`s3://${BUCKET}/part-fail`, { client, partSize: 5 * MIB, queueSize: 1 });
    const writer = await sink.open('dev/r', { format: 'ndjson', gzip: false });
    let failure: unknown;
    try {
      for (let i = 0; i < 16; i++) await writer.write(bigBatch());
      await writer.commit();
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(SinkError);
    expect(failure).toMatchObject({
      code: 'SINK_S3',
      replayId: 'dev/r',
      key: 'dev/r.ndjson',
      target: `s3://${BUCKET}/part-fail`,
    });
    expect(String((failure as Error).message)).toContain('injected failure of part 2');
    await writer.abort();
    expect(commands).toContain('AbortMultipartUploadCommand');
    expect(commands).not.toContain('CompleteMultipartUploadCommand');
    expect(await headStatus('part-fail/dev/r.ndjson')).toBe(404);
    expect(await listKeys('part-fail/')).toEqual([]);

    const again = await sink.open('dev/r', { format: 'ndjson', gzip: false });
    for (let i = 0; i < 12; i++) await again.write(bigBatch());
    const result = await again.commit();
    const object = await getObject('part-fail/dev/r.ndjson');
    expect(createHash('sha256').update(object.body).digest('hex')).toBe(result.sha256);
    await sink.close();
    client.destroy();
  });

  it('keeps hostile ids distinct and readable back', async () => {
    const sink = createS3Sink(`s3://${BUCKET}/hostile`, sinkOptions());
    const ids = [
      '../../x',
      '%2F/%25',
      'A/a',
      'a/a',
      'é/1',
      'e\u0301/1',
      '~/^',
      'con/nul',
      'x'.repeat(500) + '/1',
      '\u0000/\n',
      'plain',
    ];
    const keys = new Set<string>();
    for (const id of ids) {
      const writer = await sink.open(id, { format: 'json', gzip: false });
      await writer.write([Buffer.from(JSON.stringify({ id }))]);
      const { key } = await writer.commit();
      keys.add(key);
      expect(JSON.parse((await getObject(`hostile/${key}`)).body.toString())).toEqual([{ id }]);
    }
    expect(keys.size).toBe(ids.length);
    expect((await listKeys('hostile/')).sort()).toEqual([...keys].map((k) => `hostile/${k}`).sort());
    await sink.close();
  });

  it('merges manifest objects written by several writers at once', async () => {
    const target = `s3://${BUCKET}/manifest-test`;
    const a = createS3Sink(target, sinkOptions());
    const b = createS3Sink(target, sinkOptions());
    expect(await collect(a.readManifest())).toEqual([]);
    const entry = (id: string, status: ManifestEntry['status'], n: number): ManifestEntry =>
      line({
        replay_id: id,
        status,
        recorded_at: new Date().toISOString(),
        event_count: n,
      });
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 30; i++) {
      writes.push(a.appendManifest(entry(`dev/${i}`, 'ok', i)));
      writes.push(b.appendManifest(entry(`other/${i}`, 'failed', i)));
    }
    await Promise.all(writes);
    // Sequential outcomes for one replay keep their order.
    await a.appendManifest(entry('dev/0', 'failed', 100));
    await a.appendManifest(entry('dev/0', 'ok', 101));
    const c = openSink(target, { s3: sinkOptions() });
    const read = await collect(c.readManifest());
    expect(read).toHaveLength(62);
    const byId = new Map<string, ManifestEntry[]>();
    for (const e of read) byId.set(e.replay_id, [...(byId.get(e.replay_id) ?? []), e]);
    expect(byId.size).toBe(60);
    expect(byId.get('dev/0')!.map((e) => (e as LooseEntry).event_count)).toEqual([0, 100, 101]);
    expect(byId.get('other/7')).toMatchObject([{ status: 'failed', event_count: 7 }]);
    const objects = await listKeys('manifest-test/_manifest/');
    expect(objects).toHaveLength(62);
    for (const key of objects)
      expect(key).toMatch(/^manifest-test\/_manifest\/[^/]+\/[^/]+\/\d{13}-[0-9a-f]{12}-\d{10}\.json$/);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  it('exists() is false for a missing key and true after commit; config errors are typed', async () => {
    const sink = createS3Sink(`s3://${BUCKET}`, sinkOptions());
    expect(await sink.exists('nope/nothing.json')).toBe(false);
    const w = await sink.open('root/one', { format: 'json', gzip: true });
    await w.write(events(1));
    const { key } = await w.commit();
    expect(await sink.exists(key)).toBe(true);
    expect((await getObject('root/one.json.gz')).contentEncoding).toBe('gzip');
    await sink.close();
    expect(() => createS3Sink(`s3://${BUCKET}/x`, sinkOptions({ partSize: MIB }))).toThrow(SinkError);
    expect(() => createS3Sink(`s3://${BUCKET}/x`, sinkOptions({ queueSize: 0 }))).toThrow(SinkError);
    expect(() => createS3Sink('s3://key:secret@bucket/x')).toThrow(SinkError);
    expect(() => createS3Sink('s3:///x')).toThrow(SinkError);
  });

  it('remove() deletes an output (true), answers false when none is there, and refuses keys outside the layout', async () => {
    const sink = openSink(`s3://${BUCKET}/remove-test`, { s3: sinkOptions() });
    const keep = await sink.open('dev/keep', { format: 'json', gzip: false });
    await keep.write(events(1));
    await keep.commit();
    const gone = await sink.open('dev/gone', { format: 'ndjson', gzip: true });
    await gone.write(events(2));
    const { key } = await gone.commit();
    await sink.appendManifest(
      line({ replay_id: 'dev/gone', status: 'ok', key, recorded_at: new Date().toISOString() }),
    );
    expect(await sink.remove!(key)).toBe(true);
    expect(await headStatus(`remove-test/${key}`)).toBe(404);
    expect(await sink.remove!(key)).toBe(false);
    for (const bad of [
      '_manifest/dev/gone',
      'manifest.ndjson',
      '../dev/keep.json',
      'dev/../keep.json',
      '_staging/x.json',
      'dev/keep',
      '/dev/keep.json',
      'a/b/c.json',
    ]) {
      await expect(sink.remove!(bad), bad).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    }
    // Neither the other output nor the manifest was touched.
    expect(await headStatus('remove-test/dev/keep.json')).toBe(200);
    expect((await collect(sink.readManifest())).map((e) => e.replay_id)).toEqual(['dev/gone']);
    await sink.close();
  });

  it('reports a missing bucket as a typed error without credentials in it', async () => {
    const sink = createS3Sink('s3://no-such-bucket/p', sinkOptions());
    const writer = await sink.open('d/s', { format: 'json', gzip: false });
    await writer.write(events(1));
    const err = (await writer.commit().catch((e: unknown) => e)) as SinkError;
    expect(err).toBeInstanceOf(SinkError);
    expect(err.code).toBe('SINK_S3');
    expect(err.status).toBe(404);
    expect(err.message).not.toContain('S3RVER');
    expect(await headStatus('d/s.json')).toBe(404);
    await sink.close();
  });
});
