/**
 * The S3 store: `s3://bucket/prefix`, objects `<prefix>/<device>/<session>.json[.gz]` (or `.ndjson[.gz]`, `.html[.gz]`),
 * one manifest object per recorded outcome under `<prefix>/_manifest/`, captured assets under `<prefix>/_assets/`. It
 * implements every member of the store contract (store.ts) itself; the AWS SDK is loaded when the store first sends a
 * request (s3-link.ts), so making the store — and checking its URL and options, at once — loads nothing.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { ASSETS_DIR, assetKey, checkAssetBody, isAssetDigest, plainContentType } from './assets.js';
import { SinkError } from './errors.js';
import { checkOutputKey, replayKey } from './keys.js';
import { claimFolder, claimKey } from './layout.js';
import { S3Link, type S3Sdk } from './s3-link.js';
import {
  compactS3Manifest,
  MANIFEST_DIR,
  readS3Manifest,
  s3ManifestBytes,
  s3ManifestStamp,
  S3ManifestLog,
  type S3ManifestPlace,
} from './s3-manifest.js';
import { isNotFound, listKeys, s3Error } from './s3-requests.js';
import { defaultChecksums, S3_DEFAULTS, type S3Checksums } from './s3-defaults.js';
import { formatS3Url, parseS3Url } from './s3-url.js';
import { S3ReplayWriter } from './s3-writer.js';
import { s3WorkClaims } from './s3-work-claims.js';
import type { ReplayWriter } from './sink.js';
import { branded, type Store } from './store.js';

export type { S3Checksums };

export interface S3SinkOptions {
  /** S3-compatible endpoint, e.g. `http://127.0.0.1:9000`. Default: AWS. */
  endpoint?: string | undefined;
  /** Path-style addressing (`endpoint/bucket/key`), needed by most S3-compatible servers. */
  forcePathStyle?: boolean | undefined;
  /**
   * Region; default the SDK's chain (`AWS_REGION`, config files), `us-east-1` with a custom endpoint. The sink reads
   * no environment variable itself: the pipeline's settings pass `AWS_REGION` / `AWS_DEFAULT_REGION` here.
   */
  region?: string | undefined;
  /** Static credentials; default the SDK's standard chain (env, shared files, SSO, container/instance roles). */
  credentials?: S3ClientConfig['credentials'] | undefined;
  /** Multipart part size in bytes (minimum 5 MiB, default 8 MiB). Memory per upload ≈ partSize × queueSize. */
  partSize?: number | undefined;
  /** Parts uploaded in parallel per replay (default 4). */
  queueSize?: number | undefined;
  /**
   * `when-supported` (the SDK's default on AWS): CRC checksums on every upload and response validation.
   * `when-required`: only where S3 demands one — for S3-compatible servers that reject the SDK's checksum headers
   * or aws-chunked bodies. Default: `when-supported` on AWS, `when-required` with a custom `endpoint`.
   */
  checksums?: S3Checksums | undefined;
  /** Use this client instead of creating one (the options above other than part/queue size are then ignored). */
  client?: S3Client | undefined;
}

const MIN_PART_SIZE = S3_DEFAULTS.minPartSize;
const STAGING_DIR = '_staging';
/** Digests a store remembers as stored (a HEAD per asset per run, not per replay); beyond, it asks again. */
const MAX_REMEMBERED_ASSETS = 100_000;

/** Where the store is, and what every member uses: the link (client on first use), bucket, `base` (prefix + `/`). */
interface S3Place extends Omit<S3ManifestPlace, 'writerId'> {
  closed: () => boolean;
}

/** Checks the options a store takes (at once, before anything is loaded); the part and queue sizes in force. */
function checkS3Options(opts: S3SinkOptions, target: string): { partSize: number; queueSize: number } {
  const partSize = opts.partSize ?? S3_DEFAULTS.partSize;
  const queueSize = opts.queueSize ?? S3_DEFAULTS.queueSize;
  if (!Number.isSafeInteger(partSize) || partSize < MIN_PART_SIZE) {
    throw new SinkError('SINK_CONFIG', `S3 part size must be an integer of at least ${MIN_PART_SIZE} bytes (5 MiB)`, {
      target,
    });
  }
  if (!Number.isSafeInteger(queueSize) || queueSize < 1) {
    throw new SinkError('SINK_CONFIG', 'S3 queue size must be a positive integer', { target });
  }
  if (opts.checksums !== undefined && opts.checksums !== 'when-required' && opts.checksums !== 'when-supported') {
    throw new SinkError('SINK_CONFIG', `S3 checksums must be when-required or when-supported`, { target });
  }
  return { partSize, queueSize };
}

