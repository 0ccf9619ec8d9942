import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  archiveReplays,
  ConfigError,
  type ArchiveEvent,
  type ArchiveOptions,
  type ReplayNotice,
} from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { makeSamplesDir, packVersion2Files, sampleFilePaths, type FixtureDir } from '../sandbox/fixtures.js';
import { FAST, lastById, readManifest, tempDir } from './helpers.js';

const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
let samples: FixtureDir;
let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };

beforeEach(async () => {
  // alpha: 5 files of 3 events of ~6 KB; beta: 3 files of 3 events of ~7 KB; gamma: 1 file of ~6 KB events.
  samples = makeSamplesDir([
    { name: 'alpha', files: 5, startMs: T0, platformId: 1, padBytes: 6000 },
    { name: 'beta', files: 3, startMs: T0 + 3_600_000, platformId: 2, padBytes: 7000 },
    { name: 'gamma', files: 1, startMs: T0 + 7_200_000, platformId: 3, padBytes: 6000 },
  ]);
  packVersion2Files(samples);
  work = await tempDir('replay-limits-');
});
afterEach(async () => {
  await sandbox?.close();
  samples.cleanup();
  await work.cleanup();
});

/** Inflated sizes of a sample's files of `version`, in key order. */
function inflatedSizes(name: string, version: 2 | 3): number[] {
  return sampleFilePaths(samples, name, version).map((f) => gunzipSync(readFileSync(f)).length);
}

/** Archives everything into a fresh folder; the last manifest line per replay id, and the notices. */
async function archive(
  extra: Partial<ArchiveOptions>,
): Promise<{ last: Map<string, Record<string, unknown>>; notices: ReplayNotice[] }> {
  const out = join(work.dir, `out-${Math.random().toString(36).slice(2)}`);
  const notices: ReplayNotice[] = [];
  const events: ArchiveEvent[] = [];
  for await (const ev of archiveReplays({
    endpoint: sandbox.url,
    ...sandbox.credentials,
    ...FAST,
    out,
    settleMs: 0,
    concurrency: 1,
    ...extra,
  })) {
    events.push(ev);
    if (ev.type === 'notice') notices.push(ev.notice);
  }
  return { last: lastById(await readManifest(out)), notices };
}

describe('size limits in an export', () => {
  test.each([3, 2] as const)(
    'an event over --max-event-size fails its replay alone, named in the manifest, not retried (version %s)',
    async (fileVersion) => {
      sandbox = await startSandbox({ samplesDir: samples.dir });
      const { last, notices } = await archive({ maxEventBytes: 6500, fileVersion, filesAhead: 0 });
      const beta = samples.ids.get('beta')!;
      const failed = last.get(beta)!;
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatchObject({ code: 'EVENT_TOO_LARGE', index: 0 });
      expect((failed.error as { file_key: string }).file_key).toMatch(
        new RegExp(`/v${fileVersion}/${T0 + 3_600_000}-0000\\.json\\.gz$`),
      );
      expect((failed.error as { message: string }).message).toContain('6500 bytes');
      expect(last.get(samples.ids.get('alpha')!)!.status).toBe('ok');
      expect(last.get(samples.ids.get('gamma')!)!.status).toBe('ok');
      // Deterministic: the file was downloaded once, never again.
      expect(notices.filter((n) => n.kind === 'retry')).toEqual([]);
      const files = fileVersion === 3 ? 5 + 1 + 1 : 4 + 1 + 1;
      expect(sandbox.stats().storageRequests).toBe(files);
    },
  );

  test('--max-replay-size counts every file of a replay: the file that goes over fails it, the others go on', async () => {
    sandbox = await startSandbox({ samplesDir: samples.dir });
    const alpha = inflatedSizes('alpha', 3);
    const limit = alpha[0]! + alpha[1]! + alpha[2]! + alpha[3]! + 10;
    expect(inflatedSizes('beta', 3).reduce((a, b) => a + b)).toBeLessThan(limit);
    const { last, notices } = await archive({ maxReplayBytes: limit });
    const failed = last.get(samples.ids.get('alpha')!)!;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'REPLAY_TOO_LARGE', index: 0 });
    expect((failed.error as { file_key: string }).file_key).toMatch(/\/v3\/\d{13}-0004\.json\.gz$/);
    expect((failed.error as { message: string }).message).toContain(`${limit} bytes`);
    expect(last.get(samples.ids.get('beta')!)!.status).toBe('ok');
    expect(last.get(samples.ids.get('gamma')!)!.status).toBe('ok');
    expect(notices.filter((n) => n.kind === 'retry')).toEqual([]);
  });

  test('a file downloaded again after a broken transfer counts once against the replay size limit', async () => {
    sandbox = await startSandbox({ samplesDir: samples.dir, faults: { resetEvery: 2 } });
    const need = Math.max(...['alpha', 'beta', 'gamma'].map((n) => inflatedSizes(n, 3).reduce((a, b) => a + b)));
    const { last, notices } = await archive({ maxReplayBytes: need, filesAhead: 0 });
    for (const name of ['alpha', 'beta', 'gamma']) expect(last.get(samples.ids.get(name)!)!.status, name).toBe('ok');
    expect(notices.filter((n) => n.kind === 'retry').length).toBeGreaterThan(0);
    expect(sandbox.stats().resets).toBeGreaterThan(0);
  });

  test('limits out of range are a ConfigError before any request', async () => {
    sandbox = await startSandbox({ samplesDir: samples.dir });
    await expect(archive({ maxEventBytes: 2 ** 31 })).rejects.toBeInstanceOf(ConfigError);
    await expect(archive({ maxReplayBytes: 0 })).rejects.toBeInstanceOf(ConfigError);
    expect(sandbox.stats().apiRequests).toBe(0);
  });
});
