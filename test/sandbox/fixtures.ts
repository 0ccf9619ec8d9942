import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { v2Text } from '../decoders/fixtures.js';

export interface FixtureSample {
  name: string;
  /** v3 file count (v2 gets one file fewer, at least 1: same events split at other boundaries). */
  files: number;
  startMs: number;
  platformId: number;
  deviceId?: string;
  /** Letters added to each event's text (large replays from few events). */
  padBytes?: number;
}

export interface FixtureDir {
  dir: string;
  /** name → the events written (the expected result). */
  events: Map<string, unknown[]>;
  /** name → replay id. */
  ids: Map<string, string>;
  cleanup(): void;
}

function split<T>(items: T[], parts: number): T[][] {
  const out: T[][] = [];
  const size = Math.ceil(items.length / parts);
  for (let i = 0; i < parts; i++) out.push(items.slice(i * size, (i + 1) * size));
  return out.filter((p) => p.length > 0);
}

/** Writes a samples folder in the layout of docs/ARCHITECTURE.md (index.json, expected/, files/<name>/v2|v3/). */
export function makeSamplesDir(samples: FixtureSample[]): FixtureDir {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-samples-'));
  const events = new Map<string, unknown[]>();
  const ids = new Map<string, string>();
  const index = samples.map((s, n) => {
    const deviceId = s.deviceId ?? `0000000${n}-aaaa-4bbb-8ccc-${String(n).padStart(12, '0')}`;
    const sessionId = String(s.startMs);
    const evs = Array.from({ length: s.files * 3 }, (_, i) => ({
      type: i === 0 ? 4 : 3,
      timestamp: s.startMs + i * 1000,
      data: { sample: s.name, i, text: 'é字🙂' + 'x'.repeat(s.padBytes ?? 0) },
    }));
    events.set(s.name, evs);
    ids.set(s.name, `${deviceId}/${sessionId}`);
    mkdirSync(join(dir, 'expected'), { recursive: true });
    writeFileSync(join(dir, 'expected', `${s.name}.json`), JSON.stringify(evs));
    const files: Record<string, string[]> = { '2': [], '3': [] };
    for (const v of ['2', '3'] as const) {
      mkdirSync(join(dir, 'files', s.name, `v${v}`), { recursive: true });
      const chunks = split(evs, v === '3' ? s.files : Math.max(1, s.files - 1));
      chunks.forEach((chunk, k) => {
        const key = `${(chunk[0] as { timestamp: number }).timestamp}-${String(k).padStart(4, '0')}.json.gz`;
        const rel = `files/${s.name}/v${v}/${key}`;
        const payload = v === '3' ? chunk : chunk.map((e) => `packed:${JSON.stringify(e)}`);
        writeFileSync(join(dir, rel), gzipSync(JSON.stringify(payload)));
        files[v]!.push(rel);
      });
      files[v]!.reverse(); // index order must not matter: the sandbox sorts by key
    }
    return {
      name: s.name,
      replay_id: `${deviceId}/${sessionId}`,
      device_id: deviceId,
      session_id: sessionId,
      platform_id: s.platformId,
      start_time: new Date(s.startMs).toISOString(),
      end_time: new Date(s.startMs + evs.length * 1000).toISOString(),
      retention_in_days: 90,
      event_count: evs.length,
      expected: `expected/${s.name}.json`,
      files,
    };
  });
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ replays: index }, null, 2));
  return { dir, events, ids, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Absolute paths of a sample's files of `version`, in key order. */
export function sampleFilePaths(fx: FixtureDir, name: string, version: 2 | 3): string[] {
  const index = JSON.parse(readFileSync(join(fx.dir, 'index.json'), 'utf8')) as {
    replays: Array<{ name: string; files: Record<string, string[]> }>;
  };
  return [...index.replays.find((r) => r.name === name)!.files[String(version)]!].sort().map((f) => join(fx.dir, f));
}

/**
 * Rewrites every version 2 file of `fx` with real packed events (`JSON.stringify(pack(event))`, rrweb's packer) in
 * place of the placeholders, for tests that decode version 2.
 */
export function packVersion2Files(fx: FixtureDir): void {
  for (const name of fx.events.keys()) {
    for (const path of sampleFilePaths(fx, name, 2)) {
      const placeholders = JSON.parse(gunzipSync(readFileSync(path)).toString()) as string[];
      const events = placeholders.map((p) => JSON.parse(p.slice('packed:'.length)) as unknown);
      writeFileSync(path, gzipSync(v2Text(events, () => 'json-packed')));
    }
  }
}

export const STANDARD_SAMPLES: FixtureSample[] = [
  { name: 'alpha', files: 5, startMs: Date.UTC(2026, 10, 20, 9, 0, 0), platformId: 1000 },
  { name: 'beta', files: 3, startMs: Date.UTC(2026, 10, 20, 10, 0, 0), platformId: 2000 },
  { name: 'gamma', files: 1, startMs: Date.UTC(2026, 10, 21, 8, 30, 0), platformId: 1000 },
];

export function basic(apiKey: string, secretKey: string): string {
  return 'Basic ' + Buffer.from(`${apiKey}:${secretKey}`).toString('base64');
}

export interface JsonResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** GET with undici (no automatic decompression); JSON body parsed when it is JSON. */
export async function getJson(url: string, auth?: string): Promise<JsonResponse> {
  const res = await request(url, { headers: auth === undefined ? {} : { authorization: auth } });
  const text = await res.body.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.statusCode, headers: res.headers, body };
}

export async function getBytes(
  url: string,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}> {
  const res = await request(url, { headers });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, bytes };
}

/** Builds an API URL with repeated parameters allowed. */
export function apiUrl(base: string, path: string, params: Array<[string, string]> = []): string {
  const q = new URLSearchParams(params).toString();
  return `${base}${path}${q ? '?' + q : ''}`;
}
