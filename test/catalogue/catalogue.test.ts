/**
 * The catalogue over a manifest of 30,000 replays (issue #41): built from the manifest alone, reused while the
 * manifest's stamp holds, built again when it changes; the index's filters, search, both-way sorts and paging edges,
 * and the page rendered from it.
 */
import { appendFile, copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../sinks/index.js';
import type { ManifestEntry } from '../../sinks/sink.js';
import { line } from '../sinks/helpers/entries.js';
import {
  type Catalogue,
  type CatalogueRow,
  catalogueFile,
  COUNT_CAP,
  openCatalogue,
  SORTABLE,
} from '../../src/catalogue/index.js';
import { Catalogue as CatalogueClass, walkFrom } from '../../src/catalogue/catalogue.js';
import { recordBroadPrefixes } from '../../src/catalogue/prefixes.js';
import { openDatabase } from '../../src/catalogue/database.js';
import { orderOf, parseSort, whereOf } from '../../src/catalogue/query.js';
import { renderIndex } from '../../src/view/index-page.js';
import { parseIndexQuery } from '../../src/view/server.js';
import { tempDir } from '../pipeline/helpers.js';

const N = 30_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');
let work: { dir: string; cleanup: () => Promise<void> };
let cache: string;
let catalogue: Catalogue;
let builds = 0;

/**
 * Replay i: device d<i % 1000>, user i % 5000, i % 300 events, i % 97 s long; on every 7th console errors (and a
 * message), every 11th rage clicks, every 13th a dead click, every 17th failed requests; pages /p/<i % 100> then
 * /checkout on every 3rd.
 */
function entry(i: number): ManifestEntry {
  const start = T0 + i * 1000;
  const urls = [
    `https://${i % 10 === 9 ? 'mail' : 'shop'}.example/p/${i % 100}?from=${i}`,
    ...(i % 3 === 0 ? ['https://shop.example/checkout'] : []),
  ];
  return line({
    replay_id: `d${i % 1000}/${1795308171251 + i}`,
    status: 'ok' as const,
    key: `d${i % 1000}/${1795308171251 + i}.json`,
    format: 'json',
    gzip: false,
    recorded_at: '2026-11-27T00:00:00.000Z',
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + (i % 97) * 1000).toISOString(),
    event_count: i % 300,
    bytes: 1000 + i,
    platform_id: i % 5000,
    checks: {
      has_meta: true,
      has_full_snapshot: true,
      max_gap_ms: 10,
      timestamps_backwards: false,
      first_url: urls[0],
    },
    facts: {
      pages: urls.length,
      urls,
      clicks: i % 20,
      rage_clicks: i % 11 === 0 ? 1 : 0,
      dead_clicks: i % 13 === 0 ? 1 : 0,
      errors: i % 7 === 0 ? (i % 3) + 1 : 0,
      ...(i % 7 === 0 ? { first_error: `TypeError: basket${i % 50} is undefined`, first_error_ms: 2500 } : {}),
      ...(i % 17 === 0 ? { network_requests: 4, network_failed: 1 } : {}),
      duration_ms: (i % 97) * 1000,
      active_ms: (i % 41) * 1000,
      viewport: { width: 1280, height: 800 },
    },
  });
}

async function open(): Promise<Catalogue> {
  const archive = await openArchive(work.dir, { create: false });
  try {
    return await openCatalogue(archive, { dir: cache, onBuild: () => void builds++ });
  } finally {
    await archive.close();
  }
}

beforeAll(async () => {
  work = await tempDir('replay-export-catalogue-');
  cache = join(work.dir, 'cache');
  const lines: string[] = [];
  // An earlier `skipped` line for every 10th replay: the last line of each replay is its row.
  for (let i = 0; i < N; i++) {
    if (i % 10 === 0)
      lines.push(
        JSON.stringify({ replay_id: entry(i).replay_id, status: 'skipped', reason: 'settling', recorded_at: 'x' }),
      );
    lines.push(JSON.stringify(entry(i)));
  }
  // A user's tombstone is no replay.
  lines.push(
    JSON.stringify({
      replay_id: 'forgotten-user:7/',
      status: 'forgotten',
      scope: 'user',
      platform_id: 7,
      recorded_at: 'x',
    }),
  );
  await writeFile(join(work.dir, 'manifest.ndjson'), lines.join('\n') + '\n');
  catalogue = await open();
}, 300_000);