/**
 * The store of `s3://bucket/prefix` (see the module's comment). The URL and options are checked here, at once; the SDK
 * is loaded by the first request.
 */
export function createS3Sink(url: string, opts: S3SinkOptions = {}): Store {
  const location = parseS3Url(url);
  const target = formatS3Url(location);
  const sizes = checkS3Options(opts, target);
  const client = new S3Link(target, (sdk) => createClient(sdk, opts), opts.client);
  let closed = false;
  const place: S3Place = {
    client,
    bucket: location.bucket,
    base: location.prefix === '' ? '' : `${location.prefix}/`,
    target,
    closed: () => closed,
  };
  const manifest: S3ManifestPlace = { ...place, writerId: randomBytes(6).toString('hex') };
  const log = new S3ManifestLog(manifest);
  const objects = s3Objects(place);
  return branded({
    target,
    listsInBulk: true,
    ...objects,
    ...s3Assets(place, objects),
    keyFor: (replayId, output) => replayKey(replayId, output),
    open: (replayId, output) =>
      openWriter(place, sizes, replayId, output, (digest) => objects.read(assetKey(digest, target))),
    workClaims: (run) => s3WorkClaims(client, place.bucket, place.base, target, run),
    async appendManifest(entry) {
      isOpen(place);
      await log.append(entry);
    },
    readManifest: (keep) => readS3Manifest(manifest, keep),
    readManifestBytes: () => s3ManifestBytes(manifest),
    manifestStamp: () => s3ManifestStamp(manifest),
    async compactManifest(options) {
      isOpen(place);
      return compactS3Manifest(manifest, options);
    },
    async close() {
      closed = true;
      await client.close();
    },
  });
}

function isOpen(place: S3Place, more: { key?: string; replayId?: string } = {}): void {
  if (place.closed()) throw new SinkError('SINK_STATE', 'sink is closed', { target: place.target, ...more });
}

/** Starts one replay's upload to a staging key (the SDK's `Upload`, loaded with the client). */
async function openWriter(
  place: S3Place,
  sizes: { partSize: number; queueSize: number },
  replayId: string,
  output: Parameters<Store['open']>[1],
  readAsset: (digest: string) => Promise<Readable | undefined>,
): Promise<ReplayWriter> {
  isOpen(place, { replayId });
  const key = replayKey(replayId, output);
  const stagingKey = `${place.base}${STAGING_DIR}/${Date.now()}-${randomBytes(8).toString('hex')}`;
  const context = { target: place.target, key, replayId };
  let uploader: Awaited<ReturnType<S3Link['uploader']>>;
  try {
    uploader = await place.client.uploader();
  } catch (err) {
    throw s3Error('cannot start the upload', err, context);
  }
  const setup = {
    client: place.client,
    uploader,
    bucket: place.bucket,
    finalKey: place.base + key,
    stagingKey,
    output,
    ...sizes,
  };
  return new S3ReplayWriter(setup, key, context, readAsset);
}

/** The object members of the S3 store: reading, finding, listing and removing objects by key. */
function s3Objects(place: S3Place) {
  const { client, bucket, base, target } = place;
  const exists = async (key: string): Promise<boolean> => {
    try {
      await client.send('HeadObject', { Bucket: bucket, Key: base + key });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw s3Error(`HeadObject ${key} failed`, err, { target, key });
    }
  };
  /** Deletes the object at `key` (an output's or an asset's); true when one was there. */
  const removeAt = async (key: string): Promise<boolean> => {
    // DeleteObject answers the same whether or not the object was there: a HEAD first tells.
    if (!(await exists(key))) return false;
    try {
      await client.send('DeleteObject', { Bucket: bucket, Key: base + key });
    } catch (err) {
      throw s3Error(`DeleteObject ${key} failed`, err, { target, key });
    }
    return true;
  };
  return {
    exists,
    removeAt,
    async read(key: string): Promise<Readable | undefined> {
      try {
        const response = await client.send('GetObject', { Bucket: bucket, Key: base + key });
        return response.Body instanceof Readable ? response.Body : undefined;
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw s3Error(`GetObject ${key} failed`, err, { target, key });
      }
    },
    async remove(key: string): Promise<boolean> {
      isOpen(place, { key });
      checkOutputKey(key, target);
      return removeAt(key);
    },
    storedKeys: () => listOutputKeys(client, bucket, base, target),
    async *storedObjects(): AsyncIterable<string> {
      for await (const key of listKeys(client, bucket, base, 'the archive', { target, key: '' }))
        yield key.slice(base.length);
    },
    async hasManifest(): Promise<boolean> {
      try {
        const page = await client.send('ListObjectsV2', {
          Bucket: bucket,
          Prefix: `${base}${MANIFEST_DIR}/`,
          MaxKeys: 1,
        });
        return (page.Contents ?? []).length > 0;
      } catch (err) {
        throw s3Error('cannot look for the manifest', err, { target, key: `${MANIFEST_DIR}/` });
      }
    },
  };
}

