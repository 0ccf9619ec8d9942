/**
 * A samples folder (the sandbox's layout) of replays whose events a test writes itself: one file per replay in each
 * version, or a corrupt one (bytes no decoder takes) for a replay that can never succeed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { v2Text } from '../decoders/fixtures.js';

export interface RecordedReplay {
  name: string;
  startMs: number;
  /** rrweb events (their timestamps are taken as they are). */
  events: readonly Record<string, unknown>[];
  /** Its files are gzip of bytes that are no JSON. */
  corrupt?: boolean;
}

export interface RecordedSamples {
  dir: string;
  /** name → replay id. */
  ids: Map<string, string>;
  /** Makes a replay's files decode (`corrupt: false`) or not, between runs. */
  setCorrupt(name: string, corrupt: boolean): void;
  cleanup(): void;
}

const CORRUPT = gzipSync(Buffer.from('[{"type":4,"data":{}, this is not JSON'));

export function recordedSamples(replays: readonly RecordedReplay[]): RecordedSamples {
  const dir = mkdtempSync(join(tmpdir(), 'recorded-samples-'));
  const ids = new Map<string, string>();
  const paths = new Map<string, { v2: string; v3: string; events: readonly Record<string, unknown>[] }>();
  const write = (name: string, corrupt: boolean): void => {
    const p = paths.get(name)!;
    writeFileSync(join(dir, p.v3), corrupt ? CORRUPT : gzipSync(JSON.stringify(p.events)));
    writeFileSync(join(dir, p.v2), corrupt ? CORRUPT : gzipSync(v2Text([...p.events], () => 'json-packed')));
  };
  const index = replays.map((r, n) => {
    const deviceId = `0000000${n}-dddd-4bbb-8ccc-${String(n).padStart(12, '0')}`;
    const replayId = `${deviceId}/${r.startMs}`;
    ids.set(r.name, replayId);
    for (const v of ['v2', 'v3']) mkdirSync(join(dir, 'files', r.name, v), { recursive: true });
    mkdirSync(join(dir, 'expected'), { recursive: true });
    writeFileSync(join(dir, 'expected', `${r.name}.json`), JSON.stringify(r.events));
    const file = `${r.startMs}-0000.json.gz`;
    paths.set(r.name, { v2: `files/${r.name}/v2/${file}`, v3: `files/${r.name}/v3/${file}`, events: r.events });
    write(r.name, r.corrupt === true);
    return {
      name: r.name,
      replay_id: replayId,
      device_id: deviceId,
      session_id: String(r.startMs),
      platform_id: 4200 + n,
      start_time: new Date(r.startMs).toISOString(),
      end_time: new Date(r.startMs + 60_000).toISOString(),
      retention_in_days: 90,
      event_count: r.events.length,
      expected: `expected/${r.name}.json`,
      files: { '2': [paths.get(r.name)!.v2], '3': [paths.get(r.name)!.v3] },
    };
  });
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ replays: index }, null, 2));
  return { dir, ids, setCorrupt: write, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A Meta event at `href` and a full snapshot holding `<img src>` of each of `srcs`. */
export function pageWithImages(href: string, srcs: readonly string[], startMs: number): Record<string, unknown>[] {
  let id = 10;
  const imgs = srcs.map((src) => ({ type: 2, tagName: 'img', attributes: { src }, childNodes: [], id: id++ }));
  const body = { type: 2, tagName: 'body', attributes: {}, childNodes: imgs, id: 3 };
  const html = { type: 2, tagName: 'html', attributes: {}, childNodes: [body], id: 2 };
  return [
    { type: 4, data: { href, width: 800, height: 600 }, timestamp: startMs },
    {
      type: 2,
      data: { node: { type: 0, childNodes: [html], id: 1 }, initialOffset: { top: 0, left: 0 } },
      timestamp: startMs + 1,
    },
  ];
}