afterAll(async () => {
  catalogue?.close();
  await work?.cleanup();
});

/**
 * A copy of the catalogue's file whose broad prefixes are recorded again with `units` (none when undefined), open,
 * with the list of them.
 */
async function copyOfCatalogue(name: string, units: number | undefined): Promise<Catalogue & { broad(): string[] }> {
  const path = join(work.dir, `${name}.sqlite`);
  await copyFile(catalogue.path, path);
  const db = openDatabase(path);
  db.exec('DELETE FROM prefixes');
  if (units !== undefined) recordBroadPrefixes(db, catalogue.size, units);
  const recorded = db
    .prepare('SELECT prefix FROM prefixes')
    .all()
    .map((r) => String(r['prefix']));
  db.close();
  const sorted = recorded.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  return Object.assign(new CatalogueClass(path, openDatabase(path, { readonly: true })), { broad: () => sorted });
}

const query = (q: string) => parseIndexQuery(new URLSearchParams(q));
const page = (q: string, n = 1, size = 1000) => catalogue.page(query(q).query, n, size);
const ids = (rows: CatalogueRow[]): string[] => rows.map((r) => r.id);

describe('the catalogue of an archive', () => {
  it('holds one row per replay, from its last line, built once and reused while the manifest is unchanged', async () => {
    expect(builds).toBe(1);
    expect(catalogue.size).toBe(N);
    expect(catalogue.get(entry(10).replay_id)?.status).toBe('ok');
    expect(catalogue.get('forgotten-user:7/')).toBeUndefined();
    const again = await open();
    expect(builds).toBe(1);
    again.close();
  });

  it('is built again when the manifest changes, and holds the new line', async () => {
    const archive = await openArchive(work.dir, { create: false });
    const id = entry(5).replay_id;
    await archive.manifest.append(
      line({ replay_id: id, status: 'failed', recorded_at: 'y', error: { code: 'X', message: 'x' } }),
    );
    await archive.close();
    const rebuilt = await open();
    expect(builds).toBe(2);
    expect(rebuilt.get(id)?.status).toBe('failed');
    rebuilt.close();
    // A file that is no catalogue (hostile or broken) is built again too.
    await appendFile(join(work.dir, 'manifest.ndjson'), JSON.stringify(entry(5)) + '\n');
    await writeFile(catalogueFile(cache, work.dir), 'not a database');
    const fresh = await open();
    expect(builds).toBe(3);
    expect(fresh.get(id)?.status).toBe('ok');
    fresh.close();
  });
});