/** The asset members of the S3 store: assets stored once (after their owner's claim), read, removed; claims listed. */
function s3Assets(place: S3Place, objects: ReturnType<typeof s3Objects>) {
  const { client, bucket, base, target } = place;
  /** Digests this store stored or found stored: not asked about again. */
  const stored = new Set<string>();
  const remember = (digest: string): void => {
    if (stored.size >= MAX_REMEMBERED_ASSETS) stored.clear();
    stored.add(digest);
  };
  const assetClaims = async function* (replayId: string): AsyncIterable<string> {
    const prefix = base + claimFolder(replayId);
    for await (const key of listKeys(client, bucket, prefix, `the asset claims of ${replayId}`, {
      target,
      key: claimFolder(replayId),
    })) {
      const name = key.slice(prefix.length);
      if (isAssetDigest(name)) yield name;
    }
  };
  return {
    async putAsset(digest: string, type: string, body: Buffer, owner?: string): Promise<void> {
      isOpen(place);
      if (stored.has(digest)) return;
      checkAssetBody(digest, body, target);
      if (!(await objects.exists(assetKey(digest, target)))) {
        if (owner !== undefined)
          await putObject(place, claimKey(owner, digest, target), { Body: Buffer.alloc(0) }, owner);
        // One PutObject: the object appears complete or not at all.
        const typed = { Body: body, ContentType: plainContentType(type), Metadata: { sha256: digest } };
        await putObject(place, assetKey(digest, target), typed);
      }
      remember(digest);
    },
    readAsset: (digest: string) => objects.read(assetKey(digest, target)),
    async removeAsset(digest: string): Promise<boolean> {
      isOpen(place);
      stored.delete(digest);
      return objects.removeAt(assetKey(digest, target));
    },
    assetClaims,
    async removeAssetClaims(replayId: string): Promise<void> {
      isOpen(place);
      for await (const digest of assetClaims(replayId)) {
        const key = claimKey(replayId, digest, target);
        try {
          await client.send('DeleteObject', { Bucket: bucket, Key: base + key });
        } catch (err) {
          throw s3Error(`DeleteObject ${key} failed`, err, { target, key, replayId });
        }
      }
    },
  };
}

/** One PutObject of `key` (relative to the prefix); `owner`: the replay whose claim it is, named in errors. */
async function putObject(
  place: S3Place,
  key: string,
  more: { Body: Buffer; ContentType?: string; Metadata?: Record<string, string> },
  owner?: string,
): Promise<void> {
  try {
    await place.client.send('PutObject', { Bucket: place.bucket, Key: place.base + key, ...more });
  } catch (err) {
    const what = owner === undefined ? `PutObject ${key} failed` : `cannot record the claim ${key}`;
    throw s3Error(what, err, { target: place.target, key, replayId: owner });
  }
}

function createClient(sdk: S3Sdk, opts: S3SinkOptions): S3Client {
  const checksums = opts.checksums ?? defaultChecksums(opts.endpoint);
  const mode = checksums === 'when-required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED';
  const region = opts.region ?? (opts.endpoint === undefined ? undefined : S3_DEFAULTS.endpointRegion);
  const config: S3ClientConfig = {
    requestChecksumCalculation: mode,
    responseChecksumValidation: mode,
  };
  if (region !== undefined) config.region = region;
  if (opts.endpoint !== undefined) config.endpoint = opts.endpoint;
  if (opts.forcePathStyle !== undefined) config.forcePathStyle = opts.forcePathStyle;
  if (opts.credentials !== undefined) config.credentials = opts.credentials;
  return new sdk.s3.S3Client(config);
}

/**
 * The keys of the replay outputs under `base`, relative to it: one listing in key order that jumps over the manifest's
 * and the staging objects (`StartAfter` the folder's name + '0', which sorts right after every `name/...` key).
 */
async function* listOutputKeys(client: S3Link, bucket: string, base: string, target: string): AsyncIterable<string> {
  const skipped = [ASSETS_DIR, MANIFEST_DIR, STAGING_DIR];
  let startAfter: string | undefined;
  for (;;) {
    let restart: string | undefined;
    for await (const key of listKeys(client, bucket, base, 'the outputs', { target, key: '' }, startAfter)) {
      const relative = key.slice(base.length);
      const folder = skipped.find((name) => relative.startsWith(`${name}/`));
      if (folder !== undefined) {
        restart = `${base}${folder}0`;
        break;
      }
      yield relative;
    }
    if (restart === undefined) return;
    startAfter = restart;
  }
}
