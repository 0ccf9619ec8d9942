import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { SampleReplay } from './catalogue.js';
import { deviceIdFor, platformIdFor, seedFor } from './ids.js';
import { chunkKey, splitEvents, type Timed } from './split.js';
import { v2Element } from './v2-elements.js';

export interface RecordedReplay {
  name: string;
  /** The events exactly as rrweb emitted them (after a JSON round trip). */
  events: readonly Timed[];
  retentionInDays: 30 | 90;
}

/** The expected file: a JSON array, one event a line (valid JSON, readable diffs). */
function expectedText(events: readonly unknown[]): string {
  return events.length === 0 ? '[]\n' : '[\n' + events.map((e) => JSON.stringify(e)).join(',\n') + '\n]\n';
}

async function put(root: string, rel: string, body: string | Buffer): Promise<void> {
  const file = join(root, rel);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, body);
}

function gzipJson(value: unknown): Buffer {
  return gzipSync(Buffer.from(JSON.stringify(value), 'utf8'), { level: 9 });
}

/**
 * Writes one replay under `samplesRoot` (expected events, version 3 and version 2 files) and returns its
 * catalogue entry. Version 3 and version 2 are split at different boundaries; the version 2 elements use
 * the shape mix of `v2-elements.ts`, chosen by each event's index in the replay.
 */
export async function writeReplay(samplesRoot: string, rec: RecordedReplay): Promise<SampleReplay> {
  const { name, events } = rec;
  const first = events[0];
  const last = events[events.length - 1];
  if (first === undefined || last === undefined) throw new Error(`sample ${name}: no events recorded`);
  const seed = seedFor(name);
  const v3Parts = Math.min(events.length, 3 + (seed % 4));
  const v2Parts = Math.min(events.length, 3 + ((seed >>> 4) % 4));

  const expected = `expected/${name}.json`;
  await put(samplesRoot, expected, expectedText(events));

  const v3: string[] = [];
  const v3Chunks = splitEvents(events, v3Parts, 0);
  for (const [seq, chunk] of v3Chunks.entries()) {
    const rel = `files/${name}/v3/${chunkKey(chunk[0]!.timestamp, seq)}`;
    await put(samplesRoot, rel, gzipJson(chunk));
    v3.push(rel);
  }

  const v2: string[] = [];
  let index = 0;
  const v2Chunks = splitEvents(events, v2Parts, 0.4);
  for (const [seq, chunk] of v2Chunks.entries()) {
    const elements = chunk.map((event) => v2Element(event, index++));
    const rel = `files/${name}/v2/${chunkKey(chunk[0]!.timestamp, seq)}`;
    await put(samplesRoot, rel, gzipJson(elements));
    v2.push(rel);
  }

  const deviceId = deviceIdFor(name);
  const sessionId = String(first.timestamp);
  return {
    name,
    replay_id: `${deviceId}/${sessionId}`,
    device_id: deviceId,
    session_id: sessionId,
    platform_id: platformIdFor(name),
    start_time: new Date(first.timestamp).toISOString(),
    end_time: new Date(last.timestamp).toISOString(),
    retention_in_days: rec.retentionInDays,
    event_count: events.length,
    expected,
    files: { '3': v3, '2': v2 },
  };
}
