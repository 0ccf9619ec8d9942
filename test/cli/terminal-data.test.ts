/**
 * A terminal gets only text (issue #40, item 4): data from outside that the CLI writes to stdout — a hostile server's
 * CSV, JSON and text answers to `api`, a replay's events from `decode` (and `export --out -`), `list --json` and
 * `archive --dry-run` lines — has its control characters escaped on a terminal (a pseudo-terminal: OSC 52 would
 * write the clipboard, OSC 8 make a link, CSI 2J clear the screen, U+009B is a CSI of its own, U+202E reverses what
 * follows), keeping JSON valid; in a pipe the bytes are the server's; `--raw` stays raw.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DataOutput, terminalText } from '../../bin/cli/terminal-output.js';
import { tempDir } from '../pipeline/helpers.js';
import { cleanEnv, runCli } from './cli-helpers.js';
import { runInPty } from './pty.js';

/** What a hostile server puts in its answers: OSC 52 (clipboard), OSC 8 (a link), CSI 2J, C1 CSI, a bidi override. */
const HOSTILE = '\x1b]52;c;cm0gLXJmIH4=\x07\x1b]8;;http://evil.test\x1b\\click\x1b]8;;\x1b\\\x1b[2J\u009b31m\u202e';
/** Any of them, raw. */
const RAW = /[\x1b\x07\u009b\u202e]/;

let server: Server;
let endpoint: string;
let work: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.startsWith('/api/3/chart/c1/csv')) {
      res.writeHead(200, { 'content-type': 'text/csv' }).end(`day,users\r\n20260101,${HOSTILE}\r\n`);
    } else if (req.url?.startsWith('/api/2/users')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { series: [[HOSTILE]], seriesLabels: [HOSTILE], xValues: ['2026-01-01'] } }));
    } else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  work = await tempDir('replay-export-terminal-data-');
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await work.cleanup();
});

const env = (): NodeJS.ProcessEnv =>
  cleanEnv({ PLATFORM_API_KEY: 'k', PLATFORM_SECRET_KEY: 's', PLATFORM_ENDPOINT: endpoint });

describe('api on a terminal', () => {
  test('a CSV answer: every control escaped, its lines kept', async () => {
    const res = await runInPty(['api', 'dashboard.chart-csv', '--param', 'chart_id=c1'], env());
    expect(res.code, res.output).toBe(0);
    expect(res.output).not.toMatch(RAW);
    expect(res.output).toContain('\\x1b]52;c;cm0gLXJmIH4=\\x07');
    expect(res.output).toContain('\\x1b[2J\\x9b31m\\u202e');
    expect(res.output).toMatch(/^day,users\r?\r\n20260101,/m);
  }, 60_000);

  test('a JSON answer: controls written as JSON escapes (the same value)', async () => {
    const res = await runInPty(
      ['api', 'dashboard.active-users', '--param', 'start=20260101', '--param', 'end=20260102'],
      env(),
    );
    expect(res.code, res.output).toBe(0);
    expect(res.output).not.toMatch(RAW);
    // `api` prints the API's answer as it came (gh api's habit): the labels under `data`.
    const json = JSON.parse(res.output.replace(/\r\n/g, '\n')) as { data: { seriesLabels: string[] } };
    expect(json.data.seriesLabels).toEqual([HOSTILE]);
  }, 60_000);

  test('in a pipe the answer is the server’s, byte for byte; --raw is raw on a terminal too', async () => {
    const piped = await runCli(['api', 'dashboard.chart-csv', '--param', 'chart_id=c1'], env());
    expect(piped.stdout).toBe(`day,users\r\n20260101,${HOSTILE}\r\n`);
    const raw = await runInPty(['api', 'dashboard.chart-csv', '--param', 'chart_id=c1', '--raw'], env());
    expect(raw.output).toMatch(RAW);
  }, 60_000);
});

describe('a replay on a terminal', () => {
  test('decode: a string of the recording with C1 and bidi controls is escaped, the JSON still parses', async () => {
    const file = join(work.dir, 'c1.json');
    const events = [
      { type: 4, data: { href: `http://x/${HOSTILE}` }, timestamp: 1 },
      { type: 2, data: {}, timestamp: 2 },
    ];
    await writeFile(file, JSON.stringify(events));
    const res = await runInPty(['decode', file], cleanEnv());
    expect(res.code, res.output).toBe(0);
    expect(res.output).not.toMatch(RAW);
    expect((JSON.parse(res.output) as typeof events)[0]!.data.href).toBe(`http://x/${HOSTILE}`);
  }, 60_000);
});

