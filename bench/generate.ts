/**
 * Builds (once, cached in bench/.data) the replays the bench measures, from the recorded samples:
 *  - `big`: ~200 MB of decoded events in 20 files, both versions. The recorded events of every sample are
 *    repeated in a cycle with their timestamps shifted so that they keep increasing; version 3 files are gzip JSON
 *    arrays of the events, version 2 files are gzip JSON arrays of `JSON.stringify(pack(event))` (the platform's
 *    browser SDK with `@amplitude/rrweb-packer`).
 *  - `huge`: ~1 GB decoded, the 20 `big` files served 5 times as 100 consecutive keys (symlinks).
 *  - `small`: one pass over the recorded events in 4 files; the sandbox clones it into the archive run's replays.
 * Both folders are in the samples layout (docs/ARCHITECTURE.md), so `startSandbox({ samplesDir })` serves them.
 */

import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from '@amplitude/rrweb-packer/pack';
import { chunkKey } from '../samples/lib/split.js';
import { deviceIdFor, platformIdFor } from '../samples/lib/ids.js';
import { ARCHIVE_SAMPLES_DIR, BIG_SAMPLES_DIR, DATA_DIR, META_FILE, SAMPLES_DIR } from './paths.js';

/** Bump when the generated data changes shape, so that cached data is rebuilt. */
const GENERATOR_VERSION = 1;

export const BIG_DECODED_BYTES = 200_000_000;
export const BIG_FILES = 20;
export const HUGE_REPEATS = 5;
export const SMALL_FILES = 4;
const RETENTION_DAYS = 90;
const BIG_START_MS = Date.UTC(2026, 10, 1, 0, 0, 0);
const SMALL_START_MS = Date.UTC(2026, 10, 10, 0, 0, 0);
/** Pause between two repetitions of a recorded sample, ms. */
const REPEAT_GAP_MS = 1000;

export interface GeneratedReplay {
  name: string;
  replay_id: string;
  device_id: string;
  session_id: string;
  start_time: string;
  end_time: string;
  event_count: number;
  /** Bytes of the decoded replay written as one JSON array (what `export` writes with format json). */
  bytes: number;
  /** SHA-256 of those bytes. */
  sha256: string;
  /** File paths relative to the samples folder, per version, in key order. */
  files: { 2: string[]; 3: string[] };
  /** Total compressed bytes of the files, per version. */
  compressed: { 2: number; 3: number };
}

export interface BenchData {
  generator: number;
  source: string;
  big: GeneratedReplay;
  huge: GeneratedReplay;
  small: GeneratedReplay;
}

type Event = Record<string, unknown> & { timestamp: number };

interface SourceSample {
  name: string;
  events: Event[];
}

async function loadSources(): Promise<{ samples: SourceSample[]; digest: string }> {
  const indexText = await readFile(join(SAMPLES_DIR, 'index.json'), 'utf8');
  const index = JSON.parse(indexText) as { replays: Array<{ name: string; expected: string }> };
  const hash = createHash('sha256').update(indexText);
  const samples: SourceSample[] = [];
  for (const r of index.replays) {
    const text = await readFile(join(SAMPLES_DIR, r.expected), 'utf8');
    hash.update(text);
    const events = JSON.parse(text) as Event[];
    if (events.length > 0) samples.push({ name: r.name, events });
  }
  if (samples.length === 0) throw new Error('bench: samples/index.json lists no recorded events');
  return { samples, digest: hash.digest('hex').slice(0, 16) };
}

