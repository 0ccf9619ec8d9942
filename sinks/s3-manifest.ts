/**
 * The manifest of an S3 target: a log of one object per recorded outcome,
 * `<prefix>/_manifest/<device>/<session>/<stamp>-<writer>-<seq>.json`, and snapshots, each the latest entry of every
 * replay of one shard layout, `<prefix>/_manifest/_snapshots/<layout>/<stamp>-<writer>-<entries>.ndjson.gz` (gzip
 * NDJSON in key order; `<layout>` is `all` or `<index>-of-<count>`).
 *
 * A compaction streams the snapshots and the log into a new snapshot (multipart upload: it appears whole or not at
 * all), then deletes the log objects and the snapshots it folded. A reader merges whatever is there (see
 * `manifest-merge.ts`): a crash at any point leaves entries folded twice at worst, never a newer state hidden. A
 * resume then reads one snapshot object and lists the log instead of a GET per replay ever archived.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { S3Link } from './s3-link.js';
import { withThrownCode } from './error-codes.js';
import { SinkError } from './errors.js';
import { replayIdFromKeyBase, replayKeyBase } from './keys.js';
import {
  MAX_MANIFEST_RECORD_BYTES,
  type ManifestBytes,
  type ManifestFile,
  gunzipManifest,
  manifestLines,
  parseManifestStream,
  serializeManifestEntry,
} from './manifest-lines.js';
import { mergeByGroup, type GroupedEntry } from './manifest-merge.js';
import { deleteKeys, listKeys, s3Error } from './s3-requests.js';
import type { ManifestCompaction, ManifestCompactionResult, ManifestEntry } from './sink.js';

export const MANIFEST_DIR = '_manifest';
const SNAPSHOT_DIR = '_snapshots';
/** Log objects fetched ahead of the one being read. */
const LOG_READ_WINDOW = 8;
const SNAPSHOT_PART_SIZE = 8 * 1024 * 1024;
const LOG_NAME = /^([^/]+\/[^/]+\/)\d{13}-[0-9a-f]+-\d+\.json$/;
const SNAPSHOT_NAME = /^(all|\d{1,6}-of-\d{1,6})\/(\d{13})-[0-9a-f]+-(\d{1,12})\.ndjson\.gz$/;

/** Where the manifest is: the sink's client, bucket, `base` (the prefix with its `/`, or empty) and target. */
export interface S3ManifestPlace {
  readonly client: S3Link;
  readonly bucket: string;
  readonly base: string;
  readonly target: string;
  /** This process's writer id (in the names of its log objects and snapshots). */
  readonly writerId: string;
}

interface SnapshotRef {
  /** Full key. */
  readonly key: string;
  readonly layout: string;
  readonly entries: number;
}

/** The group of a replay's entries: its key base and `/`, which orders them as a listing of the log does. */
function groupOf(replayId: string): string {
  return replayKeyBase(replayId) + '/';
}

/** Appends one entry as a log object (keys of one writer increase: stamp, then sequence). */
export class S3ManifestLog {
  #lastStamp = 0;
  #sequence = 0;
  constructor(private readonly place: S3ManifestPlace) {}

  async append(entry: ManifestEntry): Promise<void> {
    const { client, bucket, base, target, writerId } = this.place;
    const body = serializeManifestEntry(entry);
    this.#lastStamp = Math.max(this.#lastStamp, Date.now());
    this.#sequence++;
    const name = `${stamp(this.#lastStamp)}-${writerId}-${String(this.#sequence).padStart(10, '0')}.json`;
    const key = `${base}${MANIFEST_DIR}/${replayKeyBase(entry.replay_id)}/${name}`;
    try {
      await client.send('PutObject', { Bucket: bucket, Key: key, Body: body, ContentType: 'application/json' });
    } catch (err) {
      throw s3Error('cannot record the manifest entry', err, {
        target,
        key: key.slice(base.length),
        replayId: entry.replay_id,
      });
    }
  }
}

function stamp(ms: number): string {
  return String(ms).padStart(13, '0');
}

/**
 * The key of a snapshot of `layout` holding `entries` replays, written by `writer` (hex) from `startedMs`, relative to
 * the bucket (`base`: the prefix with its `/`). What `listSnapshots` reads back.
 */
export function snapshotKey(base: string, layout: string, startedMs: number, writer: string, entries: number): string {
  return `${base}${MANIFEST_DIR}/${SNAPSHOT_DIR}/${layout}/${stamp(startedMs)}-${writer}-${entries}.ndjson.gz`;
}

