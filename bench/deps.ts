/**
 * The measured reasons behind the decoding choices, on a slice of the same replay (its first files):
 *  - version 2 element inflate: node's `zlib.inflateSync` against `pako` 3's `inflate` (same payloads);
 *  - version 3 event splitting: the project's byte scanner (`decodeEventBytes`) against `stream-json`'s
 *    `streamArray` (parse each element into an object, `JSON.stringify` it back to get its bytes);
 *  - the WebAssembly fast paths against the TypeScript code they stand in for (`fastPath: false`), on the version 3
 *    files (the scanner) and on the version 2 files (string unescaping + inflate + checks: node's zlib per event).
 * Inputs are prepared untimed; runs alternate; medians.
 */

import { Readable } from 'node:stream';
import { createGunzip, gunzipSync, inflateSync } from 'node:zlib';
import { inflate as pakoInflate } from 'pako';
import streamArray from 'stream-json/streamers/stream-array.js';
import { decodeEventBatches, decodeEventBytes } from '../decoders/index.js';
import { loadFiles } from './file-throughput.js';
import type { GeneratedReplay } from './generate.js';
import { mbPerSec, median } from './stats.js';

export interface Comparison {
  what: string;
  /** Output bytes per run (inflated payloads, or event JSON). */
  bytes: number;
  ours: { name: string; ms: number[]; MBs: number };
  theirs: { name: string; ms: number[]; MBs: number };
  /** ours ÷ theirs (throughput). */
  speedup: number;
}

function compare(
  what: string,
  bytes: number,
  oursName: string,
  oursMs: number[],
  theirsName: string,
  theirsMs: number[],
): Comparison {
  const ours = { name: oursName, ms: oursMs, MBs: mbPerSec(bytes, median(oursMs)) };
  const theirs = { name: theirsName, ms: theirsMs, MBs: mbPerSec(bytes, median(theirsMs)) };
  return { what, bytes, ours, theirs, speedup: ours.MBs / theirs.MBs };
}

async function alternate(
  runs: number,
  a: () => Promise<number> | number,
  b: () => Promise<number> | number,
): Promise<[number[], number[]]> {
  await a();
  await b();
  const am: number[] = [];
  const bm: number[] = [];
  for (let i = 0; i < runs; i++) {
    const first = i % 2 === 0;
    if (first) am.push(await a());
    bm.push(await b());
    if (!first) am.push(await a());
  }
  return [am, bm];
}

export async function compareInflate(
  samplesDir: string,
  replay: GeneratedReplay,
  files: number,
  runs: number,
): Promise<Comparison> {
  const loaded = await loadFiles(samplesDir, replay.files[2].slice(0, files));
  const payloads: Buffer[] = [];
  for (const f of loaded) {
    for (const el of JSON.parse(gunzipSync(f.bytes).toString('utf8')) as string[])
      payloads.push(Buffer.from(JSON.parse(el) as string, 'latin1'));
  }
  let bytes = 0;
  for (const p of payloads) bytes += inflateSync(p).length;
  const zlibRun = (): number => {
    const t0 = performance.now();
    for (const p of payloads) inflateSync(p);
    return performance.now() - t0;
  };
  const pakoRun = (): number => {
    const t0 = performance.now();
    for (const p of payloads) pakoInflate(p);
    return performance.now() - t0;
  };
  const [ours, theirs] = await alternate(runs, zlibRun, pakoRun);
  return compare(
    `v2 packed payloads (${payloads.length} events), inflate only`,
    bytes,
    'node:zlib inflateSync',
    ours,
    'pako 3 inflate',
    theirs,
  );
}

async function* bodyChunks(buf: Buffer, size = 64 * 1024): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

export async function compareSplitter(
  samplesDir: string,
  replay: GeneratedReplay,
  files: number,
  runs: number,
): Promise<Comparison> {
  const loaded = await loadFiles(samplesDir, replay.files[3].slice(0, files));
  let bytes = 0;
  for (const f of loaded) bytes += gunzipSync(f.bytes).length;
  const oursRun = async (): Promise<number> => {
    const t0 = performance.now();
    for (const f of loaded) for await (const batch of decodeEventBytes(bodyChunks(f.bytes))) void batch;
    return performance.now() - t0;
  };
  const theirsRun = async (): Promise<number> => {
    const t0 = performance.now();
    for (const f of loaded) {
      const gunzip = createGunzip({ chunkSize: 1 << 20 });
      const items = Readable.from(bodyChunks(f.bytes)).pipe(gunzip).pipe(streamArray.withParserAsStream());
      for await (const item of items) Buffer.from(JSON.stringify((item as { value: unknown }).value));
    }
    return performance.now() - t0;
  };
  const [ours, theirs] = await alternate(runs, oursRun, theirsRun);
  return compare(
    `v3 files (${files}), gunzip + split into event bytes`,
    bytes,
    'decodeEventBytes (byte scanner)',
    ours,
    'stream-json streamArray + JSON.stringify',
    theirs,
  );
}

/**
 * `decodeEventBatches` with its WebAssembly fast paths against the TypeScript code alone (`fastPath: false`), on the
 * same files inflated beforehand (untimed), so that only the decoding differs: the scanner for version 3, the whole
 * element decoding for version 2.
 */
export async function compareFastPath(
  samplesDir: string,
  replay: GeneratedReplay,
  version: 2 | 3,
  files: number,
  runs: number,
): Promise<Comparison> {
  const loaded = await loadFiles(samplesDir, replay.files[version].slice(0, files));
  const inflated = loaded.map((f) => gunzipSync(f.bytes));
  const decode = (fastPath: boolean) => async (): Promise<number> => {
    const t0 = performance.now();
    for (const bytes of inflated)
      for await (const batch of decodeEventBatches(bodyChunks(bytes, 1 << 20), { fastPath })) void batch;
    return performance.now() - t0;
  };
  let bytes = 0;
  for (const b of inflated)
    for await (const batch of decodeEventBytes(bodyChunks(b, 1 << 20))) for (const e of batch) bytes += e.length + 1;
  const [ours, theirs] = await alternate(runs, decode(true), decode(false));
  const what = `v${version} files (${files}, inflated beforehand), decodeEventBatches`;
  const theirsName = version === 3 ? 'TypeScript scanner loop' : 'TypeScript path (node:zlib inflateSync per event)';
  return compare(what, bytes, 'WebAssembly fast paths', ours, theirsName, theirs);
}
