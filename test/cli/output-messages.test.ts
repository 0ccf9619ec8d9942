/** What the CLI says in pipes (stderr not a terminal): retries, --quiet, warnings, written paths. */
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { tempDir } from '../pipeline/helpers.js';
import { runCli, sandboxEnv } from './cli-helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  sandbox = await startSandbox({ faults: { rateLimitEvery: 3, retryAfterSeconds: 0 } });
  work = await tempDir('replay-export-msg-');
});
afterAll(async () => {
  await sandbox.close();
  await work.cleanup();
});

const records = (stderr: string): Record<string, unknown>[] =>
  stderr
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('CLI messages', () => {
  test('every API retry is a JSON retry event (family, status, attempt, wait) and the summary counts them', async () => {
    const res = await runCli(
      ['--log-format', 'json', 'archive', '--out', join(work.dir, 'retries'), '--settle', '0'],
      sandboxEnv(sandbox),
    );
    expect(res.code, res.stderr).toBe(0);
    const recs = records(res.stderr);
    const retries = recs.filter((r) => r.event === 'retry' && r.status !== undefined);
    expect(retries.length).toBeGreaterThan(0);
    for (const r of retries) {
      expect(r).toMatchObject({
        level: 'debug',
        status: 429,
        family: expect.any(String),
        attempt: expect.any(Number),
        wait_ms: expect.any(Number),
        limit_kind: 'rate',
        limit: 'request rate',
      });
      // The sandbox sends `Retry-After: 0` with each 429.
      expect(r.retry_after_ms).toBe(0);
    }
    const summary = recs.find((r) => r.event === 'summary')!;
    expect(summary.retries).toBe(retries.length);
  });

  test("api and export --out - log every API retry too (their transport has the run's logger)", async () => {
    const api = await runCli(
      ['--log-format', 'json', 'api', 'replay.list', '--param', 'pageSize=2', '--paginate'],
      sandboxEnv(sandbox),
    );
    expect(api.code, api.stderr).toBe(0);
    const retriesOf = (stderr: string): Record<string, unknown>[] =>
      stderr.trim() === '' ? [] : records(stderr).filter((r) => r.event === 'retry');
    const apiRetries = retriesOf(api.stderr);
    expect(apiRetries.length).toBeGreaterThan(0);
    for (const r of apiRetries)
      expect(r).toMatchObject({
        status: 429,
        family: expect.any(String),
        attempt: expect.any(Number),
        wait_ms: expect.any(Number),
      });

    const id = (JSON.parse(api.stdout.split('\n')[0]!) as { session_replays: { replay_id: string }[] })
      .session_replays[0]!.replay_id;
    // Enough one-replay exports to the terminal's stdout that some of their requests are answered 429.
    const waits: Record<string, unknown>[] = [];
    for (let i = 0; i < 3; i++) {
      const one = await runCli(['--log-format', 'json', 'export', id, '--out', '-'], sandboxEnv(sandbox));
      expect(one.code, one.stderr).toBe(0);
      waits.push(...retriesOf(one.stderr));
    }
    expect(waits.length).toBeGreaterThan(0);
  });

  test('text mode: retries are debug lines shown with --verbose, counted in the summary', async () => {
    const quiet = await runCli(['archive', '--out', join(work.dir, 'text'), '--settle', '0'], sandboxEnv(sandbox));
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain('debug:');
    const n = Number(/; (\d+) API retr(?:y|ies)/.exec(quiet.stderr)?.[1]);
    expect(n).toBeGreaterThan(0);
    const verbose = await runCli(
      ['--verbose', 'archive', '--out', join(work.dir, 'text-v'), '--settle', '0'],
      sandboxEnv(sandbox),
    );
    const lines = verbose.stderr.split('\n').filter((l) => l.startsWith('debug: retrying'));
    expect(lines.length).toBeGreaterThan(0);
    // A 429 names its limit: the sandbox's rateLimitEvery switch is a rate limit ("request rate").
    expect(lines[0]).toMatch(
      /^debug: retrying: 429 replay rate limit \(request rate\), waiting \d+(\.\d+)? m?s, attempt \d+\/\d+$/,
    );
    expect(verbose.stderr).toContain(`; ${lines.length} API retr`);
  });

  test('--quiet prints only errors and the summary', async () => {
    const res = await runCli(
      ['--quiet', 'archive', '--out', join(work.dir, 'quiet'), '--settle', '0'],
      sandboxEnv(sandbox),
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^Summary .*ok 6, failed 0/)]);
  });

  test('--region with --endpoint or --sandbox is ignored with a warning', async () => {
    const res = await runCli(['--region', 'eu', 'list', '--max', '1'], sandboxEnv(sandbox));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/^warn: --region eu is ignored with --endpoint/m);
    const sb = await runCli(['--sandbox', '--region', 'eu', 'archive', '--out', join(work.dir, 'sb')], {});
    expect(sb.stderr).toMatch(/^warn: --region eu is ignored with --sandbox/m);
    const none = await runCli(['list', '--max', '1'], sandboxEnv(sandbox));
    expect(none.stderr).not.toContain('--region');
  });

  test('secrets given as flags: one line names the environment variables to use instead (never the secrets)', async () => {
    const { apiKey, secretKey } = sandbox.credentials;
    const env = sandboxEnv(sandbox);
    delete env.PLATFORM_API_KEY;
    delete env.PLATFORM_SECRET_KEY;
    const res = await runCli(['--api-key', apiKey, '--secret-key', secretKey, 'list', '--max', '1'], env);
    expect(res.code, res.stderr).toBe(0);
    const hints = res.stderr.split('\n').filter((l) => l.includes('process'));
    expect(hints).toHaveLength(1);
    expect(hints[0]).toMatch(/^warn: .*PLATFORM_API_KEY=… for --api-key, PLATFORM_SECRET_KEY=… for --secret-key/);
    expect(res.stderr).not.toContain(apiKey);
    const mgmt = await runCli(
      ['api', 'experiments.list', '--management-key', 'a-management-key-123'],
      sandboxEnv(sandbox),
    );
    expect(mgmt.stderr).toMatch(/PLATFORM_MANAGEMENT_KEY=… for --management-key/);
    expect(mgmt.stderr).not.toContain('a-management-key-123');
    const fromEnv = await runCli(['list', '--max', '1'], sandboxEnv(sandbox));
    expect(fromEnv.stderr).not.toMatch(/process/);
  });

  test('forget with neither --user nor --replay says what to give (exit 2)', async () => {
    const res = await runCli(['forget', '--out', join(work.dir, 'nothing')], {});
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/forget needs what to forget: --user <platform_id> \(a user\) or --replay <replay_id>/);
    expect(res.stderr).not.toContain('not both');
  });

  test('piped: a periodic progress status line (--status-every), for cron logs; 0 turns it off', async () => {
    const env = sandboxEnv(sandbox);
    const text = await runCli(
      ['--status-every', '1ms', 'archive', '--out', join(work.dir, 'status-text'), '--settle', '0s'],
      env,
    );
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(
      /^progress: \d+s, (\d+ done, \d+ listed, listing…|\d+\/\d+ replays, listed, ETA \S+), /m,
    );
    const json = await runCli(
      [
        '--log-format',
        'json',
        '--status-every',
        '1ms',
        'archive',
        '--out',
        join(work.dir, 'status-json'),
        '--settle',
        '0s',
      ],
      env,
    );
    expect(records(json.stderr).find((r) => r.event === 'status')).toMatchObject({
      level: 'info',
      done: expect.any(Number),
      listed: expect.any(Number),
    });
    const off = await runCli(
      ['--status-every', '0', 'archive', '--out', join(work.dir, 'status-off'), '--settle', '0s'],
      env,
    );
    expect(off.stderr).not.toMatch(/^progress:/m);
    const bad = await runCli(['--status-every', 'often', 'archive', '--out', join(work.dir, 'status-bad')], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--status-every');
  });

  test('a one-off export prints the full written path (a file:// link for html)', async () => {
    const id = sandbox.replays()[0]!.replayId;
    const out = join(work.dir, 'one');
    const json = await runCli(['export', id, '--out', out], sandboxEnv(sandbox));
    expect(json.code, json.stderr).toBe(0);
    const path = /^ok \S+ → (\S+) \(/m.exec(json.stderr)?.[1];
    expect(path?.startsWith(resolve(out) + '/')).toBe(true);
    const html = await runCli(['export', id, '--out', out, '--format', 'html'], sandboxEnv(sandbox));
    const link = /^ok \S+ → (\S+) \(/m.exec(html.stderr)?.[1];
    expect(link?.startsWith(pathToFileURL(resolve(out)).href + '/')).toBe(true);
    expect(link).toMatch(/\.html$/);
  });

  test('no summary before an error that stopped the run before it started', async () => {
    // A file given as the output folder (the earlier run's manifest snapshot).
    const res = await runCli(
      ['archive', '--out', join(work.dir, 'quiet', '_manifest', 'snapshot.ndjson')],
      sandboxEnv(sandbox),
    );
    expect(res.code).not.toBe(0);
    expect(res.stderr).not.toContain('Summary');
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });
});
