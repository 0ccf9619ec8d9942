/**
 * Where the sandbox answered otherwise than the spec says (issue #43), over real HTTP: the analytics host's
 * concurrency limit holds with no added latency and counts only that host's requests, its 429 comes in the family's
 * own error shape, conversation parts cannot be nested, list pages have no maximum size, and every option is reachable
 * from `replay-export sandbox`.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { parseOptionsFlag } from '../../src/sandbox/options-flag.js';
import { spawnCli } from '../cli/cli-helpers.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const basic = (sb: Sandbox): string =>
  `Basic ${Buffer.from(`${sb.credentials.apiKey}:${sb.credentials.secretKey}`).toString('base64')}`;

/** Reads HTTP/1.1 answers from a socket, one at a time (Content-Length bodies). */
function answers(s: Socket): () => Promise<{ status: number; head: string; body: string }> {
  let buf = '';
  let wake: (() => void) | undefined;
  s.setEncoding('utf8');
  s.on('data', (d: string) => {
    buf += d;
    wake?.();
  });
  return async () => {
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = buf.slice(0, end);
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length >= end + 4 + length) {
          const body = buf.slice(end + 4, end + 4 + length);
          buf = buf.slice(end + 4 + length);
          return { status: Number(head.slice(9, 12)), head, body };
        }
      }
      await new Promise<void>((r) => (wake = r));
    }
  };
}

/**
 * `n` keep-alive connections the sandbox has taken (each has been answered once, a control route outside the limits),
 * so that requests written on all of them in one go reach it together.
 */
async function connections(sb: Sandbox, n: number): Promise<{ socket: Socket; next: ReturnType<typeof answers> }[]> {
  const { port } = new URL(sb.url);
  const conns = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect(Number(port), '127.0.0.1', () => resolve(s));
          s.once('error', reject);
        }),
    ),
  );
  const out = conns.map((socket) => ({ socket, next: answers(socket) }));
  for (const c of out) c.socket.write('GET /__sandbox/stats HTTP/1.1\r\nHost: x\r\n\r\n');
  await Promise.all(out.map((c) => c.next()));
  return out;
}

/** Writes one request on each connection in one go and reads each answer. */
async function together(
  conns: Awaited<ReturnType<typeof connections>>,
  request: (i: number) => string,
): Promise<{ status: number; head: string; body: string }[]> {
  conns.forEach((c, i) => c.socket.write(request(i)));
  const out = await Promise.all(conns.map((c) => c.next()));
  for (const c of conns) c.socket.destroy();
  return out;
}

