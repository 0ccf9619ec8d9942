/**
 * One run for every entry (src/pipeline/run.ts): the library's entries resolve their configuration as the CLI does
 * (options, then PLATFORM_*, then defaults) and give the same answers for unknown and malformed ids.
 */
import { access, readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ConfigError,
  exportReplay,
  exportReplays,
  openRun,
  ReplayNotFoundError,
  replayEvents,
  resolveSettings,
  ValidationError,
} from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { inFlagWords } from '../../bin/cli/option-flags.js';
import { FAST, readManifest, tempDir } from './helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  sandbox = await startSandbox({});
  work = await tempDir('replay-export-spine-');
});
afterAll(async () => {
  await sandbox.close();
  await work.cleanup();
});

const requests = (): number => {
  const s = sandbox.stats();
  return s.listRequests + s.filesRequests;
};

async function missing(path: string): Promise<boolean> {
  return access(path).then(
    () => false,
    () => true,
  );
}

describe('the same answers in every entry', () => {
  test('exportReplay of an id the API does not list resolves not_found and records it, like exportReplays', async () => {
    const out = `${work.dir}/unknown`;
    const entry = await exportReplay('gone-device/1795308171251', {
      endpoint: sandbox.url,
      ...sandbox.credentials,
      ...FAST,
      out,
    });
    expect(entry).toMatchObject({
      replay_id: 'gone-device/1795308171251',
      status: 'not_found',
      error: { code: 'REPLAY_NOT_FOUND' },
    });
    const lines = await readManifest(out);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 'not_found' });
    expect(await readdir(out)).toEqual(['manifest.ndjson']);
  });

  test('a malformed id throws ValidationError before any request, and nothing is written', async () => {
    const before = requests();
    const out = `${work.dir}/malformed`;
    const options = { endpoint: sandbox.url, ...sandbox.credentials, ...FAST, out };
    await expect(exportReplay('not-an-id', options)).rejects.toBeInstanceOf(ValidationError);
    await expect(exportReplays(['ok/1', 'not-an-id'], options).next()).rejects.toBeInstanceOf(ValidationError);
    await expect(replayEvents('/leading', options).next()).rejects.toBeInstanceOf(ValidationError);
    expect(requests()).toBe(before);
    expect(await missing(out)).toBe(true);
  });

  test('a known replay exports ok through exportReplay (the lookup gives it its times and retention)', async () => {
    const out = `${work.dir}/known`;
    const r = sandbox.replays()[0]!;
    const entry = await exportReplay(r.replayId, { endpoint: sandbox.url, ...sandbox.credentials, ...FAST, out });
    expect(entry).toMatchObject({ replay_id: r.replayId, status: 'ok' });
    expect(entry.status === 'ok' && entry.expires_at).toBeTruthy();
  });
});

describe('configuration, resolved once', () => {
  test('the library reads PLATFORM_* as the CLI does: no endpoint or keys in the options', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      PLATFORM_ENDPOINT: sandbox.url,
      PLATFORM_API_KEY: sandbox.credentials.apiKey,
      PLATFORM_SECRET_KEY: sandbox.credentials.secretKey,
      PLATFORM_REGION: 'EU',
    });
    try {
      const id = sandbox.replays()[0]!.replayId;
      let n = 0;
      for await (const _ of replayEvents(id, FAST)) n++;
      expect(n).toBeGreaterThan(0);
      await using run = await openRun({});
      expect(run.platform).toMatchObject({ region: 'eu', endpoint: sandbox.url });
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  test('an option wins over its variable; a bad region or endpoint is a ConfigError naming it', async () => {
    const env = { PLATFORM_ENDPOINT: 'http://127.0.0.1:1', PLATFORM_REGION: 'us' };
    const run = await openRun({ endpoint: sandbox.url }, { env });
    expect(run.platform.endpoint).toBe(sandbox.url);
    await run.close();
    await expect(openRun({ region: 'mars' as 'us' }, { env: {} })).rejects.toThrow(
      /region must be us or eu, got "mars"/,
    );
    await expect(openRun({}, { env: { PLATFORM_ENDPOINT: 'ftp://x' } })).rejects.toBeInstanceOf(ConfigError);
    const refused = await openRun({ region: 'mars' as 'us' }, { env: {} }).catch((err: unknown) => err);
    expect(inFlagWords(refused)).toMatchObject({ message: expect.stringMatching(/^--region must be/) });
  });

  test('resolved settings beside a loose tunable is a ConfigError naming the tunable', async () => {
    const settings = resolveSettings({});
    await expect(openRun({ settings, concurrency: 3 })).rejects.toThrow(/`settings` and `concurrency`/);
    await expect(exportReplay('a/1', { settings, format: 'ndjson', out: `${work.dir}/x` })).rejects.toBeInstanceOf(
      ConfigError,
    );
  });

  test('missing project keys are a ConfigError before any request, saying where they come from', async () => {
    const before = requests();
    await using run = await openRun({ endpoint: sandbox.url }, { env: {} });
    expect(() => run.replays()).toThrow(/missing credentials: an API key \(apiKey or PLATFORM_API_KEY\)/);
    expect(requests()).toBe(before);
  });

  test('an open run serves several entries with one transport; the entries do not close it', async () => {
    const out = `${work.dir}/shared`;
    await using run = await openRun({ endpoint: sandbox.url, ...sandbox.credentials, ...FAST, out });
    const [a, b] = sandbox.replays();
    expect(await exportReplay(a!.replayId, { run })).toMatchObject({ status: 'ok' });
    expect(await exportReplay(b!.replayId, { run })).toMatchObject({ status: 'ok' });
    expect(run.transport()).toBe(run.transport());
    await expect(exportReplay(a!.replayId, { run, concurrency: 2 })).rejects.toThrow(/`run` and `concurrency`/);
    let caught: unknown;
    try {
      for await (const _ of replayEvents('nope/1', { run })) break;
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ReplayNotFoundError);
  });
});
