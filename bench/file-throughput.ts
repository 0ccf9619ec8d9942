/**
 * Throughput of one replay's files through the project's decode + write path, and through the baselines that do the
 * least work that gives the same result with node's own zlib. Every run reads the same compressed files from memory
 * (64 KiB chunks, like an HTTP body) and writes one output file to disk, fsynced, as the local sink does.
 */

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip, inflateSync } from 'node:zlib';
import { batchEvents, decodeEventBatches, decodeEventBytes } from '../decoders/index.js';
import { createLocalSink, type LocalSinkOptions } from '../sinks/index.js';
import { ReplayEncoder } from '../sinks/encode.js';
import { writeAll } from '../sinks/write-ahead.js';
import { ReplayChecks } from '../src/pipeline/checks.js';

/** Size of the chunks fed to each run, like the chunks of an HTTP response body. */
export const BODY_CHUNK = 64 * 1024;
/** Chunk size of the baselines' gunzip (the issue's fastest setting; the decoders use the same). */
const GUNZIP_CHUNK = 1 << 20;
/** The baselines write in pieces of about this size. */
const WRITE_GROUP = 4 << 20;

export interface LoadedFile {
  key: string;
  bytes: Buffer;
}

export interface RunResult {
  ms: number;
  /** Bytes written to the output file. */
  written: number;
  /** Path of the output (removed by `cleanup`). */
  path: string;
  sha256?: string;
  events?: number;
}

export async function loadFiles(dir: string, relPaths: readonly string[]): Promise<LoadedFile[]> {
  const out: LoadedFile[] = [];
  for (const p of relPaths) out.push({ key: basename(p), bytes: await readFile(join(dir, p)) });
  return out;
}

async function* bodyChunks(buf: Buffer): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += BODY_CHUNK) yield buf.subarray(i, i + BODY_CHUNK);
}

function gunzipChunks(buf: Buffer): AsyncIterable<Buffer> {
  const gunzip = createGunzip({ chunkSize: GUNZIP_CHUNK });
  Readable.from(bodyChunks(buf)).pipe(gunzip);
  return gunzip;
}

/**
 * The subject: what `export` does with each file of a replay (`exportReplayToSink`) — `decodeEventBatches`
 * (auto-detected version), the replay checks over each batch, and the local sink's JSON output (runs written as
 * slices, SHA-256, temp file, fsync, rename).
 */
export async function subjectExport(
  files: readonly LoadedFile[],
  outDir: string,
  replayId: string,
  sinkOptions: LocalSinkOptions = {},
): Promise<RunResult> {
  const sink = createLocalSink(outDir, sinkOptions);
  const t0 = performance.now();
  const writer = await sink.open(replayId, { format: 'json', gzip: false });
  const checks = new ReplayChecks();
  for (const f of files) {
    for await (const batch of decodeEventBatches(bodyChunks(f.bytes), { file: f.key })) {
      checks.observeBatch(batch);
      if (batch.runs !== undefined && writer.writeRuns !== undefined) await writer.writeRuns(batch.runs);
      else await writer.write(batchEvents(batch));
    }
  }
  const done = await writer.commit();
  const ms = performance.now() - t0;
  await sink.close();
  return {
    ms,
    written: done.bytes,
    path: join(outDir, ...done.key.split('/')),
    sha256: done.sha256,
    events: done.eventCount,
  };
}