describe('the analytics host concurrency limit', () => {
  it('holds with no added latency: of 8 requests that arrive together, 5 are served and 3 refused', async () => {
    sandbox = await startSandbox();
    const sb = sandbox;
    const answered = await together(
      await connections(sb, 8),
      () => `GET /api/2/events/list HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic(sb)}\r\n\r\n`,
    );
    const statuses = answered.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    expect(sb.apiCounters()).toEqual({ peakInFlight: 5, concurrencyLimited: 3 });
  });

  it('management and feedback, on hosts of their own, do not count against it', async () => {
    sandbox = await startSandbox();
    const sb = sandbox;
    const body = JSON.stringify({ source_id: 's', items: [{ unique_id: 'u', body: 'b' }] });
    const answered = await together(await connections(sb, 8), (i) =>
      i % 2 === 0
        ? `GET /api/1/flags HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sb.credentials.managementKey}\r\n\r\n`
        : `POST /api/1/ai-feedback/ingest HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic(sb)}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    expect(answered.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(sb.apiCounters().concurrencyLimited).toBe(0);
  });

  it("a taxonomy request refused by it gets the taxonomy's failure body, as its other failures", async () => {
    sandbox = await startSandbox({ apiConcurrency: 1 });
    const sb = sandbox;
    const answered = await together(
      await connections(sb, 2),
      () => `GET /api/2/taxonomy/category HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic(sb)}\r\n\r\n`,
    );
    const refused = answered.find((a) => a.status === 429)!;
    expect(refused.head).toMatch(/\r\nretry-after: 1(\r\n|$)/i);
    expect(JSON.parse(refused.body)).toEqual({
      success: false,
      errors: [
        {
          message: expect.stringContaining('concurrent requests across all REST endpoints limit exceeded: 1 requests'),
        },
      ],
    });
  });
});

describe('feedback ingestion', () => {
  it('refuses a conversation part that has parts of its own ("cannot be nested")', async () => {
    sandbox = await startSandbox();
    const res = await fetch(`${sandbox.url}/api/1/ai-feedback/ingest`, {
      method: 'POST',
      headers: { authorization: basic(sandbox), 'content-type': 'application/json' },
      body: JSON.stringify({
        source_id: 's',
        items: [
          {
            unique_id: 'item',
            body: 'top',
            conversation_parts: [{ unique_id: 'p', body: 'part', conversation_parts: [{ body: 'nested' }] }],
          },
        ],
      }),
    });
    expect(await res.json()).toEqual({
      ingested: 0,
      failed: 1,
      errors: [{ unique_id: 'item', error: expect.stringContaining('cannot be nested') }],
    });
    expect(sandbox.feedbackItems('s')).toEqual([]);
  });
});

describe('session replay pages', () => {
  it('hold as many replays as page_size asks for: the spec states no maximum', async () => {
    sandbox = await startSandbox({ replicas: 300 });
    const res = await fetch(`${sandbox.url}/api/1/session-replays?page_size=250`, {
      headers: { authorization: basic(sandbox) },
    });
    const page = (await res.json()) as { session_replays: unknown[]; next_page_token: string | null };
    expect(page.session_replays).toHaveLength(250);
    expect(page.next_page_token).toEqual(expect.any(String));
  });
});

describe('replay-export sandbox: every option from the command line', () => {
  it('--options takes key=value pairs (dotted keys for nested ones) or JSON, checked as the library checks them', () => {
    expect(
      parseOptionsFlag(
        'apiConcurrency=0,timeScale=0.01,limits.dashboardConcurrentCost=300,sortOrder=asc,held=a/1|b/2,ignoreTimeFilters=true,hiddenTail.a/1=2',
      ),
    ).toEqual({
      apiConcurrency: 0,
      timeScale: 0.01,
      limits: { dashboardConcurrentCost: 300 },
      sortOrder: 'asc',
      held: ['a/1', 'b/2'],
      ignoreTimeFilters: true,
      hiddenTail: { 'a/1': 2 },
    });
    expect(parseOptionsFlag('{"listGrowth":{"perPage":2,"pages":1}}')).toEqual({
      listGrowth: { perPage: 2, pages: 1 },
    });
    expect(() => parseOptionsFlag('latencyMs=5')).toThrow(/latencyMs is not a sandbox option/);
    expect(() => parseOptionsFlag('limits.nope=5')).toThrow(/limits\.nope is not a limit/);
    expect(() => parseOptionsFlag('timeScale=-1')).toThrow(/timeScale must be a positive number/);
  });

  it('--ignore-time-filters and --options reach the running sandbox', async () => {
    const { child, done } = spawnCli([
      'sandbox',
      '--ignore-time-filters',
      '--options',
      'apiConcurrency=0,sortOrder=asc',
    ]);
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString('utf8');
        const m = /^url=(\S+)$/m.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('close', () => reject(new Error(`sandbox ended before printing its url: ${out}`)));
    });
    try {
      const auth = `Basic ${Buffer.from('sandbox-api-key:sandbox-secret-key').toString('base64')}`;
      // A range in the far future: every replay all the same (ignored), oldest first (sortOrder=asc).
      const res = await fetch(`${url}/api/1/session-replays?start_time=2099-01-01T00:00:00Z`, {
        headers: { authorization: auth },
      });
      const starts = ((await res.json()) as { session_replays: { start_time: string }[] }).session_replays.map(
        (r) => r.start_time,
      );
      expect(starts.length).toBeGreaterThan(1);
      expect(starts).toEqual([...starts].sort());
    } finally {
      child.kill('SIGINT');
    }
    expect((await done).code).toBe(0);
  });
});
