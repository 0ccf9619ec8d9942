/**
 * `api` with the habits of `gh api` (issue #43, item 2): -f/-F fields and where they go, repeated names, pass-through
 * parameters never replaced silently, -H, -i, --jq, --input, an error's answer on stdout, --paginate --slurp, and
 * completion of operation names. Through the CLI against the sandbox, with a recording relay in front of it (what
 * went over the wire).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { startRelay, type Exchange } from './api-relay.js';
import { cleanEnv, runCliInProcess } from './cli-helpers.js';

let sandbox: Sandbox;
let relay: Server;
let env: NodeJS.ProcessEnv;
let dir: string;
const seen: Exchange[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({});
  relay = await startRelay(new URL(sandbox.url), seen);
  env = cleanEnv({
    PLATFORM_API_KEY: sandbox.credentials.apiKey,
    PLATFORM_SECRET_KEY: sandbox.credentials.secretKey,
    PLATFORM_MANAGEMENT_KEY: sandbox.credentials.managementKey,
    PLATFORM_ENDPOINT: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`,
  });
  dir = await mkdtemp(join(tmpdir(), 'replay-export-api-'));
});
afterAll(async () => {
  await new Promise((resolve) => relay.close(resolve));
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  seen.length = 0;
});

const api = (args: string[], stdin?: string) =>
  runCliInProcess(['api', ...args], { env, ...(stdin !== undefined ? { stdin } : {}) });
const queryOf = (e: Exchange): URLSearchParams => new URL(e.url, 'http://x').searchParams;

describe('-f and -F', () => {
  test('a field naming a parameter is that parameter, typed and checked; on a GET the others go in the query, each time given', async () => {
    const res = await api(['replay.list', '-F', 'page_size=2', '-f', 'sort_order=asc', '-f', 'x=1', '-F', 'x=2']);
    expect(res.code, res.stderr).toBe(0);
    const q = queryOf(seen[0]!);
    expect(q.get('page_size')).toBe('2');
    expect(q.get('sort_order')).toBe('asc');
    expect(q.getAll('x')).toEqual(['1', '2']);
    expect(seen[0]!.requestBody).toBe('');
    expect(res.stderr).toMatch(/^warn: unchecked: -f x, -F x not in the spec's parameters of replay\.list/m);
    const bad = await api(['replay.list', '-F', 'page_size=two']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^ {2}field: pageSize$/m);
  });

  test('key[]= builds an array (a repeated parameter on the wire), @file reads a file', async () => {
    const ids = sandbox.replays().map((r) => r.replayId);
    const res = await api(['replay.list', '-F', `replay_id[]=${ids[0]}`, '-F', `replay_id[]=${ids[1]}`]);
    expect(res.code, res.stderr).toBe(0);
    expect(queryOf(seen[0]!).getAll('replay_id')).toEqual([ids[0], ids[1]]);
    seen.length = 0;
    const event = join(dir, 'event.json');
    await writeFile(event, JSON.stringify({ event_type: 'Page Viewed' }));
    const seg = await api([
      'dashboard.segmentation',
      '-f',
      'start=20261101',
      '-f',
      'end=20261102',
      '-F',
      `e=@${event}`,
    ]);
    expect(seg.code, seg.stderr).toBe(0);
    expect(JSON.parse(queryOf(seen[0]!).get('e')!)).toEqual({ event_type: 'Page Viewed' });
  });

  test('on a call with an object body, the fields build it (typed, nested) and the client checks it', async () => {
    const res = await api([
      'flags.create',
      '-f',
      'key=from-fields',
      '-f',
      'variants[][key]=on',
      '-f',
      'variants[][key]=off',
      '-F',
      'rolloutWeights[on]=1',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(seen[0]!.requestBody)).toEqual({
      key: 'from-fields',
      variants: [{ key: 'on' }, { key: 'off' }],
      rolloutWeights: { on: 1 },
    });
    const id = (JSON.parse(res.stdout) as { id: string }).id;
    seen.length = 0;
    const edit = await api(['flags.update', '-f', `id=${id}`, '-F', 'enabled=true', '-F', 'rolloutPercentage=50']);
    expect(edit.code, edit.stderr).toBe(0);
    expect(JSON.parse(seen[0]!.requestBody)).toEqual({ enabled: true, rolloutPercentage: 50 });
    const twice = await api(['flags.create', '-f', 'key=a', '-f', 'key=b']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('-f key: given twice for one JSON body; for an array give key[]=value');
    const unknown = await api(['flags.create', '-f', 'key=a', '-f', 'colour=red']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/field: body\.colour|colour/);
  });
});

describe('pass-through parameters and headers', () => {
  test('a pass-through name the request sets itself is refused, never replaced: api_key, a parameter', async () => {
    const key = await api(['user-mapping.unmap', '-f', 'userIds=u1', '--query', 'api_key=OTHER']);
    expect(key.code).toBe(2);
    expect(key.stderr).toContain(`pass-through query parameter "api_key" would replace the request's own`);
    const size = await api(['replay.list', '--param', 'pageSize=2', '--query', 'page_size=5']);
    expect(size.code).toBe(2);
    expect(size.stderr).toContain('pass-through query parameter "page_size"');
    expect(seen).toEqual([]);
  });

  test('-H sends a header as given; one the transport writes from the request is refused', async () => {
    const res = await api(['dashboard.realtime', '-H', 'X-Request-Note: from the shell', '-H', 'Accept: text/plain']);
    expect(res.code, res.stderr).toBe(0);
    expect(seen[0]!.headers['x-request-note']).toBe('from the shell');
    expect(seen[0]!.headers.accept).toBe('text/plain');
    const bad = await api(['dashboard.realtime', '-H', 'Content-Length: 5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('header Content-Length is written from the request itself');
  });
});

describe('what is printed', () => {
  test("the API's answer, as it came (JSON indented): a dashboard query's {data}, a taxonomy read's {success, data}", async () => {
    for (const op of ['dashboard.realtime', 'taxonomy.categories.list']) {
      seen.length = 0;
      const res = await api([op]);
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout)).toEqual(JSON.parse(seen[0]!.responseBody.toString('utf8')));
      expect(res.stdout).toBe(`${JSON.stringify(JSON.parse(res.stdout), null, 2)}\n`);
    }
  });

  test('-i: the status line and headers, an empty line, then the answer', async () => {
    const res = await api(['taxonomy.categories.list', '-i']);
    expect(res.code, res.stderr).toBe(0);
    const [head, body] = [
      res.stdout.slice(0, res.stdout.indexOf('\r\n\r\n')),
      res.stdout.slice(res.stdout.indexOf('\r\n\r\n') + 4),
    ];
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toMatch(/\r\ncontent-type: application\/json/);
    expect(JSON.parse(body)).toEqual({ success: true, data: expect.any(Array) });
  });

  test('--jq over each answer: strings raw, values as JSON, one a line; a filter that does not compile stops first', async () => {
    const res = await api([
      'replay.list',
      '--param',
      'pageSize=3',
      '--jq',
      '.session_replays[] | .replay_id, .platform_id',
    ]);
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^[^"]+\/\d+$/);
    expect(lines[1]).toMatch(/^\d+$/);
    seen.length = 0;
    const bad = await api(['replay.list', '--jq', '.[']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--jq: jq: error: syntax error');
    expect(seen).toEqual([]);
  });

  test("--paginate --slurp: every page's answer in one array (the pages --paginate prints one a line)", async () => {
    const lines = await api(['replay.list', '--param', 'pageSize=2', '--paginate']);
    const slurped = await api(['replay.list', '--param', 'pageSize=2', '--paginate', '--slurp']);
    expect(slurped.code, slurped.stderr).toBe(0);
    expect(JSON.parse(slurped.stdout)).toEqual(
      lines.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    );
    const n = await api([
      'replay.list',
      '--param',
      'pageSize=2',
      '--paginate',
      '--slurp',
      '--jq',
      'map(.session_replays | length) | add',
    ]);
    expect(n.stdout).toBe(`${sandbox.replays().length}\n`);
  });

  test('--silent prints no body: the exit status and stderr say how it went', async () => {
    const ok = await api(['taxonomy.categories.list', '--silent']);
    expect(ok).toMatchObject({ code: 0, stdout: '' });
    const failed = await api(['taxonomy.categories.get', '-f', 'category_name=none-such', '--silent']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/^ {2}status: 400$/m);
    const head = await api(['taxonomy.categories.list', '--silent', '-i']);
    expect(head.stdout).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n$/);
  });

  test("an error's answer goes to stdout, its message to stderr, and the exit status is not 0", async () => {
    const res = await api(['taxonomy.categories.get', '-f', 'category_name=none-such']);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toEqual(JSON.parse(seen[0]!.responseBody.toString('utf8')));
    expect(res.stderr).toMatch(/^ {2}status: 400$/m);
    const raw = await api(['experiments.get', '--param', 'id=none-such', '--raw']);
    expect(raw.code).toBe(1);
    expect(raw.stdout).toBe(seen[1]!.responseBody.toString('utf8'));
    expect(seen[1]!.status).toBe(404);
  });
});

describe('--input', () => {
  test('sends the bytes as given with the Content-Type of the operation, or of -H', async () => {
    const bytes = `{"source_id":"raw","items":[{"unique_id":"r1","body":"as given"}]}\n`;
    const res = await api(['feedback.ingest', '--input', '-'], bytes);
    expect(res.code, res.stderr).toBe(0);
    expect(seen[0]!.requestBody).toBe(bytes);
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.stdout)).toMatchObject({ ingested: 1, failed: 0 });
    seen.length = 0;
    const form = await api(['taxonomy.categories.create', '--input', '-'], 'category_name=raw-category');
    expect(form.code, form.stderr).toBe(0);
    expect(seen[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    seen.length = 0;
    const typed = await api(
      ['feedback.ingest', '--input', '-', '-H', 'Content-Type: application/json; charset=utf-8'],
      bytes,
    );
    expect(typed.code, typed.stderr).toBe(0);
    expect(seen[0]!.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

describe('completion', () => {
  test('the bash and zsh scripts complete operation names after api', async () => {
    for (const shell of ['bash', 'zsh']) {
      const res = await runCliInProcess(['completion', shell]);
      expect(res.code).toBe(0);
      const args = / {4}api\) opts="[^"]*--jq[^"]*"; args="([^"]*)"/.exec(res.stdout)?.[1]?.split(' ');
      expect(args).toEqual(expect.arrayContaining(['dashboard.segmentation', 'flags.variants.create', 'replay.list']));
    }
  });
});