/** Baseline for version 3: gunzip each file, drop its outer brackets, join the files with `,` — the same bytes. */
export async function baselineV3(files: readonly LoadedFile[], outPath: string): Promise<RunResult> {
  const t0 = performance.now();
  const handle = await open(outPath, 'wx', 0o644);
  let written = 0;
  const put = async (b: Buffer): Promise<void> => {
    written += b.length;
    await writeAll(handle, b);
  };
  try {
    await put(Buffer.from('['));
    for (let i = 0; i < files.length; i++) {
      if (i > 0) await put(Buffer.from(','));
      let held: Buffer | undefined;
      let started = false;
      for await (const raw of gunzipChunks(files[i]!.bytes)) {
        let chunk = raw;
        if (!started) {
          let s = 0;
          while (s < chunk.length && chunk[s] !== 0x5b) s++;
          if (s === chunk.length) continue;
          chunk = chunk.subarray(s + 1);
          started = true;
        }
        if (held !== undefined && held.length > 0) await put(held);
        held = chunk;
      }
      if (held !== undefined) {
        let e = held.length;
        while (e > 0 && held[e - 1] !== 0x5d) e--;
        if (e > 0) await put(held.subarray(0, e - 1));
      }
    }
    await put(Buffer.from(']'));
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { ms: performance.now() - t0, written, path: outPath };
}

/**
 * Baseline for version 2: gunzip each file, `JSON.parse` its array, and for every element unwrap the
 * `JSON.stringify(pack(event))` string, inflate it with node's `zlib.inflateSync` (default options) and write the
 * inflated text (packer marker included) joined with `,`.
 */
export async function baselineV2(files: readonly LoadedFile[], outPath: string): Promise<RunResult> {
  const t0 = performance.now();
  const handle = await open(outPath, 'wx', 0o644);
  const comma = Buffer.from(',');
  let written = 0;
  let group: Buffer[] = [];
  let groupBytes = 0;
  let events = 0;
  const flush = async (): Promise<void> => {
    if (group.length === 0) return;
    const b = Buffer.concat(group, groupBytes);
    group = [];
    groupBytes = 0;
    written += b.length;
    await writeAll(handle, b);
  };
  try {
    group.push(Buffer.from('['));
    groupBytes = 1;
    for (const f of files) {
      const parts: Buffer[] = [];
      for await (const c of gunzipChunks(f.bytes)) parts.push(c);
      const elements = JSON.parse(Buffer.concat(parts).toString('utf8')) as string[];
      for (const el of elements) {
        const inflated = inflateSync(Buffer.from(JSON.parse(el) as string, 'latin1'));
        if (events++ > 0) {
          group.push(comma);
          groupBytes += 1;
        }
        group.push(inflated);
        groupBytes += inflated.length;
        if (groupBytes >= WRITE_GROUP) await flush();
      }
    }
    group.push(Buffer.from(']'));
    groupBytes += 1;
    await flush();
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { ms: performance.now() - t0, written, path: outPath, events };
}

/** SHA-256 of a file (checks, outside the timed part). */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function cleanup(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}

/** Parts of the subject measured alone, to show where its time goes (nothing is written to disk). */
export type Stage = 'gunzip' | 'decode' | 'decode-batches' | 'decode+checks' | 'decode+checks+encode';

export const STAGE_LABELS: Readonly<Record<Stage, string>> = {
  gunzip: 'gunzip only (node zlib, 1 MiB chunks)',
  decode: 'decodeEventBytes (gunzip + scan + validate, a Buffer per event)',
  'decode-batches': 'decodeEventBatches (gunzip + scan + validate, runs)',
  'decode+checks': '+ ReplayChecks (timestamp peek per event, in place)',
  'decode+checks+encode': '+ sink framing and SHA-256 (no disk)',
};

export async function runStage(files: readonly LoadedFile[], stage: Stage): Promise<number> {
  const t0 = performance.now();
  if (stage === 'gunzip') {
    for (const f of files) for await (const _ of gunzipChunks(f.bytes)) void _;
    return performance.now() - t0;
  }
  if (stage === 'decode') {
    for (const f of files) for await (const _ of decodeEventBytes(bodyChunks(f.bytes), { file: f.key })) void _;
    return performance.now() - t0;
  }
  const checks = stage === 'decode-batches' ? undefined : new ReplayChecks();
  const encoder =
    stage === 'decode+checks+encode'
      ? // A target that takes `writev`, like the local sink's file: the runs are hashed as slices, never joined.
        new ReplayEncoder(
          { format: 'json', gzip: false },
          { write: () => Promise.resolve(), writev: () => Promise.resolve() },
        )
      : undefined;
  for (const f of files) {
    for await (const batch of decodeEventBatches(bodyChunks(f.bytes), { file: f.key })) {
      checks?.observeBatch(batch);
      if (encoder !== undefined) {
        if (batch.runs !== undefined) await encoder.writeRuns(batch.runs);
        else await encoder.write(batchEvents(batch));
      }
    }
  }
  await encoder?.finish();
  return performance.now() - t0;
}
