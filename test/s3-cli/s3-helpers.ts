import { createHash } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { cleanEnv } from '../cli/cli-helpers.js';
import { createS3rver } from '../helpers/s3rver.js';

export const BUCKET = 'replays';
const ACCESS = 'S3RVER';

/** A real s3rver on 127.0.0.1 storing into `directory`, with a reader client; `port` 0 picks a free port. */
export interface S3Server {
  endpoint: string;
  port: number;
  directory: string;
  reader: S3Client;
  /** Method and URL of every request the server was sent, in order. */
  requests: string[];
  /**
   * Calls `fn` when the `n`-th request (counting from the server's start) arrives, before it is handled: at once if it
   * has already arrived.
   */
  atRequest(n: number, fn: () => void): void;
  /** Resolves once no request is being handled (e.g. those a killed process left in flight). */
  idle(): Promise<void>;
  /**
   * Stops the server: from now on every request fails at the connection (refused or reset), while requests already
   * being handled complete — like S3, where an interrupted request never leaves part of an object. The stored
   * objects stay in `directory`.
   */
  stop(): Promise<void>;
}

export async function startS3(directory: string, port = 0): Promise<S3Server> {
  const server = createS3rver({
    address: '127.0.0.1',
    port,
    directory,
    silent: process.env.S3RVER_DEBUG !== '1',
    configureBuckets: [{ name: BUCKET }],
  });
  // s3rver deletes the keys of a DeleteObjects request in parallel, each then removing its emptied folders: two keys
  // of one folder race on rmdir and the request fails (500). Real S3 has no folders; deletes are serialized here.
  const store = (server as unknown as { store: { deleteObject(bucket: string, key: string): Promise<void> } }).store;
  const deleteObject = store.deleteObject.bind(store);
  let deletes: Promise<void> = Promise.resolve();
  store.deleteObject = (bucket, key) => {
    const done = deletes.then(() => deleteObject(bucket, key));
    deletes = done.catch(() => undefined);
    return done;
  };
  const address = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${address.port}`;
  const reader = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS, secretAccessKey: ACCESS },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  // Requests arriving after `stop()` are refused by destroying their connection before s3rver sees them.
  const http = (server as unknown as { httpServer: Server }).httpServer;
  const handlers = http.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  http.removeAllListeners('request');
  let stopped = false;
  const requests: string[] = [];
  let inFlight = 0;
  const at: { n: number; fn: () => void }[] = [];
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
    for (const due of at.filter((a) => a.n <= requests.length)) {
      at.splice(at.indexOf(due), 1);
      due.fn();
    }
    if (stopped) {
      req.socket.destroy();
      return;
    }
    inFlight++;
    let handled: unknown;
    // Koa's handler returns its request's promise, which settles only when s3rver is done with it (also after the
    // client went away): `idle()` waits for those.
    for (const handler of handlers) handled = handler.call(http, req, res);
    void Promise.resolve(handled).finally(() => inFlight--);
  });
  return {
    endpoint,
    port: address.port,
    directory,
    reader,
    requests,
    atRequest(n, fn) {
      if (requests.length >= n) fn();
      else at.push({ n, fn });
    },
    async idle() {
      while (inFlight > 0) await new Promise((r) => setTimeout(r, 20));
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      reader.destroy();
      const closing = server.close();
      // Requests in flight finish (S3 never keeps half an object; s3rver would, if cut mid-request); idle
      // keep-alive connections are closed as they become idle, so clients see the server gone at once.
      const sweep = setInterval(() => http.closeIdleConnections(), 5);
      http.closeIdleConnections();
      try {
        await closing;
      } finally {
        clearInterval(sweep);
      }
    },
  };
}

/** The CLI's S3 flags for `s3://BUCKET/<prefix>` on this server. */
export function s3Flags(
  s3: S3Server,
  prefix: string,
  checksums: 'when-required' | 'when-supported' = 'when-required',
): string[] {
  return [
    '--out',
    `s3://${BUCKET}/${prefix}`,
    '--s3-endpoint',
    s3.endpoint,
    '--s3-force-path-style',
    '--s3-region',
    'us-east-1',
    '--s3-checksums',
    checksums,
  ];
}

/** Environment of a CLI process talking to the sandbox and, through the SDK's standard chain, to s3rver. */
export function cliEnv(sb: Sandbox, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cleanEnv({
    PLATFORM_API_KEY: sb.credentials.apiKey,
    PLATFORM_SECRET_KEY: sb.credentials.secretKey,
    PLATFORM_ENDPOINT: sb.url,
    AWS_ACCESS_KEY_ID: ACCESS,
    AWS_SECRET_ACCESS_KEY: ACCESS,
    ...extra,
  });
  // Nothing of the developer's AWS setup may leak into these runs.
  for (const k of ['AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_S3']) delete env[k];
  return env;
}

export interface ListedObject {
  key: string;
  etag: string;
  lastModified: number;
  size: number;
}

/** Every object under `prefix` (keys relative to the bucket), sorted by key. */
export async function listObjects(client: S3Client, prefix: string): Promise<ListedObject[]> {
  const out: ListedObject[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) {
      out.push({ key: o.Key!, etag: o.ETag ?? '', lastModified: o.LastModified?.getTime() ?? 0, size: o.Size ?? -1 });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export interface StoredObject {
  body: Buffer;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  metadata: Record<string, string>;
}

export async function getObject(client: S3Client, key: string): Promise<StoredObject> {
  const r = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return {
    body: Buffer.from(await r.Body!.transformToByteArray()),
    contentType: r.ContentType,
    contentEncoding: r.ContentEncoding,
    metadata: r.Metadata ?? {},
  };
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Events of a stored output, by its key's extension (json/ndjson, gzip or not). */
export function parseOutput(key: string, body: Buffer): unknown[] {
  const text = (key.endsWith('.gz') ? gunzipSync(body) : body).toString('utf8');
  if (/\.ndjson(\.gz)?$/.test(key)) {
    expect(text === '' || text.endsWith('\n')).toBe(true);
    return text
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as unknown);
  }
  return JSON.parse(text) as unknown[];
}

/**
 * The manifest entries under `prefix` as the README says to read them with common tools: the snapshots' lines (gzip
 * NDJSON under `_manifest/_snapshots/`, oldest first), then the log objects since (one entry each).
 */
export async function readS3Manifest(
  client: S3Client,
  prefix: string,
): Promise<Array<Record<string, unknown> & { objectKey: string }>> {
  const snapshots: Array<Record<string, unknown> & { objectKey: string }> = [];
  const log: Array<Record<string, unknown> & { objectKey: string }> = [];
  for (const o of await listObjects(client, `${prefix}/_manifest/`)) {
    const { body } = await getObject(client, o.key);
    if (o.key.startsWith(`${prefix}/_manifest/_snapshots/`)) {
      for (const line of gunzipSync(body).toString('utf8').split('\n')) {
        if (line !== '') snapshots.push({ ...(JSON.parse(line) as Record<string, unknown>), objectKey: o.key });
      }
    } else {
      log.push({ ...(JSON.parse(body.toString('utf8')) as Record<string, unknown>), objectKey: o.key });
    }
  }
  return [...snapshots, ...log];
}

const KEEPER = '_staging/s3rver-keep';

/**
 * s3rver stores keys as files and, on DeleteObject, removes the key's folders once empty — racing with a concurrent
 * PutObject into the same folder, which then fails to open its file (an uncaught ENOENT inside s3rver). Real S3 has
 * no folders. The sink deletes each staging object after its copy while other replays upload into `_staging/`, so
 * the tests keep that folder non-empty with one object of their own (not the sink's; ignored by the checks).
 */
export async function keepStagingFolder(s3: S3Server, prefix: string): Promise<void> {
  await s3.reader.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${KEEPER}`, Body: 'keep' }));
}

/** Staging objects the sink left under `prefix` (the tests' keeper aside). */
export function stagingLeftovers(objects: ListedObject[], prefix: string): string[] {
  return objects.map((o) => o.key).filter((k) => k.startsWith(`${prefix}/_staging/`) && k !== `${prefix}/${KEEPER}`);
}

/** Objects that are replay outputs (neither manifest nor staging), keys relative to `prefix/`. */
export function outputKeys(objects: ListedObject[], prefix: string): string[] {
  return objects
    .map((o) => o.key.slice(prefix.length + 1))
    .filter((k) => !k.startsWith('_manifest/') && !k.startsWith('_staging/'));
}

/** The log lines of a `--log-format json` run; fails unless every line of stderr is one JSON object. */
export function jsonLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => {
      expect(l.startsWith('{'), `not a JSON log line: ${l}`).toBe(true);
      return JSON.parse(l) as Record<string, unknown>;
    });
}

export function summaryOf(stderr: string): Record<string, unknown> | undefined {
  return jsonLines(stderr).find((l) => l.event === 'summary');
}