/** Every snapshot, oldest first (by stamp, then key). */
async function listSnapshots(place: S3ManifestPlace): Promise<SnapshotRef[]> {
  const prefix = `${place.base}${MANIFEST_DIR}/${SNAPSHOT_DIR}/`;
  const found: Array<SnapshotRef & { stamp: string }> = [];
  for await (const key of listKeys(place.client, place.bucket, prefix, 'the manifest snapshots', {
    target: place.target,
    key: `${MANIFEST_DIR}/${SNAPSHOT_DIR}/`,
  })) {
    const m = SNAPSHOT_NAME.exec(key.slice(prefix.length));
    if (m !== null) found.push({ key, layout: m[1]!, stamp: m[2]!, entries: Number(m[3]) });
  }
  found.sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.key < b.key ? -1 : 1));
  return found.map(({ key, layout, entries }) => ({ key, layout, entries }));
}

/** A snapshot's body as stored (gzip), streamed. */
async function* snapshotBody(place: S3ManifestPlace, ref: SnapshotRef): AsyncIterable<Buffer> {
  const relative = ref.key.slice(place.base.length);
  let body: Readable;
  try {
    const response = await place.client.send('GetObject', { Bucket: place.bucket, Key: ref.key });
    if (!(response.Body instanceof Readable))
      throw new SinkError('SINK_S3', `cannot read manifest snapshot ${relative}: no body`, {
        target: place.target,
        key: relative,
      });
    body = response.Body;
  } catch (err) {
    throw s3Error(`cannot read manifest snapshot ${relative}`, err, { target: place.target, key: relative });
  }
  try {
    yield* body as AsyncIterable<Buffer>;
  } finally {
    body.destroy();
  }
}

/** A snapshot's entries (of the replays `keep` takes), streamed: its bytes, lines. */
async function* snapshotEntries(place: S3ManifestPlace, ref: SnapshotRef, keep: Keep): AsyncIterable<GroupedEntry> {
  const bytes = gunzipManifest(snapshotBody(place, ref), ref.key.slice(place.base.length), place.target);
  for await (const entry of parseManifestStream(bytes, place.target)) {
    if (keep === undefined || keep(entry.replay_id)) yield { group: groupOf(entry.replay_id), entry };
  }
}

type Keep = ((replayId: string) => boolean) | undefined;

/** A log entry in the merge, with its key (a compaction deletes what it folded). */
interface LogItem extends GroupedEntry {
  readonly key: string;
}

/**
 * The log's objects in key order (grouped by replay), each fetched a few ahead. Objects of replays `keep` refuses are
 * not fetched when their key names the replay (a hashed key names none: fetched, then dropped).
 */
async function* logEntries(place: S3ManifestPlace, keep: Keep): AsyncIterable<LogItem> {
  const prefix = `${place.base}${MANIFEST_DIR}/`;
  const queue: LogItem[] = [];
  for await (const key of listKeys(place.client, place.bucket, prefix, 'the manifest', {
    target: place.target,
    key: `${MANIFEST_DIR}/`,
  })) {
    const m = LOG_NAME.exec(key.slice(prefix.length));
    if (m === null) continue;
    const group = m[1]!;
    const id = replayIdFromKeyBase(group.slice(0, -1));
    if (keep !== undefined && id !== undefined && !keep(id)) continue;
    const entry = readLogObject(place, key, group).then((e) =>
      keep === undefined || keep(e.replay_id) ? e : undefined,
    );
    entry.catch(() => undefined); // observed when its turn comes
    queue.push({ group, entry, key });
    if (queue.length >= LOG_READ_WINDOW) yield queue.shift()!;
  }
  while (queue.length > 0) yield queue.shift()!;
}