describe("the catalogue's query", () => {
  it('filters: user exactly, device and session, any page URL, errors, rage and dead clicks, failed requests', () => {
    const byUser = page('user=42');
    expect(byUser.total).toBe(N / 5000);
    expect(byUser.rows.every((r) => r.user === '42')).toBe(true);
    expect(page('user=d42').total).toBe(0);
    expect(page('device=d999').rows.every((r) => r.device === 'd999')).toBe(true);
    const one = entry(12_345).replay_id;
    expect(ids(page(`session=${one.split('/')[1]}`).rows)).toEqual([one]);
    // Not only the first page: /checkout is the second page of every third replay.
    const checkout = page('url=/CHECKOUT');
    expect(checkout.total).toBe(N / 3);
    expect(checkout.rows.every((r) => r.urls.includes('https://shop.example/checkout'))).toBe(true);
    expect(page('url=p/7?from=').total).toBe(N / 100);
    expect(page('errors=1').total).toBe(Math.ceil(N / 7));
    expect(page('rage=1').rows.every((r) => r.rageClicks === 1)).toBe(true);
    expect(page('rage=1').total).toBe(Math.ceil(N / 11));
    expect(page('dead=1').total).toBe(Math.ceil(N / 13));
    expect(page('failed=1').total).toBe(Math.ceil(N / 17));
    expect(page('errors=1&rage=1&url=checkout').total).toBe(Math.ceil(N / (7 * 11 * 3)));
    // A broad filter is counted up to COUNT_CAP: the page says "10000+".
    expect(page('from=2026-11-01&to=2026-11-01')).toMatchObject({ total: COUNT_CAP, more: true });
    expect(page('from=2026-11-01T01:00:00Z&to=2026-11-01T01:59:59Z')).toMatchObject({ total: 3599, more: false });
    expect(page('min=90&max=96').rows.every((r) => r.duration! >= 90_000 && r.duration! <= 96_000)).toBe(true);
    expect(() => query('errors=yes')).toThrow(/errors/);
  });

  it('searches ids, users, page URLs and error messages by word starts', () => {
    const basket = page('q=basket7');
    let expected = 0;
    for (let i = 0; i < N; i += 7) if (i % 50 === 7) expected++;
    expect(basket.total).toBe(expected);
    expect(basket.rows.every((r) => r.firstError?.includes('basket7'))).toBe(true);
    expect(page('q=typeerror basket49').rows.every((r) => r.firstError === 'TypeError: basket49 is undefined')).toBe(
      true,
    );
    const one = entry(777).replay_id;
    expect(ids(page(`q=${one.split('/')[1]}`).rows)).toEqual([one]);
    expect(page('q=d777').rows.every((r) => r.device === 'd777')).toBe(true);
    expect(page('q=checkout').total).toBe(N / 3);
    expect(page('q=nothing-like-this').total).toBe(0);
  });

  it('sorts newest first by default, and by every column both ways, with pages that neither repeat nor skip', () => {
    expect(page('', 1, 5).rows.map((r) => r.start)).toEqual([4, 3, 2, 1, 0].map((k) => T0 + (N - 5 + k) * 1000));
    for (const column of SORTABLE) {
      for (const sort of [column, `-${column}`]) {
        const rows = page(`sort=${sort}`, 1, 200).rows;
        const key = (r: CatalogueRow): string | number => {
          const v = (r as unknown as Record<string, unknown>)[
            { rage: 'rageClicks', dead: 'deadClicks', failed: 'failedRequests' }[column as string] ?? column
          ];
          return (v ?? -1) as string | number;
        };
        const values = rows.map(key);
        const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(values, sort).toEqual(sort.startsWith('-') ? sorted.reverse() : sorted);
      }
    }
    // Paging through a sort with many ties (errors) gives every matching row once.
    const seen = new Set<string>();
    const total = page('url=/p/1').total;
    for (let n = 1; n <= Math.ceil(total / 100); n++)
      for (const id of ids(page('sort=-errors&url=/p/1', n, 100).rows)) seen.add(id);
    expect(seen.size).toBe(total);
    expect(() => query('sort=size')).toThrow(/sort/);
  });

  it('finds rows of two rare filters through their indexes, not by reading the whole table', () => {
    // The plan the page of `?errors=1&rage=1&sort=clicks` runs (few rows: found, then sorted). Each part of the
    // intersection must search its column's index: a bare `SCAN replays` reads every row (732 ms at 1,000,000).
    const q = { errors: true, rageClicks: true, sort: 'clicks' };
    const where = whereOf(q);
    const sql = `SELECT * FROM replays ${where.sql} ${orderOf(parseSort(q.sort), { byIndex: false })} LIMIT 50`;
    const db = openDatabase(catalogueFile(cache, work.dir), { readonly: true });
    try {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...where.params);
      const steps = plan.map((step) => String(step['detail']));
      expect(steps).not.toContain('SCAN replays');
      expect(steps).toContainEqual(expect.stringMatching(/^SEARCH replays USING COVERING INDEX replays_errors /));
      expect(steps).toContainEqual(expect.stringMatching(/^SEARCH replays USING COVERING INDEX replays_rage /));
    } finally {
      db.close();
    }
  });

  it('reads a page of a broad filter in its sort index’s order, not every matching row sorted', () => {
    // Every replay is `ok`: the page of `?status=ok&sort=-pages` walks the pages index and stops at the page; the
    // status index would find all 30,000 rows and sort them (1.1 s at 1,000,000).
    const q = { status: 'ok' as const, sort: '-pages' };
    const sort = parseSort(q.sort);
    const where = whereOf(q, sort.column);
    const db = openDatabase(catalogueFile(cache, work.dir), { readonly: true });
    try {
      const sql = `SELECT * FROM replays ${where.sql} ${orderOf(sort, { byIndex: true })} LIMIT 50`;
      const steps = db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...where.params)
        .map((s) => String(s['detail']));
      expect(steps).toEqual(['SCAN replays USING INDEX replays_pages']);
      // A substring of the device or the session is found by scanning its index, not the table (a tenth of its size).
      for (const [q, index] of [
        [{ device: '3' }, 'replays_device'],
        [{ session: '99' }, 'replays_session'],
      ] as const) {
        const gather = whereOf(q);
        const found = db
          .prepare(`EXPLAIN QUERY PLAN SELECT replays.n FROM ${gather.from} ${gather.sql} LIMIT 10`)
          .all(...gather.params)
          .map((s) => String(s['detail']));
        expect(found).toEqual([`SCAN replays USING COVERING INDEX ${index}`]);
      }
      // A range on another column does not drive the walk either (SQLite guessed a third of the rows for a duration
      // range of a tenth and took its index, sorting every match for page 1: 460 ms at 1,000,000 replays).
      const ranged = { minDurationMs: 10_000, maxDurationMs: 40_000, sort: '-rage' };
      const walk = whereOf(ranged, 'rage');
      const numbers = `SELECT replays.n FROM replays ${walk.sql} ${orderOf(parseSort(ranged.sort))} LIMIT 50`;
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${numbers}`)
        .all(...walk.params)
        .map((s) => String(s['detail']));
      expect(plan).toEqual(['SCAN replays USING INDEX replays_rage']);
      const ids = db.prepare(
        `SELECT id FROM replays WHERE n IN (${numbers}) ${orderOf(parseSort('-rage'), { byIndex: false })}`,
      );
      expect(ids.all(...walk.params).map((r) => String(r['id']))).toEqual(
        [...catalogue.rows(ranged, 50)].map((r) => r.id),
      );
      // A range of at most 40,000 rows (every range here) drives the read of a walked page, its rows sorted: their
      // order may follow the sort's (a week of a year by size: walked, 150 ms at 1,000,000 replays; sorted, 13–38).
      const broad = { minDurationMs: 10_000, sort: '-rage' };
      expect(catalogue.page(broad, 1, 50).total).toBe(COUNT_CAP);
      expect(catalogue.plan(broad, 1, 50)[0]).toMatch(/^SEARCH replays USING INDEX replays_duration /);
      expect(catalogue.page(broad, 2, 50).rows.map((r) => r.id)).toEqual(
        [...catalogue.rows(broad, 100)].slice(50).map((r) => r.id),
      );
    } finally {
      db.close();
    }
  });

  it('walks a page of flags in the sort’s index, reading no row of the table but the page’s', () => {
    // Every sort index holds the flags (errors, rage, dead clicks, failed requests): a walk tests them there. Reading
    // the table for each row walked cost `errors` by duration, page 150, 280–370 ms at 1,000,000 replays (36 with).
    const db = openDatabase(catalogueFile(cache, work.dir), { readonly: true });
    const q = { errors: true, rageClicks: true };
    const expected = (sort: string): string[] => [...catalogue.rows({ ...q, sort })].slice(60, 90).map((r) => r.id);
    try {
      for (const column of SORTABLE) {
        for (const sort of [column, `-${column}`]) {
          const parsed = parseSort(sort);
          const where = whereOf(q, parsed.column);
          const numbers = `SELECT replays.n FROM ${where.from} ${where.sql} ${orderOf(parsed)} LIMIT 30 OFFSET 60`;
          const steps = db
            .prepare(`EXPLAIN QUERY PLAN ${numbers}`)
            .all(...where.params)
            .map((step) => String(step['detail']));
          const index = column === 'id' ? 'replays_id_flags' : `replays_${column}`;
          expect(steps, sort).toEqual([
            expect.stringMatching(new RegExp(`^(SCAN|SEARCH) replays USING COVERING INDEX ${index}\\b`)),
          ]);
          const rows = db.prepare(
            `SELECT id FROM replays WHERE n IN (${numbers}) ${orderOf(parsed, { byIndex: false })}`,
          );
          expect(
            rows.all(...where.params).map((r) => String(r['id'])),
            sort,
          ).toEqual(expected(sort));
        }
      }
    } finally {
      db.close();
    }
  });

  it('chooses a deep page’s plan from the match count: the sort index walked, or the matches sorted', () => {
    // 11,208 of the 30,000 session ids hold a 2. Page 1 by events walks the events index (about 50 × 30,000 /
    // 11,208 rows), testing each row's session against the substring's row set, in the index: up to 1,225 table rows
    // read are worth more than the session index scanned once. Page 150 would walk 7,500 × 30,000 / 11,208 = 20,000
    // rows past earlier matches, more than the 11,208 matches sorted: it reads them by their numbers and sorts them
    // (at 1,000,000 replays, `failed=1` by duration, page 150: 700 ms walked, 84 ms sorted).
    const q = { session: '2', sort: 'events' };
    expect(catalogue.page(q, 1, 50).total).toBe(COUNT_CAP);
    expect(walkFrom(50, N)).toBeLessThan(COUNT_CAP);
    expect(walkFrom(150 * 50, N)).toBeGreaterThan(11_208);
    expect(catalogue.plan(q, 1, 50)).toEqual(['SCAN replays USING COVERING INDEX replays_events']);
    const deep = catalogue.plan(q, 150, 50);
    expect(deep).toContain('USE TEMP B-TREE FOR ORDER BY');
    expect(deep.join('\n')).not.toMatch(/USING INDEX replays_events/);
    const expected = [...catalogue.rows(q)].slice(149 * 50, 150 * 50).map((r) => r.id);
    expect(catalogue.page(q, 150, 50).rows.map((r) => r.id)).toEqual(expected);
    expect(catalogue.page(q, 1, 50).rows.map((r) => r.id)).toEqual([...catalogue.rows(q, 50)].map((r) => r.id));
    // A walk too short for the row set, of the id's index: the substring is tested on the id first (it holds the
    // session), and the table's row read only for the ids that hold it.
    const byId = { session: '2', sort: '-id' };
    expect(walkFrom(20, N)).toBeLessThan(N / 30);
    expect(catalogue.plan(byId, 1, 20)).toEqual(['SCAN replays USING INDEX sqlite_autoindex_replays_1']);
    expect(ids(catalogue.page(byId, 1, 20).rows)).toEqual(ids([...catalogue.rows(byId, 20)]));
  });

  it('walks a page of a word in most rows testing each row it reads, not gathering the word’s rows first', () => {
    // `shop` is in 28,000 rows' URLs: page 1 by events walks the events index and looks each row up in the full-text
    // index; `IN (SELECT rowid … MATCH ?)` would have SQLite gather all 28,000 row numbers first (a LIST SUBQUERY; at
    // 1,000,000 replays, 450 ms of CPU for the page).
    const q = { text: 'shop', sort: 'events' };
    const steps = catalogue.plan(q, 1, 50);
    expect(steps[0]).toMatch(/^SCAN replays USING COVERING INDEX replays_events/);
    // Each row it reads is looked up in the full-text index by its number.
    expect(steps).toContain('CORRELATED SCALAR SUBQUERY 1');
    expect(steps).toContainEqual(expect.stringMatching(/^SCAN search VIRTUAL TABLE INDEX 0:=/));
    expect(steps.join('\n')).not.toMatch(/LIST SUBQUERY/);
    expect(catalogue.page(q, 1, 50).rows.map((r) => r.id)).toEqual([...catalogue.rows(q, 50)].map((r) => r.id));
    expect([...catalogue.rows({ text: 'shop' })].length).toBe(28_000);
    // A word in every row (`example`, of every URL) filters nothing: no search at all, rather than its every row
    // number gathered or looked up.
    const every = { text: 'example', errors: true, sort: 'events' };
    expect(catalogue.plan(every, 3, 50).join('\n')).not.toMatch(/search/);
    const withoutWord = { errors: true, sort: 'events' };
    expect(catalogue.page(every, 3, 50)).toEqual(catalogue.page(withoutWord, 3, 50));
    // A word that starts many of the index's terms (basket4, basket40 … basket49) is searched as a prefix.
    let expected = 0;
    for (let i = 0; i < N; i += 7) if (i % 50 === 4 || Math.floor((i % 50) / 10) === 4) expected++;
    expect(page('q=basket4').total).toBe(expected);
    expect(page('q=basket4&sort=events', 2, 50).rows.map((r) => r.id)).toEqual(
      [...catalogue.rows({ text: 'basket4', sort: 'events' })].slice(50, 100).map((r) => r.id),
    );
  });

  it('answers a broad prefix from its row set exactly as the full-text index does, and drops one in every row', async () => {
    // Recorded again with a bound that suits 30,000 rows, beside a copy that has none (each word then merged).
    const sets = await copyOfCatalogue('sets', 5_000);
    const merged = await copyOfCatalogue('merged', undefined);
    try {
      const recorded = sets.broad();
      // Shortest first: every digit and `1795308…`, the session numbers' common start, down to where it parts.
      expect(recorded.slice(0, 3)).toEqual(['1', '2', '3']);
      expect(recorded).toEqual(expect.arrayContaining(['d', '17953081', '179530819']));
      expect(merged.broad()).toEqual([]);
      for (const text of ['1795308', '2', 'd', '17953081 2', 'd1 mail', '179530818'])
        for (const sort of ['-start', 'events', '-id'])
          for (const n of [1, 7, 40]) {
            const q = { text, sort };
            const [got, want] = [sets.page(q, n, 50), merged.page(q, n, 50)];
            expect(ids(got.rows), `${text} ${sort} ${n}`).toEqual(ids(want.rows));
            // The count of a word in every row is exact (there is nothing to count), not stopped at COUNT_CAP.
            if (want.more) expect(got.total).toBeGreaterThanOrEqual(want.total);
            else expect([got.total, got.more]).toEqual([want.total, false]);
          }
      // Every session number starts with 1: the word filters nothing, and nothing is searched.
      const every = { text: '179', sort: 'events' };
      expect(sets.page(every, 2, 50)).toEqual(catalogue.page({ sort: 'events' }, 2, 50));
      expect(sets.plan(every, 2, 50).join('\n')).not.toMatch(/search|json_each/);
      // A deep page of device and session substrings (30,000 and 11,208 rows): their row sets, tested in the sort's
      // index as it is walked.
      const device = { device: 'd', session: '2', sort: 'clicks' };
      expect(sets.plan(device, 20, 50)).toEqual(['SCAN replays USING COVERING INDEX replays_clicks']);
      expect(sets.page(device, 20, 50).rows.map((r) => r.id)).toEqual(
        [...catalogue.rows(device)].slice(19 * 50, 20 * 50).map((r) => r.id),
      );
    } finally {
      sets.close();
      merged.close();
    }
  });

  it('answers the last page for a page past the end, and page 1 of nothing', () => {
    const last = page('user=42', 99, 2);
    expect(last.page).toBe(3);
    expect(last.rows).toHaveLength(2);
    expect(page('', 10_000, 100).page).toBe(N / 100);
    const none = page('user=nobody', 5, 10);
    expect({ page: none.page, rows: none.rows.length, total: none.total }).toEqual({ page: 1, rows: 0, total: 0 });
  });

  it('renders one page: newest first, the facts, the first error linked at its time, headings sorting both ways', () => {
    const q = query('sort=-errors');
    const one = catalogue.page(q.query, 3, 100);
    const html = renderIndex('archive', { params: new URLSearchParams('sort=-errors'), sort: '-errors' }, one);
    expect(one.rows).toHaveLength(100);
    expect(Buffer.byteLength(html)).toBeLessThan(200 * 1024);
    expect(html).toContain('TypeError: basket');
    expect(html).toMatch(/href="\/replays\/d\d+%2F\d+\?t=2" title="open at the first error"/);
    expect(html).toContain('<th aria-sort="descending"><a href="/?sort=errors">errors ↓</a></th>');
    expect(html).toContain('<th><a href="/?sort=-events">events</a></th>');
    expect(html).toContain(`page 3 of ${N / 100} (${N} replays)`);
  });
});
