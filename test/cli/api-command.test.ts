import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/clients/index.js';
import { cleanEnv, runCli, runCliInProcess } from './cli-helpers.js';

describe('api command (catalogue from the command line)', () => {
  it('api --list prints every operation once: 71 operations, management ones under experiments.* and flags.*', async () => {
    const res = await runCli(['--sandbox', 'api', '--list']);
    expect(res.code).toBe(0);
    const names = res.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[0]);
    expect(names).toHaveLength(93);
    expect(new Set(names).size).toBe(93);
    const management = names.filter((n) => n!.startsWith('experiments.') || n!.startsWith('flags.'));
    expect(management).toHaveLength(44);
    expect(names.length - management.length / 2).toBe(71);
    for (const n of ['dashboard.segmentation', 'flags.variants.create', 'taxonomy.event-types.update', 'replay.files'])
      expect(names).toContain(n);
    expect(res.stdout).toMatch(/^dashboard\.segmentation\s+GET\s+start:string end:string segments\?:json event:json$/m);
  });

  it('api <operation> --help shows its parameters from the catalogue', async () => {
    const res = await runCli(['api', 'taxonomy.categories.update', '--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('PUT /api/2/taxonomy/category/{categoryId}');
    expect(res.stdout).toMatch(/--param categoryId=<integer>\s+\(required\)/);
    expect(res.stdout).toMatch(/--param categoryName=<string>\s+\(required\)/);
  });

  it("calls replay.list against --sandbox: one page's answer, and every page's with --paginate", async () => {
    const page = await runCli(['--sandbox', 'api', 'replay.list', '--param', 'pageSize=2']);
    expect(page.code, page.stderr).toBe(0);
    type Page = { session_replays: Array<{ replay_id: string }>; next_page_token: string | null };
    const body = JSON.parse(page.stdout) as Page;
    expect(body.session_replays).toHaveLength(2);
    expect(typeof body.next_page_token).toBe('string');

    const all = await runCli(['--sandbox', 'api', 'replay.list', '--param', 'pageSize=2', '--paginate']);
    expect(all.code, all.stderr).toBe(0);
    const pages = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Page);
    const records = pages.flatMap((p) => p.session_replays);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.at(-1)!.next_page_token).toBeNull();
    expect(new Set(records.map((r) => r.replay_id)).size).toBe(records.length);
    expect(records.slice(0, 2).map((r) => r.replay_id)).toEqual(body.session_replays.map((r) => r.replay_id));

    const files = await runCli([
      '--sandbox',
      'api',
      'replay.files',
      '--param',
      `replayId=${records[0]!.replay_id}`,
      '--paginate',
    ]);
    expect(files.code, files.stderr).toBe(0);
    for (const line of files.stdout.trim().split('\n')) {
      const filesPage = JSON.parse(line) as { files: string[] };
      expect(filesPage.files.length).toBeGreaterThan(0);
      for (const url of filesPage.files) expect(url).toMatch(/^http/);
    }
  });

  it('calls feedback.ingest against --sandbox with the body from stdin', async () => {
    const res = await runCliInProcess(['--sandbox', 'api', 'feedback.ingest', '--param', 'sourceId=s', '--body', '-'], {
      stdin: JSON.stringify([{ unique_id: 'a', body: 'hello' }]),
    });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ ingested: 1, failed: 0, errors: [] });
  });

  it('refuses bad parameters before any request (usage, exit 2)', async () => {
    const missing = await runCli(['--sandbox', 'api', 'dashboard.active-users', '--param', 'start=20260101']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Invalid end: is required');
    const badType = await runCli(['--sandbox', 'api', 'experiments.list', '--param', 'limit=ten']);
    expect(badType.code).toBe(2);
    expect(badType.stderr).toContain('Invalid limit: must be an integer');
    const unknown = await runCli(['--sandbox', 'api', 'no.such-operation']);
    expect(unknown.code).toBe(2);
    // A mistyped name gets the operation it most likely meant; a name like none gets no guess.
    const typo = await runCli(['api', 'dashbaord.retention']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean dashboard.retention?');
    const short = await runCli(['api', 'retention']);
    expect(short.stderr).toContain('did you mean dashboard.retention?');
    expect((await runCli(['api', 'no.such-operation'])).stderr).not.toContain('did you mean');
    const needsBody = await runCli(['--sandbox', 'api', 'flags.create']);
    expect(needsBody.code).toBe(2);
    expect(needsBody.stderr).toContain('needs a body: --body <file|->');
  });

  it('management operations need --management-key or PLATFORM_MANAGEMENT_KEY (auth, exit 3), and never print it', async () => {
    const res = await runCli(
      [
        '--endpoint',
        'http://127.0.0.1:9',
        '--api-key',
        'project-api-key-1',
        '--secret-key',
        'project-secret-key-1',
        'api',
        'flags.list',
      ],
      cleanEnv(),
    );
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('management API key');
    // A key given wins over the sandbox's own: the sandbox refuses it (401) and the error names no key.
    const keyed = await runCli(
      ['--sandbox', 'api', 'flags.get', '--param', 'id=1'],
      cleanEnv({ PLATFORM_MANAGEMENT_KEY: 'mk-SECRET-123' }),
    );
    expect(keyed.code).toBe(3);
    expect(keyed.stderr).toContain('GET /api/1/flags/1');
    expect(keyed.stderr + keyed.stdout).not.toContain('mk-SECRET-123');
  });

  it('--sandbox supplies its own management key: experiments and flags work without one', async () => {
    const res = await runCli(['--sandbox', 'api', 'flags.list'], cleanEnv());
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual([]);
  });
});

describe('operations catalogue', () => {
  it('names every {path parameter} of an operation among its parameters, with stable dotted names', () => {
    for (const op of OPERATIONS) {
      expect(op.name).toMatch(/^[a-z][a-z-]*(\.[a-z][a-z-]*)+$/);
      const names = op.params.map((p) => p.name);
      for (const [, p] of op.path.matchAll(/\{(\w+)\}/g)) expect(names, `${op.name} ${op.path}`).toContain(p);
    }
  });
});