async function readLogObject(place: S3ManifestPlace, key: string, group: string): Promise<ManifestEntry> {
  const relative = key.slice(place.base.length);
  let text: string;
  const tooLarge = (): SinkError =>
    new SinkError('MANIFEST_CORRUPT', `manifest object ${relative} is larger than ${MAX_MANIFEST_RECORD_BYTES} bytes`, {
      target: place.target,
      key: relative,
    });
  try {
    const response = await place.client.send('GetObject', { Bucket: place.bucket, Key: key });
    // The same limit as a local line: a record no writer makes is refused before its body is read.
    if ((response.ContentLength ?? 0) > MAX_MANIFEST_RECORD_BYTES + 1) {
      (response.Body as Readable | undefined)?.destroy?.();
      throw tooLarge();
    }
    text = (await response.Body?.transformToString('utf-8')) ?? '';
  } catch (err) {
    throw s3Error(`cannot read manifest object ${relative}`, err, { target: place.target, key: relative });
  }
  if (Buffer.byteLength(text, 'utf8') > MAX_MANIFEST_RECORD_BYTES + 1) throw tooLarge();
  let value: ManifestEntry | undefined;
  try {
    value = JSON.parse(text) as ManifestEntry;
  } catch {
    // reported below
  }
  if (typeof value?.replay_id === 'string' && typeof value.status === 'string') {
    if (groupOf(value.replay_id) === group) return withThrownCode(value);
    throw new SinkError('MANIFEST_CORRUPT', `manifest object ${relative} holds an entry of another replay`, {
      target: place.target,
      key: relative,
    });
  }
  throw new SinkError('MANIFEST_CORRUPT', `manifest object ${relative} is not a manifest entry`, {
    target: place.target,
    key: relative,
  });
}

/** Every entry of the manifest (of the replays `keep` takes, when given), each replay's oldest first. */
export async function* readS3Manifest(
  place: S3ManifestPlace,
  keep?: (replayId: string) => boolean,
): AsyncIterable<ManifestEntry> {
  const snapshots = await listSnapshots(place);
  const places = [
    ...snapshots.map((ref) => ({ name: ref.key.slice(place.base.length), entries: snapshotEntries(place, ref, keep) })),
    { name: `${MANIFEST_DIR}/`, entries: logEntries(place, keep) },
  ];
  for await (const group of mergeByGroup(places, place.target)) yield* group.entries;
}

/**
 * The manifest as bytes (what a catalogue build parses off the main thread): each snapshot's body (gzip) oldest
 * first, then the log's entries (each object read and checked as `readS3Manifest` does) one a line, in key order.
 * Parsed file by file they give the entries `readS3Manifest` merges; a replay's state is its latest `recorded_at`.
 */
export function s3ManifestBytes(place: S3ManifestPlace): ManifestBytes {
  return { newest: 'recorded', files: s3ManifestFiles(place) };
}

async function* s3ManifestFiles(place: S3ManifestPlace): AsyncIterable<ManifestFile> {
  for (const ref of await listSnapshots(place)) {
    yield { key: ref.key.slice(place.base.length), gzip: true, chunks: snapshotBody(place, ref) };
  }
  yield { key: `${MANIFEST_DIR}/`, chunks: manifestLines(logValues(place)) };
}

/** The log's entries, each object read and checked. */
async function* logValues(place: S3ManifestPlace): AsyncIterable<ManifestEntry | undefined> {
  for await (const item of logEntries(place, undefined)) yield item.entry;
}

/** Whether the log holds an object of a replay `keep` takes (or may: a hashed key), listing no further than the first. */
async function logHasAny(place: S3ManifestPlace, keep: Keep): Promise<boolean> {
  const prefix = `${place.base}${MANIFEST_DIR}/`;
  for await (const key of listKeys(place.client, place.bucket, prefix, 'the manifest', {
    target: place.target,
    key: `${MANIFEST_DIR}/`,
  })) {
    const m = LOG_NAME.exec(key.slice(prefix.length));
    if (m === null) continue;
    const id = replayIdFromKeyBase(m[1]!.slice(0, -1));
    if (keep === undefined || id === undefined || keep(id)) return true;
  }
  return false;
}

/**
 * Folds the snapshots and the log (of the replays `keep` takes) into one new snapshot of `layout`, then deletes the
 * log objects it folded and the snapshots it replaces: those of its own layout (all of them for `all`). Memory stays
 * bounded: the merge holds one replay's entries, the upload a few parts, and the folded keys wait in a temporary file.
 */
