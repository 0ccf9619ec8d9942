/**
 * Issue #28, finding 2: a replay whose file keys together exceed what a manifest record may take (3,400 files with
 * 5 kB keys: a 17 MB list; the issue's 1,300 keys of 14 kB make request lines the sandbox refuses) is archived, and everything that reads the manifest afterwards works: archive again,
 * verify, forget, view. The line records the keys' count and digest instead of the keys.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MAX_MANIFEST_RECORD_BYTES } from '../../sinks/manifest-lines.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { makeSamplesDir, type FixtureDir } from '../sandbox/fixtures.js';
import { readManifest, tempDir } from '../pipeline/helpers.js';
import { runCli, sandboxEnv, spawnView } from './cli-helpers.js';

const FILES = 3400;
let sandbox: Sandbox | undefined;
let samples: FixtureDir;
let work: { dir: string; cleanup: () => Promise<void> };

beforeEach(async () => {
  work = await tempDir('replay-export-long-keys-');
  // A 5,000-character device id: each of the 3,400 file keys (`replays/device-<id>/…`) is over 5 kB.
  samples = makeSamplesDir([
    {
      name: 'long',
      files: FILES,
      startMs: Date.UTC(2026, 10, 20, 9, 0, 0),
      platformId: 7,
      deviceId: 'd'.repeat(5_000),
    },
    { name: 'short', files: 2, startMs: Date.UTC(2026, 10, 20, 10, 0, 0), platformId: 8 },
  ]);
});
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  samples.cleanup();
  await work.cleanup();
});

describe('a replay whose file keys do not fit in one manifest record', () => {
  test('is archived with their count and digest; archive again, verify, forget and view all read the manifest back', async () => {
    sandbox = await startSandbox({ samplesDir: samples.dir, apiConcurrency: 0 });
    const env = sandboxEnv(sandbox);
    const out = join(work.dir, 'archive');
    const long = samples.ids.get('long')!;

    const first = await runCli(
      ['archive', '--out', out, '--settle', '0', '--recheck', '30d', '--file-version', '3'],
      env,
    );
    expect(first.stderr).not.toContain('longer than');
    expect(first.code).toBe(0);
    const lines = await readManifest(out);
    for (const line of lines)
      expect(Buffer.byteLength(JSON.stringify(line))).toBeLessThanOrEqual(MAX_MANIFEST_RECORD_BYTES);
    const entry = lines.find((e) => e.replay_id === long)!;
    expect(entry.status).toBe('ok');
    expect(entry.file_keys).toBeUndefined();
    expect(entry.file_count).toBe(FILES);
    expect(entry.file_keys_sha256).toMatch(/^[0-9a-f]{64}$/);

    // Again: the recheck window holds the replay; its listing, compared with the digest, is found unchanged.
    const again = await runCli(
      ['archive', '--out', out, '--settle', '0', '--recheck', '30d', '--file-version', '3', '--log-format', 'json'],
      env,
    );
    expect(again.stderr).not.toContain('longer than');
    expect(again.code).toBe(0);
    const outcome = again.stderr
      .split('\n')
      .filter((l) => l.includes(`"event":"replay"`) && l.includes('"replay_id":"d'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(outcome.map((o) => o.outcome)).toEqual(['unchanged']);

    const verified = await runCli(['verify', out]);
    expect(verified.stderr).toContain('2 of 2 archived replays intact');
    expect(verified.code).toBe(0);

    const view = await spawnView(['view', out]);
    try {
      const res = await fetch(view.url);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('dddddddddd');
    } finally {
      view.child.kill('SIGINT');
    }
    expect((await view.done).code).toBe(0);

    const forgotten = await runCli(['forget', '--out', out, '--replay', long], env);
    expect(forgotten.stderr).not.toContain('longer than');
    expect(forgotten.code).toBe(0);
    expect((await runCli(['verify', out])).code).toBe(0);
  }, 300_000);
});
