import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { SampleCatalogue } from '../../samples/lib/catalogue.js';

// The recorded samples are checked for consistency only; re-recording needs Chromium
// (`npm run build && npm run samples`). The real decoders are tested against these files elsewhere.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'samples');
const catalogue = JSON.parse(readFileSync(join(root, 'index.json'), 'utf8')) as SampleCatalogue;
const KEY = /^(\d{13})-(\d{4})\.json\.gz$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Ev {
  type: number;
  timestamp: number;
  data?: { source?: number };
}

function readJson(rel: string): unknown {
  return JSON.parse(readFileSync(join(root, rel), 'utf8'));
}

function gunzipArray(rel: string): unknown[] {
  const value: unknown = JSON.parse(gunzipSync(readFileSync(join(root, rel))).toString('utf8'));
  expect(Array.isArray(value), rel).toBe(true);
  return value as unknown[];
}

/** Independent decoding of one version 2 element (the four shapes), with node:zlib only. */
function unpackElement(el: unknown): unknown {
  if (typeof el !== 'string') return el;
  let s = el;
  if (s.startsWith('"')) s = JSON.parse(s) as string;
  if (s.startsWith('{')) return JSON.parse(s);
  const obj = JSON.parse(inflateSync(Buffer.from(s, 'latin1')).toString('utf8')) as Record<string, unknown>;
  expect(obj.v).toBe('v1');
  delete obj.v;
  return obj;
}

describe('samples/index.json', () => {
  it('lists several replays with distinct names, ids and platform ids', () => {
    expect(catalogue.replays.length).toBeGreaterThanOrEqual(5);
    const names = catalogue.replays.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(catalogue.replays.map((r) => r.replay_id)).size).toBe(names.length);
    expect(new Set(catalogue.replays.map((r) => r.platform_id)).size).toBe(names.length);
  });

  for (const r of catalogue.replays) {
    describe(r.name, () => {
      const expected = readJson(r.expected) as Ev[];

      it('has well-formed ids, times and retention', () => {
        expect(r.device_id).toMatch(UUID);
        expect(r.session_id).toMatch(/^\d{13}$/);
        expect(r.replay_id).toBe(`${r.device_id}/${r.session_id}`);
        expect(Number.isSafeInteger(r.platform_id) && r.platform_id > 0).toBe(true);
        expect([30, 90]).toContain(r.retention_in_days);
        expect(r.start_time).toBe(new Date(expected[0]!.timestamp).toISOString());
        expect(r.end_time).toBe(new Date(expected[expected.length - 1]!.timestamp).toISOString());
        expect(Number(r.session_id)).toBe(expected[0]!.timestamp);
      });

      it('expected file matches event_count and holds Meta, FullSnapshot and incremental events', () => {
        expect(Array.isArray(expected)).toBe(true);
        expect(expected.length).toBe(r.event_count);
        const types = new Set(expected.map((e) => e.type));
        expect(types.has(4)).toBe(true);
        expect(types.has(2)).toBe(true);
        expect(types.has(3)).toBe(true);
        const fullAt = expected.findIndex((e) => e.type === 2);
        expect(expected.findIndex((e) => e.type === 4)).toBeLessThan(fullAt);
        for (const e of expected) expect(Number.isSafeInteger(e.timestamp)).toBe(true);
      });

      for (const version of ['3', '2'] as const) {
        it(`version ${version} files exist, sorted, with keys in time order`, () => {
          const files = r.files[version];
          expect(files.length).toBeGreaterThanOrEqual(3);
          expect(files.length).toBeLessThanOrEqual(6);
          expect([...files].sort()).toEqual(files);
          files.forEach((rel, seq) => {
            expect(rel.startsWith(`files/${r.name}/v${version}/`)).toBe(true);
            expect(existsSync(join(root, rel)), rel).toBe(true);
            const m = KEY.exec(rel.slice(rel.lastIndexOf('/') + 1));
            expect(m, rel).not.toBeNull();
            expect(Number(m![2])).toBe(seq);
          });
        });
      }

      it('version 3 files gunzipped and concatenated equal the expected events', () => {
        const events = r.files['3'].flatMap((rel) => {
          const chunk = gunzipArray(rel) as Ev[];
          expect(chunk.length).toBeGreaterThan(0);
          expect(rel).toContain(`/${String(chunk[0]!.timestamp)}-`);
          return chunk;
        });
        expect(events).toEqual(expected);
      });

      it('version 2 files hold the same events, split elsewhere, in a mix of element shapes', () => {
        const elements = r.files['2'].flatMap((rel) => gunzipArray(rel));
        const v2Sizes = r.files['2'].map((rel) => gunzipArray(rel).length);
        const v3Sizes = r.files['3'].map((rel) => gunzipArray(rel).length);
        expect(v2Sizes).not.toEqual(v3Sizes);
        expect(elements.map(unpackElement)).toEqual(expected);
        const shapes = new Set(
          elements.map((el) =>
            typeof el !== 'string' ? 'object' : el[0] === '"' ? 'json-packed' : el[0] === '{' ? 'event-json' : 'packed',
          ),
        );
        expect(shapes.has('json-packed')).toBe(true);
      });
    });
  }

  it('covers all four version 2 element shapes and several incremental sources across the replays', () => {
    const shapes = new Set<string>();
    const sources = new Set<number>();
    for (const r of catalogue.replays) {
      for (const rel of r.files['2']) {
        for (const el of gunzipArray(rel)) {
          shapes.add(
            typeof el !== 'string' ? 'object' : el[0] === '"' ? 'json-packed' : el[0] === '{' ? 'event-json' : 'packed',
          );
        }
      }
      for (const e of readJson(r.expected) as Ev[])
        if (e.type === 3 && e.data?.source !== undefined) sources.add(e.data.source);
    }
    expect([...shapes].sort()).toEqual(['event-json', 'json-packed', 'object', 'packed']);
    // Mutation, MouseMove, MouseInteraction, Scroll, ViewportResize, Input, StyleSheetRule, CanvasMutation.
    for (const s of [0, 1, 2, 3, 4, 5, 8, 9]) expect(sources.has(s), `source ${s}`).toBe(true);
  });
});
