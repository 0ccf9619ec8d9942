/**
 * `api` as a scripting tool (issue #27): waits logged and bounded (`--max-wait`, `--no-retry`, `--request-deadline`),
 * `--query`/`--field` passed through to the server, the spec's parameter names, `--raw`, a mutation's answer, and
 * structured errors. Through the CLI against the sandbox, with a loopback relay in front of it that records what
 * went over the wire.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { OperationArgs, OPERATIONS, type ParamSpec } from '../../src/clients/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { startRelay, type Exchange } from './api-relay.js';
import { cleanEnv, runCli, runCliInProcess } from './cli-helpers.js';

let sandbox: Sandbox;
let relay: Server;
let relayUrl: string;
const seen: Exchange[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({});
  relay = await startRelay(new URL(sandbox.url), seen);
  relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => relay.close(resolve));
  await sandbox.close();
});
beforeEach(() => {
  seen.length = 0;
  sandbox.setFaults({ rateLimitEvery: 0, retryAfterSeconds: 0, latencyMs: 0 });
});

const env = (): NodeJS.ProcessEnv =>
  cleanEnv({
    PLATFORM_API_KEY: sandbox.credentials.apiKey,
    PLATFORM_SECRET_KEY: sandbox.credentials.secretKey,
    PLATFORM_MANAGEMENT_KEY: sandbox.credentials.managementKey,
    PLATFORM_ENDPOINT: relayUrl,
  });
const api = (args: string[]) => runCli(['api', ...args], env());
const jsonApi = (args: string[]) => runCli(['--log-format', 'json', 'api', ...args], env());
const records = (stderr: string): Record<string, unknown>[] =>
  stderr
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const queryOf = (e: Exchange): URLSearchParams => new URL(e.url, 'http://x').searchParams;

describe('api: waits', () => {
  test('every wait is said on stderr (text and JSON), and --max-wait stops before a wait that would pass it', async () => {
    // Every request is answered 429 with Retry-After: 1: one wait of 1 s fits in 1s, the second would not.
    sandbox.setFaults({ rateLimitEvery: 1, retryAfterSeconds: 1 });
    const text = await api(['replay.list', '--param', 'pageSize=1', '--max-wait', '1s']);
    expect(text.code).toBe(1);
    // As gh api: the error's answer on stdout, what failed on stderr.
    expect(JSON.parse(text.stdout)).toMatchObject({ error: 'rate_limited', limit: 'request rate' });
    expect(text.stderr).toMatch(/^warn: retrying: 429 replay rate limit \(request rate\), waiting 1 s, attempt 2\/6$/m);
    expect(text.stderr.match(/retrying:/g)).toHaveLength(1);
    expect(text.stderr).toMatch(/^error: Stopped before waiting 1000 ms \(retry\) for GET \/api\/1\/session-replays/m);
    expect(text.stderr).toMatch(/^ {2}status: 429$/m);
    expect(text.stderr).toMatch(/^ {2}code: MAX_WAIT_EXCEEDED$/m);
    expect(seen.map((e) => e.status)).toEqual([429, 429]);

    seen.length = 0;
    const json = await jsonApi(['replay.list', '--param', 'pageSize=1', '--max-wait', '1s']);
    expect(json.code).toBe(1);
    const recs = records(json.stderr);
    expect(recs.filter((r) => r.event === 'retry')).toEqual([
      expect.objectContaining({
        level: 'warn',
        status: 429,
        attempt: 1,
        wait_ms: 1000,
        retry_after_ms: 1000,
        limit_kind: 'rate',
      }),
    ]);
    expect(recs.find((r) => r.event === 'fatal')).toMatchObject({
      exit_code: 1,
      code: 'MAX_WAIT_EXCEEDED',
      status: 429,
      server_messages: ['rate_limited', expect.stringContaining('rate limit exceeded')],
    });
    expect(seen).toHaveLength(2);
  });

  test('--max-wait also stops a wait for a budget: the mapping window after 2,000 of 4,000 mappings', async () => {
    const mappings = Array.from({ length: 4000 }, (_, i) => ({ user_id: `u${i}`, global_user_id: `g${i}` }));
    const res = await runCliInProcess(
      ['--log-format', 'json', 'api', 'user-mapping.map', '--body', '-', '--max-wait', '10s'],
      { env: env(), stdin: JSON.stringify(mappings) },
    );
    expect(res.code).toBe(1);
    const fatal = records(res.stderr).find((r) => r.event === 'fatal')!;
    // What a script must know: which mappings were applied, and why the rest were not.
    expect(fatal).toMatchObject({
      code: 'MAPPING_PARTIAL_FAILURE',
      msg: expect.stringMatching(
        /^usermap: the first 2000 of 4000 mapping objects were applied \(1 batch\); the other 2000 were not: Stopped before waiting \d+ ms \(mappings per 30 s\) for POST \/usermap/,
      ),
    });
    // The first batch went (2,000 mappings); the second was not sent.
    expect(seen).toHaveLength(1);
  });

  test('--no-retry: the first 429 ends the command with its error', async () => {
    sandbox.setFaults({ rateLimitEvery: 1, retryAfterSeconds: 30 });
    const res = await jsonApi(['replay.list', '--no-retry']);
    expect(res.code).toBe(1);
    expect(records(res.stderr).filter((r) => r.event === 'retry')).toEqual([]);
    expect(records(res.stderr).find((r) => r.event === 'fatal')).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(seen.map((e) => e.status)).toEqual([429]);
  });

  test('--request-deadline bounds one attempt', async () => {
    sandbox.setFaults({ latencyMs: 3000 });
    const res = await jsonApi(['replay.list', '--no-retry', '--request-deadline', '200ms']);
    expect(res.code).toBe(1);
    expect(records(res.stderr).find((r) => r.event === 'fatal')).toMatchObject({
      code: 'TIMEOUT',
      msg: expect.stringContaining('Request deadline (200 ms)'),
    });
  });
});

describe('api: what is sent and what is printed', () => {
  test('--query and --field reach the server as given; names the spec does not list are flagged, not refused', async () => {
    const res = await api([
      'replay.list',
      '--param',
      'pageSize=1',
      '--query',
      'interval=7',
      '--query',
      'sort_order=asc',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(
      /^warn: unchecked: --query interval not in the spec's parameters of replay\.list; sent as given$/m,
    );
    expect(res.stderr).not.toContain('sort_order not');
    const q = queryOf(seen[0]!);
    expect(q.get('interval')).toBe('7');
    expect(q.get('sort_order')).toBe('asc');
    expect(q.get('page_size')).toBe('1');

    seen.length = 0;
    // The sandbox, as strict as the spec's table, answers the field it does not know: it got there.
    const form = await api([
      'taxonomy.categories.create',
      '--param',
      'categoryName=scripted',
      '--field',
      'note=hello',
      '--field',
      'rank=3',
    ]);
    expect(form.stderr).toContain('unchecked: -F note, -F rank not in');
    expect(form.code).toBe(1);
    expect(form.stderr).toContain('server message: unknown field note');
    const sent = new URLSearchParams(seen[0]!.requestBody);
    expect(Object.fromEntries(sent)).toEqual({ category_name: 'scripted', note: 'hello', rank: '3' });
  });

  test("the spec's own parameter names are accepted beside the client's", async () => {
    const res = await api(['replay.list', '--param', 'page_size=2', '--param', 'sort_order=asc']);
    expect(res.code, res.stderr).toBe(0);
    expect((JSON.parse(res.stdout) as { session_replays: unknown[] }).session_replays).toHaveLength(2);
    expect(queryOf(seen[0]!).get('sort_order')).toBe('asc');
    const twice = await api(['replay.list', '--param', 'page_size=2', '--param', 'pageSize=3']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('given more than once');
  });

  test('every operation takes each parameter under the name the spec gives it', () => {
    const sample = (p: ParamSpec): string =>
      p.values?.[0] ?? { string: 'x', integer: '1', boolean: 'true', 'string[]': 'a,b', json: '{}' }[p.type];
    let aliases = 0;
    for (const op of OPERATIONS) {
      const required = op.params.filter((p) => p.required);
      for (const p of op.params) {
        if (p.wire === undefined) continue;
        aliases++;
        const pairs = [
          ...required.filter((r) => r !== p).map((r) => [r.name, sample(r)] as const),
          [p.wire, sample(p)] as const,
        ];
        expect(OperationArgs.parse(op.params, pairs).has(p.name), `${op.name} ${p.wire}`).toBe(true);
      }
    }
    expect(aliases).toBeGreaterThan(30);
  });

  test('--raw prints the body exactly as the server sent it (its own names)', async () => {
    const res = await api(['replay.list', '--param', 'pageSize=2', '--raw']);
    expect(res.code, res.stderr).toBe(0);
    expect(seen).toHaveLength(1);
    const body = seen[0]!.responseBody.toString('utf8');
    expect(res.stdout).toBe(body.endsWith('\n') ? body : `${body}\n`);
    expect(Object.keys(JSON.parse(res.stdout) as object)).toEqual(
      expect.arrayContaining(['session_replays', 'next_page_token']),
    );

    seen.length = 0;
    const pages = await api(['replay.list', '--param', 'pageSize=3', '--paginate', '--raw']);
    expect(pages.code, pages.stderr).toBe(0);
    expect(seen.length).toBeGreaterThan(1);
    expect(pages.stdout).toBe(
      seen
        .map((e) => e.responseBody.toString('utf8'))
        .map((b) => (b.endsWith('\n') ? b : `${b}\n`))
        .join(''),
    );
  });

  test("a mutation prints the API's answer: JSON parsed, text as text", async () => {
    const created = await api(['taxonomy.categories.create', '--param', 'category_name=answered']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual(JSON.parse(seen[0]!.responseBody.toString('utf8')));

    const flag = await runCliInProcess(['api', 'flags.create', '--body', '-'], {
      env: env(),
      stdin: JSON.stringify({ key: 'scripted-flag', name: 'n' }),
    });
    expect(flag.code, flag.stderr).toBe(0);
    const id = (JSON.parse(flag.stdout) as { id: string }).id;
    seen.length = 0;
    const variant = await runCliInProcess(['api', 'flags.variants.create', '--param', `id=${id}`, '--body', '-'], {
      env: env(),
      stdin: JSON.stringify({ key: 'on' }),
    });
    expect(variant.code, variant.stderr).toBe(0);
    const answer = seen[0]!.responseBody.toString('utf8');
    expect(answer).toBe('OK');
    expect(variant.stdout).toBe('OK\n');
  });
});

describe('api: errors', () => {
  test('an API error carries status, code and the server messages (JSON record, text lines)', async () => {
    const json = await jsonApi(['taxonomy.categories.get', '--param', 'categoryName=none-such']);
    expect(json.code).toBe(1);
    expect(records(json.stderr).find((r) => r.event === 'fatal')).toMatchObject({
      exit_code: 1,
      status: 400,
      code: 'API_ERROR',
      server_messages: ['category "none-such" not found'],
    });
    const text = await api(['taxonomy.categories.get', '--param', 'categoryName=none-such']);
    expect(text.stderr).toMatch(
      /^ {2}status: 400\n {2}code: API_ERROR\n {2}server message: category "none-such" not found$/m,
    );
  });

  test('a refused parameter names its field', async () => {
    const json = await jsonApi(['experiments.list', '--param', 'limit=ten']);
    expect(json.code).toBe(2);
    expect(records(json.stderr).find((r) => r.event === 'fatal')).toMatchObject({
      exit_code: 2,
      code: 'VALIDATION_ERROR',
      field: 'limit',
    });
    const text = await api(['experiments.list', '--param', 'limit=ten']);
    expect(text.stderr).toMatch(/^ {2}field: limit$/m);
    expect(seen).toEqual([]);
  });
});
