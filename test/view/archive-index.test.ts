/**
 * The `view` index over a manifest of 200,000 replays (issue #29, item 8): filters by platform user id (as `archive
 * --user` matches it), device, session, first page URL and "has errors"; sorts by start, duration, events and errors;
 * URL and error columns from the manifest alone (computed at export); a page stays small.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../sinks/index.js';
import type { ManifestEntry } from '../../sinks/sink.js';
import { line } from '../sinks/helpers/entries.js';
import { ArchiveIndex, type IndexRow } from '../../src/view/archive-index.js';
import { renderIndex } from '../../src/view/index-page.js';
import { parseIndexQuery } from '../../src/view/server.js';
import { tempDir } from '../pipeline/helpers.js';

const N = 200_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');
let work: { dir: string; cleanup: () => Promise<void> };
let index: ArchiveIndex;

/** Replay i: device d<i % 1000>, user i % 5000, i % 300 events, i % 97 s long, errors on every 7th, page /p/<i % 100>. */
function entry(i: number): ManifestEntry {
  const start = T0 + i * 1000;
  return line({
    replay_id: `d${i % 1000}/${1795308171251 + i}`,
    status: 'ok' as const,
    key: `d${i % 1000}/${i}.json`,
    format: 'json',
    gzip: false,
    recorded_at: '2026-11-27T00:00:00.000Z',
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + (i % 97) * 1000).toISOString(),
    event_count: i % 300,
    platform_id: i % 5000,
    checks: {
      has_meta: true,
      has_full_snapshot: true,
      max_gap_ms: 10,
      timestamps_backwards: false,
      first_url: `https://shop.example/p/${i % 100}?from=${i}`,
      ...(i % 7 === 0 ? { console_errors: (i % 3) + 1 } : {}),
    },
  });
}

beforeAll(async () => {
  work = await tempDir('replay-export-view-index-');
  const lines: string[] = [];
  for (let i = 0; i < N; i++) lines.push(JSON.stringify(entry(i)));
  await writeFile(join(work.dir, 'manifest.ndjson'), lines.join('\n') + '\n');
  const archive = await openArchive(work.dir, { create: false });
  index = await ArchiveIndex.load(archive);
  await archive.close();
}, 120_000);

afterAll(async () => {
  await work?.cleanup();
});

const query = (q: string) => parseIndexQuery(new URLSearchParams(q));
const ids = (rows: IndexRow[]): string[] => rows.map((r) => r.id);

describe('the view index at 200,000 replays', () => {
  it('?user= is the platform user id, exactly (as archive --user); ?device= and ?session= match the id', () => {
    const byUser = index.page(query('user=42').filter, 1, 1000);
    expect(byUser.total).toBe(N / 5000);
    expect(byUser.rows.every((r) => r.platformId === '42')).toBe(true);
    // Not the device id, and not a substring: user 4 is not user 42.
    expect(index.page(query('user=d42').filter, 1, 10).total).toBe(0);
    expect(index.page(query('user=4').filter, 1, 1000).rows.every((r) => r.platformId === '4')).toBe(true);
    const byDevice = index.page(query('device=d999').filter, 1, 1000);
    expect(byDevice.total).toBe(N / 1000);
    expect(byDevice.rows.every((r) => r.user === 'd999')).toBe(true);
    const one = entry(123_456).replay_id;
    expect(ids(index.page(query(`session=${one.split('/')[1]}`).filter, 1, 10).rows)).toEqual([one]);
  });

  it('?url= matches the first page; ?errors=1 keeps replays with console errors', () => {
    const byUrl = index.page(query('url=SHOP.example/p/7?').filter, 1, 1000);
    expect(byUrl.total).toBe(N / 100);
    expect(byUrl.rows.every((r) => r.url.startsWith('https://shop.example/p/7?'))).toBe(true);
    const withErrors = index.page(query('errors=1').filter, 1, 1000);
    expect(withErrors.total).toBe(Math.ceil(N / 7));
    expect(withErrors.rows.every((r) => r.errors > 0)).toBe(true);
    expect(() => query('errors=yes')).toThrow(/errors/);
  });

  it('sorts by start (earliest first), duration, events and errors (most first), filters kept', () => {
    const first = (q: string): IndexRow[] => index.page(query(q).filter, 1, 50).rows;
    expect(first('').map((r) => r.start)).toEqual([...first('').map((r) => r.start)].sort((a, b) => a - b));
    expect(first('sort=duration').every((r) => r.durationMs === 96_000)).toBe(true);
    expect(first('sort=events').every((r) => r.events === 299)).toBe(true);
    expect(first('sort=errors').every((r) => r.errors === 3)).toBe(true);
    const filtered = index.page(query('sort=events&device=d7').filter, 1, 1000).rows;
    expect(filtered.every((r) => r.user.includes('d7'))).toBe(true);
    const events = filtered.map((r) => r.events!);
    expect(events).toEqual([...events].sort((a, b) => b - a));
    expect(() => query('sort=bytes')).toThrow(/sort/);
  });

  it('a page holds one page of rows, with the URL and error columns, whatever the archive size', () => {
    const q = query('sort=errors');
    const page = index.page(q.filter, 3, 100);
    const html = renderIndex('archive', { params: new URLSearchParams('sort=errors'), filter: q.filter }, page);
    expect(page.rows).toHaveLength(100);
    expect(Buffer.byteLength(html)).toBeLessThan(100 * 1024);
    expect(html).toContain('https://shop.example/p/');
    expect(html).toContain(`page 3 of ${N / 100} (${N} replays)`);
    expect(html).toContain('<th aria-sort="descending">errors ↓</th>');
    expect(html).toContain('<th><a href="/?sort=events">events</a></th>');
  });
});
