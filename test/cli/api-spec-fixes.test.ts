/**
 * Where `api` and the clients read the spec otherwise than it says (issue #43, item 1), against the sandbox: a single
 * replay.list page filtered by its time range, help and validation from one declaration (types and values), the
 * budget each operation is charged to, Retry-After as given, and no wait announced before a refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserMappingClient } from '../../src/clients/index.js';
import { Transport, WaitLimitExceededError } from '../../src/http/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { json, startTestServer } from '../http/helpers/test-server.js';
import { runCliInProcess, sandboxEnv } from './cli-helpers.js';

let sandbox: Sandbox;
const MONTHS = ['2026-01-15', '2026-06-15', '2026-12-15'];
beforeAll(async () => {
  // The platform may ignore start_time/end_time (the spec does not name them): this sandbox does.
  sandbox = await startSandbox({
    ignoreTimeFilters: true,
    extraReplays: MONTHS.map((day, i) => ({
      replay_id: `month-${i}/${Date.parse(day)}`,
      sample: 'form-typing',
      start_time: `${day}T10:00:00.000Z`,
      end_time: `${day}T10:05:00.000Z`,
    })),
  });
});
afterAll(() => sandbox.close());

const api = (args: string[]) => runCliInProcess(['api', ...args], { env: sandboxEnv(sandbox) });

describe('replay.list, one page', () => {
  it('holds only the replays of the range, whatever the platform did with start_time/end_time', async () => {
    const range = ['--param', 'startTime=2026-05-01T00:00:00Z', '--param', 'endTime=2026-07-31T23:59:59Z'];
    const res = await api(['replay.list', '--param', 'pageSize=100', ...range]);
    expect(res.code, res.stderr).toBe(0);
    const page = JSON.parse(res.stdout) as { session_replays: { replay_id: string }[] };
    expect(page.session_replays.map((r) => r.replay_id)).toEqual([`month-1/${Date.parse(MONTHS[1]!)}`]);
    // --raw: the page as the platform answered it, every replay in it.
    const raw = await api(['replay.list', '--param', 'pageSize=100', '--raw', ...range]);
    expect((JSON.parse(raw.stdout) as { session_replays: unknown[] }).session_replays.length).toBeGreaterThan(1);
    // --paginate: the same filter on every page.
    const pages = await api(['replay.list', '--param', 'pageSize=2', '--paginate', ...range]);
    const ids = pages.stdout
      .trim()
      .split('\n')
      .flatMap((l) => (JSON.parse(l) as { session_replays: { replay_id: string }[] }).session_replays)
      .map((r) => r.replay_id);
    expect(ids).toEqual([`month-1/${Date.parse(MONTHS[1]!)}`]);
  });
});

describe('help and validation from one declaration', () => {
  it('integer parameters show as integers, and fixed values as the values', async () => {
    const activity = await api(['dashboard.user-activity', '--help']);
    expect(activity.stdout).toMatch(/--param user=<integer>\s+\(required\)/);
    const list = await api(['replay.list', '--help']);
    expect(list.stdout).toMatch(/--param platformId=<integer>/);
    expect(list.stdout).toMatch(/--param sortOrder=<asc\|desc>/);
    const files = await api(['replay.files', '--help']);
    expect(files.stdout).toMatch(/--param version=<2\|3>.*\(default 3\)/);
  });

  it("attribution.send's help offers what the client takes, and the client takes what it offers", async () => {
    const help = await api(['attribution.send', '--help']);
    expect(help.stdout).toMatch(/--param encoding=<form\|query>.*\(default form\)/);
    expect(help.stdout).not.toContain('auto');
    const auto = await runCliInProcess(['api', 'attribution.send', '--param', 'encoding=auto', '--body', '-'], {
      env: sandboxEnv(sandbox),
      stdin: JSON.stringify({ event_type: 'install', idfa: 'x' }),
    });
    expect(auto.code).toBe(2);
    expect(auto.stderr).toMatch(/^ {2}field: encoding$/m);
    expect(auto.stderr).toContain('must be one of form, query');
    const mapping = await api(['user-mapping.unmap', '--help']);
    expect(mapping.stdout).toMatch(/--param encoding=<auto\|query\|form>/);
  });
});

describe('budgets and waits', () => {
  it('get mappings is not charged to the dashboard budgets', async () => {
    const transport = new Transport({
      endpoint: sandbox.url,
      credentials: { ...sandbox.credentials },
      // One dashboard query per hour, and no wait allowed: a charged call would stop the second time.
      budgets: { dashboard: [{ name: 'tiny', limit: 1, windowMs: 3_600_000 }] },
      retry: { maxWaitMs: 0 },
    });
    try {
      const mapping = new UserMappingClient(transport);
      for (let i = 0; i < 3; i++) expect(await mapping.getMappings(['u1'])).toHaveProperty('u1');
    } finally {
      await transport.close();
    }
  });

  it('Retry-After is kept as the server gave it (300 s, not cut to 120 s); --max-wait bounds it', async () => {
    const server = await startTestServer((_q, res) => json(res, 429, { error: 'busy' }, { 'Retry-After': '300' }));
    const transport = new Transport({
      endpoint: server.url,
      credentials: { apiKey: 'k', secretKey: 's' },
      retry: { maxWaitMs: 1000 },
    });
    try {
      const err = await transport
        .request({ host: 'analytics', path: '/api/2/users', auth: 'basic', family: 'dashboard' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WaitLimitExceededError);
      expect(err).toMatchObject({ waitMs: 300_000, status: 429 });
    } finally {
      await transport.close();
      await server.close();
    }
    const help = await runCliInProcess(['api', '--help']);
    expect(help.stdout).toMatch(/--max-wait <duration>[\s\S]*Retry-After/);
  });

  it('a dashboard query over the whole concurrent cost fails at once, with no wait printed first', async () => {
    const res = await api([
      'dashboard.retention',
      '--param',
      'start=20260101',
      '--param',
      'end=20260720',
      '--param',
      'startingEvent={"event_type":"a"}',
      '--param',
      'returningEvent={"event_type":"b"}',
    ]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^ {2}code: COST_EXCEEDS_BUDGET$/m);
    expect(res.stderr).not.toMatch(/wait/i);
  });
});
