/**
 * The facts of the samples as a real export records them, the catalogue an archive run keeps current at its folds
 * (equal to one built from the manifest alone), and `find` over it from the CLI.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../sinks/index.js';
import type { ManifestFacts, OkEntry } from '../../sinks/sink.js';
import { archiveReplays } from '../../src/index.js';
import { type CatalogueRow, openCatalogue } from '../../src/catalogue/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { cleanEnv, runCliInProcess, runCliSpawned } from '../cli/cli-helpers.js';
import { FAST, readManifest } from '../pipeline/helpers.js';

let sandbox: Sandbox;
let dir: string;
let out: string;
let cache: string;

async function archive(format: 'json' | 'ndjson'): Promise<void> {
  const o = { endpoint: sandbox.url, ...sandbox.credentials, ...FAST, out, settleMs: 0, format, gzip: false };
  for await (const ev of archiveReplays({ ...o, compactEvery: 2, catalogueDir: cache })) void ev;
}

/** Every row of the archive's catalogue in `dir`, by id; and how many builds opening it took. */
async function rowsIn(cacheDir: string): Promise<{ rows: CatalogueRow[]; builds: number }> {
  const target = await openArchive(out, { create: false });
  let builds = 0;
  const catalogue = await openCatalogue(target, { dir: cacheDir, onBuild: () => void builds++ });
  const rows = [...catalogue.rows({ sort: 'id' })];
  catalogue.close();
  await target.close();
  return { rows, builds };
}

const find = (...args: string[]) =>
  runCliInProcess(['find', out, ...args], { env: { ...cleanEnv(), REPLAY_EXPORT_CATALOGUE_DIR: cache } });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-export-find-'));
  out = join(dir, 'archive');
  cache = join(dir, 'catalogues');
  sandbox = await startSandbox({});
  await archive('json');
}, 180_000);

afterAll(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('facts at export', () => {
  it('records each sample replay’s pages, clicks and rage clicks in its manifest line', async () => {
    const entries = (await readManifest(out)) as unknown as OkEntry[];
    for (const r of sandbox.replays().filter((x) => x.origin === 'sample')) {
      const facts = entries.find((e) => e.replay_id === r.replayId && e.status === 'ok')?.facts as ManifestFacts;
      const events = JSON.parse(readFileSync(r.expectedPath, 'utf8')) as Array<{
        type: number;
        data: Record<string, unknown>;
      }>;
      const clicks = events.filter((e) => e.type === 3 && e.data['source'] === 2 && e.data['type'] === 2).length;
      expect(facts, r.sample).toMatchObject({
        pages: 1,
        clicks,
        rage_clicks: r.sample === 'long-scroll' ? 1 : 0,
        errors: 0,
      });
      expect(facts.urls[0], r.sample).toContain(`/${r.sample}.html`);
      expect(facts.active_ms, r.sample).toBeGreaterThan(0);
    }
  });
});

describe('the catalogue at folds', () => {
  it('is kept current by an archive run that folds, and equals one built from the manifest alone', async () => {
    // Opened once: the archive has a catalogue in the cache from now on.
    expect((await rowsIn(cache)).builds).toBe(1);
    // Another run (another format: every replay exported again) folds, and brings the catalogue up to the manifest.
    await archive('ndjson');
    const kept = await rowsIn(cache);
    expect(kept.builds).toBe(0);
    expect(kept.rows.filter((r) => r.status === 'ok').every((r) => r.stored?.key.endsWith('.ndjson'))).toBe(true);
    const fresh = await rowsIn(join(dir, 'fresh'));
    expect(fresh.builds).toBe(1);
    expect(kept.rows).toEqual(fresh.rows);
    expect(kept.rows.length).toBe(sandbox.replays().length);
  }, 180_000);
});

describe('find', () => {
  it('prints NDJSON when piped, ids with --format ids, and takes --max', async () => {
    const all = await find();
    expect(all.code).toBe(0);
    const records = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(new Set(records.map((r) => r['replay_id']))).toEqual(new Set(sandbox.replays().map((r) => r.replayId)));
    const starts = records.map((r) => String(r['start_time']));
    expect(starts).toEqual([...starts].sort().reverse());
    const ids = await find('--format', 'ids', '--max', '2');
    expect(ids.stdout.trim().split('\n')).toEqual(records.slice(0, 2).map((r) => r['replay_id']));
  });

  it('filters by page URL, rage clicks, errors, time and duration; sorts', async () => {
    const long = sandbox
      .replays()
      .filter((r) => r.sample === 'long-scroll')
      .map((r) => r.replayId);
    const rage = await find('--url', 'long-scroll.html', '--rage-clicks', '--format', 'ids');
    expect(rage.stdout.trim().split('\n').sort()).toEqual([...long].sort());
    expect((await find('--errors')).stdout).toBe('');
    expect((await find('--search', 'form typing', '--format', 'ids')).stdout.trim().split('\n').length).toBe(
      sandbox.replays().filter((r) => r.sample === 'form-typing').length,
    );
    const start = Date.parse(String(sandbox.replays()[0]!.record.start_time));
    const since = `${Math.ceil((Date.now() - start) / 86_400_000) + 1}d`;
    expect((await find('--since', since, '--format', 'ids')).stdout.trim().split('\n').length).toBe(
      sandbox.replays().length,
    );
    expect((await find('--since', '1h')).stdout).toBe('');
    expect((await find('--min-duration', '1h')).stdout).toBe('');
    const byDuration = (await find('--sort', 'duration')).stdout.trim().split('\n');
    const durations = byDuration.map((l) => (JSON.parse(l) as { duration_ms: number }).duration_ms);
    expect(durations).toEqual([...durations].sort((a, b) => a - b));
  });

  it('says only that it built the catalogue on stderr: node:sqlite’s ExperimentalWarning (Node 22) is filtered', async () => {
    const env = { ...cleanEnv(), REPLAY_EXPORT_CATALOGUE_DIR: join(dir, 'spawned') };
    const spawned = await runCliSpawned(['find', out, '--format', 'ids', '--max', '1'], env);
    expect(spawned.code).toBe(0);
    expect(spawned.stdout.trim().split('\n')).toHaveLength(1);
    expect(spawned.stderr).toMatch(/^catalogue built: \d+ replays in [\d.]+ s\n$/);
  });

  it('refuses a bad sort or status (usage, exit 2) and an archive that is not there (exit 1)', async () => {
    expect((await find('--sort', 'size')).code).toBe(2);
    expect((await find('--status', 'nope')).code).toBe(2);
    const missing = await runCliInProcess(['find', join(dir, 'none')], {
      env: { ...cleanEnv(), REPLAY_EXPORT_CATALOGUE_DIR: cache },
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no manifest');
  });
});