describe('find on a terminal', () => {
  /** An archive of one replay whose id, page URL and first error hold the hostile sequences. */
  async function hostileArchive(): Promise<string> {
    const dir = join(work.dir, 'find-archive');
    await mkdir(dir);
    const id = `dev\u009b/${HOSTILE}`;
    const entry = {
      replay_id: id,
      status: 'ok',
      key: 'dev/1.json',
      format: 'json',
      gzip: false,
      recorded_at: '2026-11-27T00:00:00.000Z',
      start_time: '2026-11-27T00:00:00.000Z',
      end_time: '2026-11-27T00:00:05.000Z',
      event_count: 3,
      bytes: 10,
      sha256: '0'.repeat(64),
      checks: { has_meta: true, has_full_snapshot: true, max_gap_ms: 0, timestamps_backwards: false },
      facts: {
        pages: 1,
        urls: [`https://shop.example/${HOSTILE}\nnext`],
        clicks: 0,
        rage_clicks: 0,
        dead_clicks: 0,
        errors: 1,
        first_error: `TypeError: ${HOSTILE}`,
        first_error_ms: 10,
        duration_ms: 5000,
        active_ms: 5000,
      },
    };
    await writeFile(join(dir, 'manifest.ndjson'), `${JSON.stringify(entry)}\n`);
    return dir;
  }

  test('table, NDJSON and ids: what the recording holds is escaped; the JSON keeps its values', async () => {
    const archive = await hostileArchive();
    const env = { ...cleanEnv(), REPLAY_EXPORT_CATALOGUE_DIR: join(work.dir, 'find-catalogues') };
    for (const format of ['table', 'ndjson', 'ids']) {
      const res = await runInPty(['find', archive, '--format', format], env, 200);
      // An id with control characters is not written one a line: named (JSON-escaped) on stderr, exit 1.
      expect(res.code, `${format}: ${res.output}`).toBe(format === 'ids' ? 1 : 0);
      expect(res.output, format).not.toMatch(RAW);
      expect(res.output, format).toContain(format === 'table' ? '\\x9b' : '\\u009b');
      if (format === 'ids') expect(res.output).toContain('holds a control character: not written (use --null)');
      if (format === 'ndjson') {
        const line = res.output.split('\r\n').find((l) => l.startsWith('{'))!;
        const row = JSON.parse(line) as { replay_id: string; urls: string[]; first_error: string };
        expect(row.replay_id).toBe(`dev\u009b/${HOSTILE}`);
        // One URL, read as a browser's URL parser reads it (no line break: the catalogue keeps URLs one a line).
        expect(row.urls).toEqual([`https://shop.example/${HOSTILE}next`]);
        expect(row.first_error).toBe(`TypeError: ${HOSTILE}`);
      }
    }
  }, 60_000);
});

describe('the writer', () => {
  test('text keeps line feeds, tabs and CR LF; a lone CR, DEL and C1 are escaped', () => {
    expect(terminalText('a\tb\r\nc\rd\x7f\u0085e\n', 'text')).toBe('a\tb\r\nc\\x0dd\\x7f\\x85e\n');
    expect(terminalText('"\u009b\u{e0041}"', 'json')).toBe('"\\u009b\\udb40\\udc41"');
  });

  test('a character cut between two chunks is escaped whole; not on a terminal, the bytes pass', async () => {
    const chunks: string[] = [];
    const sink = Object.assign(
      new (await import('node:stream')).Writable({
        write(chunk: Buffer, _enc, done) {
          chunks.push(chunk.toString('utf8'));
          done();
        },
      }),
      { isTTY: true },
    );
    const out = new DataOutput(sink, 'json');
    const bytes = Buffer.from('"\u009b"', 'utf8');
    await out.write(bytes.subarray(0, 2));
    await out.write(bytes.subarray(2));
    await out.end();
    expect(chunks.join('')).toBe('"\\u009b"');
  });
});
