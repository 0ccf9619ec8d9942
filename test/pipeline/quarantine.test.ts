/**
 * Quarantine (issue 37, item 4): a replay that fails with the same permanent cause (bad data) in `--quarantine-after`
 * runs in a row (default 3) is recorded `quarantined` and no longer fails the run: that run exits 0 with a warning
 * line and a `quarantined` count in its summary; later runs leave it alone until `--retry-quarantined`. A failure that
 * may pass (5xx, a broken connection) never counts. Manifests written before read as they did.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { archiveReplays } from '../../src/index.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { runCliInProcess, sandboxEnv } from '../cli/cli-helpers.js';
import { FAST, lastById, readManifest, tempDir } from './helpers.js';
import { pageWithImages, recordedSamples, type RecordedSamples } from './recorded-replays.js';

const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
const HOUR = 3_600_000;

let sandbox: Sandbox | undefined;
let samples: RecordedSamples | undefined;
let work: { dir: string; cleanup: () => Promise<void> } | undefined;
afterEach(async () => {
  await sandbox?.close();
  samples?.cleanup();
  await work?.cleanup();
  sandbox = samples = work = undefined;
});

/** A sandbox of two replays: `bad` (its file corrupt, or failing as `faults` say) and `good`. */
async function start(corrupt: boolean, faults: SandboxOptions['faults'] = {}): Promise<{ bad: string; good: string }> {
  samples = recordedSamples([
    { name: 'bad', startMs: T0, events: pageWithImages('https://example.com/', [], T0), corrupt },
    { name: 'good', startMs: T0 + HOUR, events: pageWithImages('https://example.com/', [], T0 + HOUR) },
  ]);
  sandbox = await startSandbox({ samplesDir: samples.dir, faults });
  work = await tempDir('replay-quarantine-');
  return { bad: samples.ids.get('bad')!, good: samples.ids.get('good')! };
}

async function archive(...extra: string[]): Promise<{ code: number; stderr: string; json: Record<string, unknown>[] }> {
  const args = ['archive', '--out', work!.dir, '--settle', '0', '--log-format', 'json', ...extra];
  const run = await runCliInProcess(args, { env: sandboxEnv(sandbox!) });
  const code = run.code ?? -1;
  const json = run.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { code, stderr: run.stderr, json };
}

const summaryOf = (json: Record<string, unknown>[]) => json.find((l) => l.event === 'summary')!;
const replayLine = (json: Record<string, unknown>[], id: string) =>
  json.find((l) => l.event === 'replay' && l.replay_id === id);

/** The library's archive with fast retries; the manifest's last line per replay after it. */
async function archiveInProcess(extra: Record<string, unknown>): Promise<Map<string, Record<string, unknown>>> {
  const options = {
    endpoint: sandbox!.url,
    ...sandbox!.credentials,
    ...FAST,
    out: work!.dir,
    settleMs: 0,
    fileRetries: 1,
    ...extra,
  };
  for await (const _ of archiveReplays(options));
  return lastById(await readManifest(work!.dir));
}