export async function compactS3Manifest(
  place: S3ManifestPlace,
  options: ManifestCompaction,
): Promise<ManifestCompactionResult> {
  const { layout } = options;
  const keep = layout === 'all' ? undefined : options.keep;
  if (!/^(all|\d{1,6}-of-\d{1,6})$/.test(layout)) {
    throw new SinkError('SINK_CONFIG', `manifest layout ${JSON.stringify(layout)} is not all or <index>-of-<count>`, {
      target: place.target,
    });
  }
  const snapshots = await listSnapshots(place);
  const replaced = snapshots.filter((s) => layout === 'all' || s.layout === layout);
  const unchanged = { compacted: false, entries: 0, folded: 0, removed: 0 };
  if (replaced.length <= 1 && (layout !== 'all' || snapshots.length <= 1) && !(await logHasAny(place, keep)))
    return unchanged;

  const folder = await mkdtemp(join(tmpdir(), 'replay-export-compact-'));
  try {
    const foldedPath = join(folder, 'folded-keys');
    const folded = createWriteStream(foldedPath);
    let foldedCount = 0;
    const foldedWritten = once(folded, 'finish');
    foldedWritten.catch(() => undefined);
    const noteFolded = async (key: string): Promise<void> => {
      foldedCount++;
      if (!folded.write(key + '\n')) await once(folded, 'drain');
    };

    const started = Date.now();
    let entries = 0;
    const merged = (async function* (): AsyncIterable<Buffer> {
      const places: Array<{ name: string; entries: AsyncIterable<GroupedEntry> }> = snapshots.map((ref) => ({
        name: ref.key.slice(place.base.length),
        entries: snapshotEntries(place, ref, keep),
      }));
      const log = logEntries(place, keep);
      places.push({
        name: `${MANIFEST_DIR}/`,
        entries: (async function* () {
          for await (const item of log) {
            yield item;
            if ((await item.entry) !== undefined) await noteFolded(item.key);
          }
        })(),
      });
      for await (const group of mergeByGroup(places, place.target)) {
        entries++;
        yield serializeManifestEntry(group.entries[group.entries.length - 1]!);
      }
    })();
    // The snapshot's name carries its entry count, known only at the end: it is staged in a local file (bounded
    // memory, any size), then uploaded.
    const staged = join(folder, 'snapshot.ndjson.gz');
    // pipeline: a failure of any stage (the merge, gzip, the local disk) ends every stage and is thrown here.
    await pipeline(merged, createGzip(), createWriteStream(staged), options.signal ? { signal: options.signal } : {});
    options.signal?.throwIfAborted();
    folded.end();
    await foldedWritten;

    const writer = place.writerId + randomBytes(3).toString('hex');
    await uploadFile(place, staged, snapshotKey(place.base, layout, started, writer, entries));

    let removed = 0;
    removed += await deleteFolded(place, keysOfFile(foldedPath));
    removed += await deleteFolded(
      place,
      (async function* () {
        for (const s of replaced) yield s.key;
      })(),
    );
    return { compacted: true, entries, folded: foldedCount, removed };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function uploadFile(place: S3ManifestPlace, path: string, key: string): Promise<void> {
  const relative = key.slice(place.base.length);
  const file = await open(path, 'r');
  try {
    const { Upload, client } = await place.client.uploader();
    const upload = new Upload({
      client,
      params: {
        Bucket: place.bucket,
        Key: key,
        Body: file.createReadStream({ autoClose: false }),
        ContentType: 'application/gzip',
      },
      partSize: SNAPSHOT_PART_SIZE,
      queueSize: 2,
      leavePartsOnError: false,
    });
    await upload.done();
  } catch (err) {
    throw s3Error(`cannot write manifest snapshot ${relative}`, err, { target: place.target, key: relative });
  } finally {
    await file.close();
  }
}

/** The lines of a local file, streamed. */
function keysOfFile(path: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
}

/** Deletes folded log objects and replaced snapshots, 1,000 a request; returns how many. */
function deleteFolded(place: S3ManifestPlace, keys: AsyncIterable<string>): Promise<number> {
  return deleteKeys(place.client, place.bucket, keys, 'folded manifest objects', {
    target: place.target,
    base: place.base,
    key: `${MANIFEST_DIR}/`,
  });
}

/**
 * The manifest's stamp: a digest of the keys under `_manifest/` (log objects and snapshots are never rewritten in
 * place: each append and fold adds or removes keys). One listing; after a fold, a short one.
 */
export async function s3ManifestStamp(place: S3ManifestPlace): Promise<string> {
  const hash = createHash('sha256');
  let count = 0;
  const prefix = `${place.base}${MANIFEST_DIR}/`;
  for await (const key of listKeys(place.client, place.bucket, prefix, 'the manifest', {
    target: place.target,
    key: `${MANIFEST_DIR}/`,
  })) {
    hash.update(key).update('\n');
    count++;
  }
  return `s3 ${count} ${hash.digest('hex')}`;
}
