/** The synthetic archive of the bench's resume part: ids and manifest lines like a real archive's. */

import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { replayKey } from '../sinks/index.js';

/** The i-th replay id: a device UUID-shaped segment (hex of a mix of i, no allocation but the string) and a session id. */
export function syntheticReplayId(i: number): string {
  const hex = (x: number): string => (x >>> 0).toString(16).padStart(8, '0');
  const a = mix(i, 1);
  const b = mix(i, 2);
  const c = mix(i, 3);
  const d = mix(i, 4);
  const h = hex(a) + hex(b) + hex(c) + hex(d);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}/${1795308171251 + i}`;
}

function mix(i: number, seed: number): number {
  let x = Math.imul(i ^ Math.imul(seed, 0x9e3779b9), 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}

/**
 * Writes `<dir>/manifest.ndjson` as `replays` nightly runs would leave it: every replay `ok` (json, gzip) with its
 * checks, sha256 and three file keys, and every tenth recorded `skipped` (settling) on an earlier night first.
 * Returns the file's size in bytes.
 */
export async function writeSyntheticManifest(dir: string, replays: number): Promise<number> {
  await mkdir(dir, { recursive: true });
  const out = createWriteStream(join(dir, 'manifest.ndjson'));
  let bytes = 0;
  const put = async (line: string): Promise<void> => {
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, 'drain');
  };
  for (let i = 0; i < replays; i++) {
    const id = syntheticReplayId(i);
    const start = syntheticStart(i);
    if (i % 10 === 0)
      await put(
        JSON.stringify({
          replay_id: id,
          status: 'skipped',
          reason: 'settling',
          recorded_at: start,
          start_time: start,
        }) + '\n',
      );
    await put(JSON.stringify(okEntry(i, id, start)) + '\n');
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}

/** The `ok` entry of the i-th synthetic replay (json, gzip), recorded at `start`. */
export function okEntry(i: number, id: string, start: string): Record<string, unknown> {
  const session = id.split('/')[1]!;
  return {
    replay_id: id,
    status: 'ok',
    key: replayKey(id, { format: 'json', gzip: true }),
    event_count: 1200 + (i % 500),
    bytes: 480_000 + i,
    sha256: createHash('sha256').update(id).digest('hex'),
    start_time: start,
    end_time: start,
    file_versions: [3, 3, 3],
    file_keys: [0, 1, 2].map((n) => `${id.split('/')[0]}/${session}/v3/${session}-000${n}.json.gz`),
    checks: { has_meta: true, has_full_snapshot: true, max_gap_ms: 4200, timestamps_backwards: false },
    format: 'json',
    gzip: true,
    recorded_at: start,
  };
}

/** The i-th synthetic replay's start time. */
export function syntheticStart(i: number): string {
  return new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString();
}