/** The recorded events, sample after sample, again and again, timestamps shifted to keep increasing. */
function* expandedEvents(
  samples: SourceSample[],
  startMs: number,
  cycles = Number.POSITIVE_INFINITY,
): Generator<Event> {
  let cursor = startMs;
  for (let c = 0; c < cycles; c++) {
    for (const s of samples) {
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (const e of s.events) {
        min = Math.min(min, e.timestamp);
        max = Math.max(max, e.timestamp);
      }
      const shift = cursor - min;
      for (const e of s.events) yield { ...e, timestamp: e.timestamp + shift };
      cursor = max + shift + REPEAT_GAP_MS;
    }
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The version 2 element of an event as the platform's browser SDK wrote it, as it appears in the file's array. */
function v2ElementText(event: Event): string {
  return JSON.stringify(JSON.stringify(pack(event as never)));
}

/** Streams the expected decoded output (`[` events joined by `,` `]`) to a file while hashing it. */
class ExpectedWriter {
  private readonly out: WriteStream;
  private readonly hash: Hash = createHash('sha256');
  bytes = 0;
  events = 0;

  constructor(path: string) {
    this.out = createWriteStream(path);
  }

  write(text: string): Promise<void> {
    return this.writeBytes(Buffer.from(text, 'utf8'));
  }

  /** Raw bytes (a chunk read from a file may end inside a UTF-8 sequence, so it is never decoded to text). */
  async writeBytes(buf: Buffer): Promise<void> {
    this.hash.update(buf);
    this.bytes += buf.length;
    if (!this.out.write(buf)) await once(this.out, 'drain');
  }

  async end(): Promise<string> {
    this.out.end();
    await once(this.out, 'finish');
    return this.hash.digest('hex');
  }
}

interface ReplayIdentity {
  name: string;
  device_id: string;
}

function identity(name: string): ReplayIdentity {
  return { name, device_id: deviceIdFor(`bench:${name}`) };
}

/** Writes one replay's files (both versions, same boundaries, about `targetBytes / fileCount` decoded bytes each) and its expected events. */
async function writeReplay(
  dir: string,
  id: ReplayIdentity,
  events: Iterable<Event>,
  fileCount: number,
  targetBytes: number,
  log: (line: string) => void,
): Promise<GeneratedReplay> {
  const v3Dir = join(dir, 'files', id.name, 'v3');
  const v2Dir = join(dir, 'files', id.name, 'v2');
  await mkdir(v3Dir, { recursive: true });
  await mkdir(v2Dir, { recursive: true });
  await mkdir(join(dir, 'expected'), { recursive: true });
  const expected = new ExpectedWriter(join(dir, 'expected', `${id.name}.json`));
  await expected.write('[');
  const files: { 2: string[]; 3: string[] } = { 2: [], 3: [] };
  const compressed = { 2: 0, 3: 0 };
  const iterator = events[Symbol.iterator]();
  let eventBytes = 0;
  let first = Number.NaN;
  let last = Number.NaN;
  for (let f = 0; f < fileCount; f++) {
    const goal = ((f + 1) * targetBytes) / fileCount;
    const v3: string[] = [];
    const v2: string[] = [];
    let fileFirst = Number.NaN;
    while (eventBytes < goal || v3.length === 0) {
      const next = iterator.next();
      if (next.done) break;
      const text = JSON.stringify(next.value);
      if (Number.isNaN(fileFirst)) fileFirst = next.value.timestamp;
      if (Number.isNaN(first)) first = next.value.timestamp;
      last = next.value.timestamp;
      v3.push(text);
      v2.push(v2ElementText(next.value));
      eventBytes += Buffer.byteLength(text) + 1;
    }
    if (v3.length === 0) throw new Error(`bench: not enough events for ${fileCount} files of ${id.name}`);
    const key = chunkKey(fileFirst, f);
    const inner = v3.join(',');
    await expected.write((f > 0 ? ',' : '') + inner);
    expected.events += v3.length;
    const v3Gz = gzipSync(`[${inner}]`);
    const v2Gz = gzipSync(`[${v2.join(',')}]`);
    await writeFile(join(v3Dir, key), v3Gz);
    await writeFile(join(v2Dir, key), v2Gz);
    compressed[3] += v3Gz.length;
    compressed[2] += v2Gz.length;
    files[3].push(`files/${id.name}/v3/${key}`);
    files[2].push(`files/${id.name}/v2/${key}`);
    if (fileCount > 4)
      log(`  ${id.name}: file ${f + 1}/${fileCount} (${(eventBytes / 1e6).toFixed(0)} MB decoded so far)`);
  }
  await expected.write(']');
  const sha256 = await expected.end();
  return {
    name: id.name,
    replay_id: `${id.device_id}/${first}`,
    device_id: id.device_id,
    session_id: String(first),
    start_time: iso(first),
    end_time: iso(last),
    event_count: expected.events,
    bytes: expected.bytes,
    sha256,
    files,
    compressed,
  };
}

/** The 1 GB replay: big's files under consecutive later keys, and its expected events (big's, `repeats` times). */
async function writeHuge(dir: string, big: GeneratedReplay, repeats: number): Promise<GeneratedReplay> {
  const id = identity('huge');
  const spanMs = Date.parse(big.end_time) - Date.parse(big.start_time) + REPEAT_GAP_MS;
  const files: { 2: string[]; 3: string[] } = { 2: [], 3: [] };
  for (const v of [2, 3] as const) {
    const vDir = join(dir, 'files', id.name, `v${v}`);
    await mkdir(vDir, { recursive: true });
    for (let r = 0; r < repeats; r++) {
      for (let f = 0; f < big.files[v].length; f++) {
        const original = big.files[v][f]!;
        const name = original.slice(original.lastIndexOf('/') + 1);
        const ms = Number(name.slice(0, 13)) + r * spanMs;
        const key = chunkKey(ms, r * big.files[v].length + f);
        await symlink(join('..', '..', big.name, `v${v}`, name), join(vDir, key));
        files[v].push(`files/${id.name}/v${v}/${key}`);
      }
    }
  }
  // The decoded result is big's events `repeats` times (their timestamps repeat: the keys are only labels).
  const bigPath = join(dir, 'expected', `${big.name}.json`);
  const expected = new ExpectedWriter(join(dir, 'expected', `${id.name}.json`));
  await expected.write('[');
  for (let r = 0; r < repeats; r++) {
    if (r > 0) await expected.write(',');
    for await (const chunk of createReadStream(bigPath, { start: 1, end: big.bytes - 2, highWaterMark: 1 << 20 })) {
      await expected.writeBytes(chunk as Buffer);
    }
  }
  await expected.write(']');
  const sha256 = await expected.end();
  return {
    name: id.name,
    replay_id: `${id.device_id}/${Date.parse(big.start_time)}`,
    device_id: id.device_id,
    session_id: String(Date.parse(big.start_time)),
    start_time: big.start_time,
    end_time: iso(Date.parse(big.end_time) + (repeats - 1) * spanMs),
    event_count: big.event_count * repeats,
    bytes: expected.bytes,
    sha256,
    files,
    compressed: { 2: big.compressed[2] * repeats, 3: big.compressed[3] * repeats },
  };
}

async function writeIndex(dir: string, replays: GeneratedReplay[]): Promise<void> {
  const index = {
    replays: replays.map((r) => ({
      name: r.name,
      replay_id: r.replay_id,
      device_id: r.device_id,
      session_id: r.session_id,
      platform_id: platformIdFor(`bench:${r.name}`),
      start_time: r.start_time,
      end_time: r.end_time,
      retention_in_days: RETENTION_DAYS,
      event_count: r.event_count,
      expected: `expected/${r.name}.json`,
      files: { '3': r.files[3], '2': r.files[2] },
    })),
  };
  await writeFile(join(dir, 'index.json'), JSON.stringify(index, null, 2) + '\n');
}

async function cached(source: string): Promise<BenchData | undefined> {
  if (!existsSync(META_FILE)) return undefined;
  try {
    const meta = JSON.parse(await readFile(META_FILE, 'utf8')) as BenchData;
    if (meta.generator !== GENERATOR_VERSION || meta.source !== source) return undefined;
    for (const [dir, r] of [
      [BIG_SAMPLES_DIR, meta.big],
      [BIG_SAMPLES_DIR, meta.huge],
      [ARCHIVE_SAMPLES_DIR, meta.small],
    ] as const) {
      if ((await stat(join(dir, 'expected', `${r.name}.json`))).size !== r.bytes) return undefined;
      for (const p of [...r.files[2], ...r.files[3]]) if (!existsSync(join(dir, p))) return undefined;
    }
    return meta;
  } catch {
    return undefined;
  }
}

/** The bench's replays: reused from bench/.data when they match the samples and this generator, else rebuilt. */
export async function ensureBenchData(log: (line: string) => void): Promise<BenchData> {
  const { samples, digest } = await loadSources();
  const hit = await cached(digest);
  if (hit) {
    log(`data: reusing ${DATA_DIR}`);
    return hit;
  }
  log(`data: generating replays in ${DATA_DIR} (once; about a minute)`);
  await rm(META_FILE, { force: true });
  await rm(BIG_SAMPLES_DIR, { recursive: true, force: true });
  await rm(ARCHIVE_SAMPLES_DIR, { recursive: true, force: true });
  await mkdir(BIG_SAMPLES_DIR, { recursive: true });
  await mkdir(ARCHIVE_SAMPLES_DIR, { recursive: true });

  const big = await writeReplay(
    BIG_SAMPLES_DIR,
    identity('big'),
    expandedEvents(samples, BIG_START_MS),
    BIG_FILES,
    BIG_DECODED_BYTES,
    log,
  );
  log(`  huge: ${HUGE_REPEATS} × big as ${HUGE_REPEATS * BIG_FILES} keys`);
  const huge = await writeHuge(BIG_SAMPLES_DIR, big, HUGE_REPEATS);
  await writeIndex(BIG_SAMPLES_DIR, [big, huge]);

  // One pass over every recorded event, cut into 4 files of about equal size.
  const oneCycle = [...expandedEvents(samples, SMALL_START_MS, 1)];
  const oneCycleBytes = oneCycle.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)) + 1, 0);
  const small = await writeReplay(ARCHIVE_SAMPLES_DIR, identity('small'), oneCycle, SMALL_FILES, oneCycleBytes, log);
  await writeIndex(ARCHIVE_SAMPLES_DIR, [small]);

  const meta: BenchData = { generator: GENERATOR_VERSION, source: digest, big, huge, small };
  await writeFile(`${META_FILE}.tmp`, JSON.stringify(meta, null, 2) + '\n');
  await rename(`${META_FILE}.tmp`, META_FILE);
  return meta;
}
