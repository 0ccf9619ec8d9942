/**
 * Large `--format html` pages for the player part of the bench: the canvas-drawing sample's DOM and input events,
 * with its canvas frames repeated every 40 ms (25 fps, as rrweb's sampled canvas recording sends them) until the
 * page's events reach the size asked. Written with the real local sink.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLocalSink } from '../sinks/index.js';
import { packageRoot } from '../src/util/package-root.js';

export type Ev = { type: number; timestamp: number; data: { source?: number } & Record<string, unknown> };

export interface PlayerPage {
  file: string;
  eventBytes: number;
  events: number;
  durationMs: number;
}

/** The events of a page of about `targetBytes` (see the module's comment), in time order. */
export async function playerPageEvents(targetBytes: number): Promise<Ev[]> {
  const samples = join(packageRoot(), 'samples');
  const index = JSON.parse(await readFile(join(samples, 'index.json'), 'utf8')) as {
    replays: { name: string; expected: string }[];
  };
  const entry = index.replays.find((r) => r.name === 'canvas-drawing');
  if (!entry) throw new Error('bench: the canvas-drawing sample is missing');
  const base = JSON.parse(await readFile(join(samples, entry.expected), 'utf8')) as Ev[];
  const frames = base.filter(isCanvasFrame);
  const events = base.filter((e) => !isCanvasFrame(e));
  let bytes = events.reduce((n, e) => n + JSON.stringify(e).length + 1, 0);
  let t = base[0]!.timestamp;
  for (let i = 0; bytes < targetBytes; i++) {
    const frame = structuredClone(frames[i % frames.length]!);
    t += 40;
    frame.timestamp = t;
    events.push(frame);
    bytes += JSON.stringify(frame).length + 1;
  }
  return events.sort((a, b) => a.timestamp - b.timestamp);
}

export function isCanvasFrame(e: Ev): boolean {
  return e.type === 3 && e.data.source === 9;
}

export async function writePlayerPage(dir: string, replayId: string, targetBytes: number): Promise<PlayerPage> {
  const events = await playerPageEvents(targetBytes);
  const sink = createLocalSink(dir);
  const writer = await sink.open(replayId, { format: 'html', gzip: false });
  let bytes = 0;
  for (let i = 0; i < events.length; i += 1000) {
    const batch = events.slice(i, i + 1000).map((e) => Buffer.from(JSON.stringify(e)));
    for (const b of batch) bytes += b.length + 1;
    await writer.write(batch);
  }
  const result = await writer.commit();
  await sink.close();
  return {
    file: join(dir, result.key),
    eventBytes: bytes,
    events: events.length,
    durationMs: events.at(-1)!.timestamp - events[0]!.timestamp,
  };
}
