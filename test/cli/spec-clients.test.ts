/**
 * The supporting clients as a user meets them through the built CLI against the sandbox, exact to the spec
 * (issue 27): mapping batches of the documented size go through and the 1500-per-30-s window holds the next one;
 * `--since` is right when the platform ignores `start_time`; creates the spec does not require fields for; a
 * replay id with a space exports.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionReplayClient } from '../../src/replay/index.js';
import { Transport } from '../../src/http/index.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { lastById, readManifest, tempDir } from '../pipeline/helpers.js';
import { runCli, sandboxEnv, spawnCli } from './cli-helpers.js';
import { ManualClock } from '../helpers/manual-clock.js';

let sandbox: Sandbox | undefined;
let work: { dir: string; cleanup: () => Promise<void> } | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  await work?.cleanup();
  work = undefined;
});

async function start(o: SandboxOptions = {}): Promise<Sandbox> {
  sandbox = await startSandbox(o);
  work = await tempDir('replay-export-spec-clients-');
  return sandbox;
}

const env = (sb: Sandbox) => ({ ...sandboxEnv(sb), PLATFORM_MANAGEMENT_KEY: 'sandbox-management-key' });

async function api(
  sb: Sandbox,
  args: string[],
  stdin?: unknown,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { child, done } = spawnCli(['api', ...args], env(sb), [], stdin === undefined ? 'ignore' : 'pipe');
  if (stdin !== undefined) child.stdin!.end(JSON.stringify(stdin));
  return done;
}

describe('user mapping through the CLI', () => {
  it('2,000 mappings in one call are accepted (no 431); a second 2,000 right after is held by the window, then goes', async () => {
    // The 30 s window becomes 6 s of the sandbox's clock, which the test moves: the window passes only once the second
    // batch has been refused, however long the second CLI process took to start.
    const clock = new ManualClock();
    const sb = await start({ timeScale: 0.2, clock });
    const batch = (from: number) =>
      Array.from({ length: 2000 }, (_, i) => ({
        user_id: `user-${from + i}`,
        global_user_id: `global-${(from + i) % 7}`,
      }));
    const first = await api(sb, ['user-mapping.map', '--body', '-'], batch(0));
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ code: 200, mapped: 2000, unmapped: 0 });
    const running = api(sb, ['user-mapping.map', '--body', '-'], batch(2000));
    const refusals = (): number => sb.limitRefusals()['mappings per 30 seconds'] ?? 0;
    await vi.waitUntil(() => refusals() > 0, { timeout: 60_000, interval: 20 });
    await clock.advance(6_000);
    const second = await running;
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ code: 200, mapped: 2000, unmapped: 0 });
    // The window held the second batch (a 429 with Retry-After, waited out; the refused attempt is not counted
    // against the client's own window, so it goes as soon as the sandbox's window allows).
    expect(sb.limitRefusals()).toEqual({ 'mappings per 30 seconds': expect.any(Number) });
    expect(`${first.stderr}${second.stderr}`).not.toContain('431');
  });
});

describe('list and archive --since when the platform ignores start_time', () => {
  it('only replays starting at or after --since are listed and exported', async () => {
    const sb = await start({ ignoreTimeFilters: true });
    const transport = new Transport({ endpoint: sb.url, credentials: { ...sb.credentials } });
    const all: { id: string; start: number }[] = [];
    for await (const r of new SessionReplayClient(transport).listReplays({}))
      all.push({ id: r.replay_id, start: r.startMs! });
    await transport.close();
    all.sort((a, b) => a.start - b.start);
    expect(all.length).toBeGreaterThanOrEqual(4);
    const since = new Date(all[Math.floor(all.length / 2)]!.start).toISOString();
    const expected = all
      .filter((r) => r.start >= Date.parse(since))
      .map((r) => r.id)
      .sort();
    expect(expected.length).toBeLessThan(all.length);

    const list = await runCli(['list', '--since', since, '--json'], env(sb));
    expect(list.code, list.stderr).toBe(0);
    expect(
      list.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { replay_id: string }).replay_id)
        .sort(),
    ).toEqual(expected);

    const out = join(work!.dir, 'archive');
    const archive = await runCli(['archive', '--out', out, '--since', since], env(sb));
    expect(archive.code, archive.stderr).toBe(0);
    expect([...lastById(await readManifest(out)).keys()].sort()).toEqual(expected);
  });
});

describe('creates the spec does not require more fields for', () => {
  it('experiments.create and flags.create without projectId; a shared event property without event_type', async () => {
    const sb = await start();
    for (const kind of ['experiments', 'flags']) {
      const res = await api(sb, [`${kind}.create`, '--body', '-'], { key: `no-project-${kind}` });
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ id: expect.any(String), url: expect.any(String) });
    }
    const shared = await api(sb, ['taxonomy.event-properties.create', '--body', '-'], {
      event_property: 'shared-prop',
      description: 'on every event',
    });
    expect(shared.code, shared.stderr).toBe(0);
    const listed = await api(sb, ['taxonomy.event-properties.list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { data: unknown[] }).data).toContainEqual(
      expect.objectContaining({ event_property: 'shared-prop', event_type: '' }),
    );
    // The help says which fields are required, from the schema the check uses.
    const help = await runCli(['api', 'taxonomy.event-properties.create', '--help']);
    expect(help.stdout).toContain('{event_property, event_type?, description?,');
    const refused = await api(sb, ['experiments.update', '--param', 'id=10001', '--body', '-'], {
      rolloutPercentage: 150,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('rolloutPercentage');
  });
});

describe('api: answers a script can act on', () => {
  it('a feedback partial failure exits non-zero; replay.files of a replay the API does not list is not found', async () => {
    const sb = await start();
    const partial = await api(
      sb,
      ['feedback.ingest', '--param', 'sourceId=s', '--body', '-'],
      [{ unique_id: 'ok', body: 'fine' }, { unique_id: 'bad' }],
    );
    expect(partial.code).toBe(1);
    expect(partial.stderr).toContain('1 of 2 items failed');
    expect(partial.stderr).toContain('bad: a new item needs a body or conversation parts');
    const unknown = await api(sb, ['replay.files', '--param', 'replayId=gone-device/1795308171251']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('replay gone-device/1795308171251 not found');
    const known = sb.replays()[0]!.record.replay_id;
    const files = await api(sb, ['replay.files', '--param', `replayId=${known}`]);
    expect(files.code, files.stderr).toBe(0);
    expect((JSON.parse(files.stdout) as { files: unknown[] }).files.length).toBeGreaterThan(0);
  });
});

describe('replay ids with any printable character', () => {
  it('export "dev one/1705319880000" exports the replay the API lists', async () => {
    const id = 'dev one/1705319880000';
    const sb = await start({
      extraReplays: [{ replay_id: id, sample: 'form-typing', start_time: '2024-01-15T11:58:00Z' }],
    });
    const out = join(work!.dir, 'one');
    const res = await runCli(['export', id, '--out', out], env(sb));
    expect(res.code, res.stderr).toBe(0);
    expect(lastById(await readManifest(out)).get(id)).toMatchObject({ replay_id: id, status: 'ok' });
  });
});