describe('quarantine', () => {
  test('three runs failing the same way: the third quarantines it and exits 0; later runs leave it alone', async () => {
    const { bad, good } = await start(true);
    for (const attempt of [1, 2]) {
      const run = await archive();
      expect(run.code, run.stderr).toBe(1);
      expect(replayLine(run.json, bad)).toMatchObject({ outcome: 'failed', attempts: attempt });
      expect(lastById(await readManifest(work!.dir)).get(bad)).toMatchObject({ status: 'failed', attempts: attempt });
    }
    const third = await archive();
    expect(third.code, third.stderr).toBe(0);
    expect(replayLine(third.json, bad)).toMatchObject({ outcome: 'quarantined', attempts: 3 });
    expect(third.json.find((l) => l.event === 'quarantined')).toMatchObject({ level: 'warn', quarantined: 1 });
    expect(summaryOf(third.json)).toMatchObject({ quarantined: 1, failed: 0 });
    const line = lastById(await readManifest(work!.dir)).get(bad)!;
    expect(line).toMatchObject({ status: 'quarantined', attempts: 3, error: { file_key: expect.any(String) } });
    expect(lastById(await readManifest(work!.dir)).get(good)?.status).toBe('ok');

    // Not tried again: nothing requested for it, nothing recorded; the text summary counts it, with the warning.
    const lines = (await readManifest(work!.dir)).length;
    const text = await runCliInProcess(['archive', '--out', work!.dir, '--settle', '0'], { env: sandboxEnv(sandbox!) });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(/warn: 1 replay\(s\) quarantined/);
    expect(text.stderr).toContain(`quarantined ${bad} (quarantined: `);
    expect(text.stderr).toMatch(/ in 3 runs\)/);
    expect(text.stderr).toMatch(/Summary \([^)]*\): ok 0, failed 0, quarantined 1,/);
    expect((await readManifest(work!.dir)).length).toBe(lines);

    // verify shows it, and finds nothing wrong.
    const verify = await runCliInProcess(['verify', work!.dir], { env: sandboxEnv(sandbox!) });
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stderr).toMatch(/1 replay in another state \(1 quarantined\)/);

    // --retry-quarantined tries it again: still corrupt, it stays quarantined (one more run counted) ...
    const retried = await archive('--retry-quarantined');
    expect(retried.code, retried.stderr).toBe(0);
    expect(replayLine(retried.json, bad)).toMatchObject({ outcome: 'quarantined', attempts: 4 });
    // ... repaired, it is exported.
    samples!.setCorrupt('bad', false);
    const repaired = await archive('--retry-quarantined');
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(replayLine(repaired.json, bad)).toMatchObject({ outcome: 'ok' });
    expect(lastById(await readManifest(work!.dir)).get(bad)?.status).toBe('ok');
  });

  test('--quarantine-after sets the count; a changed cause starts it again', async () => {
    const { bad } = await start(true);
    expect((await archive('--quarantine-after', '2')).code).toBe(1);
    // The replay now fails for another reason (a 503 from storage): not permanent, so the count is gone.
    await sandbox!.close();
    sandbox = await startSandbox({
      samplesDir: samples!.dir,
      faults: { serverErrorEvery: 1, serverErrorScope: 'storage' },
    });
    const transient = await archiveInProcess({ quarantineAfter: 2 });
    expect(transient.get(bad)).toMatchObject({ status: 'failed', error: { status: 503 } });
    expect(transient.get(bad)?.attempts).toBeUndefined();
    await sandbox!.close();
    sandbox = await startSandbox({ samplesDir: samples!.dir });
    expect(replayLine((await archive('--quarantine-after', '2')).json, bad)).toMatchObject({ attempts: 1 });
    const second = await archive('--quarantine-after', '2');
    expect(second.code).toBe(0);
    expect(replayLine(second.json, bad)).toMatchObject({ outcome: 'quarantined', attempts: 2 });
    const usage = await archive('--quarantine-after', '0');
    expect(usage.code).toBe(2);
  });

  test.each([
    ['a 5xx from storage', { serverErrorEvery: 1, serverErrorScope: 'storage' as const }],
    ['a connection that breaks', { resetEvery: 1 }],
  ])('%s never quarantines, however many runs it fails', async (_, faults) => {
    const { bad, good } = await start(false, faults);
    for (let run = 0; run < 4; run++) {
      const last = await archiveInProcess({ quarantineAfter: 2 });
      for (const id of [bad, good]) {
        expect(last.get(id)?.status, `${id} run ${run}`).toBe('failed');
        expect(last.get(id)?.attempts).toBeUndefined();
      }
    }
  });

  test('a manifest written before quarantine existed reads as it did: its failed lines count no run', async () => {
    const { bad, good } = await start(true);
    const old = (id: string) =>
      JSON.stringify({
        replay_id: id,
        status: 'failed',
        error: { code: 'DECODE_JSON', message: 'old', file_key: 'k' },
        recorded_at: '2026-11-01T00:00:00.000Z',
      });
    writeFileSync(join(work!.dir, 'manifest.ndjson'), `${old(bad)}\n${old(bad)}\n${old(good)}\n`);
    const run = await archive('--quarantine-after', '2');
    expect(run.code).toBe(1);
    expect(replayLine(run.json, bad)).toMatchObject({ outcome: 'failed', attempts: 1 });
    expect(replayLine(run.json, good)).toMatchObject({ outcome: 'ok' });
  });
});
