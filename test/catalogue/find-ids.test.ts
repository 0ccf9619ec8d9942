/**
 * `find --format ids` with hostile replay ids (they come from the platform's API): an id that cannot stand on a line
 * as it is (a line break, U+2028, any control character) is not written, but named on stderr JSON-escaped, and the
 * run ends with exit 1; `--null` writes every id as it is, NUL-terminated, refusing only an id that holds NUL.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../pipeline/helpers.js';
import { line } from '../sinks/helpers/entries.js';
import { cleanEnv, runCliInProcess, runCliSpawned } from '../cli/cli-helpers.js';

/** The archive's ids, oldest first; `find` lists them newest first. */
const ORDINARY = ['dev1/1795308171251', 'dev2/1795308171252', 'dev3/1795308171253'];
const BREAK = 'dev4/17953\n08171254';
const SEPARATOR = 'dev5/17953\u202808171255';
const NUL = 'dev6/17953\u000008171256';
const ESC = 'dev7/\u001b]52;c;cm0gLXJmIH4=\u0007';
const IDS = [ORDINARY[0]!, BREAK, ORDINARY[1]!, SEPARATOR, NUL, ESC, ORDINARY[2]!];
const NEWEST_FIRST = [...IDS].reverse();

let work: { dir: string; cleanup: () => Promise<void> };
let archive: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  work = await tempDir('replay-export-find-ids-');
  archive = join(work.dir, 'archive');
  env = { ...cleanEnv(), REPLAY_EXPORT_CATALOGUE_DIR: join(work.dir, 'catalogues') };
  const t0 = Date.parse('2026-11-01T00:00:00Z');
  const lines = IDS.map((replay_id, i) =>
    line({
      replay_id,
      status: 'failed',
      recorded_at: '2026-11-27T00:00:00.000Z',
      start_time: new Date(t0 + i * 60_000).toISOString(),
      error: { code: 'HTTP_ERROR', message: 'HTTP 500' },
    }),
  );
  await mkdir(archive);
  await writeFile(join(archive, 'manifest.ndjson'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
});

afterAll(async () => {
  await work?.cleanup();
});

const find = (...args: string[]) => runCliInProcess(['find', archive, ...args], { env });

/** stderr's lines but the catalogue's build. */
const refusals = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('catalogue built:'))
    .sort();

describe('find --format ids', () => {
  it('writes the ordinary ids one a line, names each other id JSON-escaped on stderr, and exits 1', async () => {
    const res = await find('--format', 'ids');
    expect(res.stdout).toBe(`${[...ORDINARY].reverse().join('\n')}\n`);
    expect(refusals(res.stderr)).toEqual(
      [
        'error: replay id "dev4/17953\\n08171254" holds a line break: not written (use --null)',
        'error: replay id "dev5/17953\\u202808171255" holds a line break: not written (use --null)',
        'error: replay id "dev6/17953\\u000008171256" holds a NUL: not written',
        'error: replay id "dev7/\\u001b]52;c;cm0gLXJmIH4=\\u0007" holds a control character: not written (use --null)',
      ].sort(),
    );
    expect(res.code).toBe(1);
  });

  it('says each refusal as a JSON record with the id itself with --log-format json', async () => {
    const res = await runCliInProcess(['--log-format', 'json', 'find', archive, '--format', 'ids'], { env });
    const records = res.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; event: string; replay_id?: string })
      .filter((r) => r.event === 'id_not_written');
    expect(records.map((r) => r.replay_id).sort()).toEqual([BREAK, SEPARATOR, NUL, ESC].sort());
    expect(records.every((r) => r.level === 'error')).toBe(true);
    expect(res.code).toBe(1);
  });

  it('exits 0 when every id it finds is written', async () => {
    const res = await find('--format', 'ids', '--search', 'dev1');
    expect(res.stdout).toBe(`${ORDINARY[0]}\n`);
    expect(res.code).toBe(0);
  });
});

describe('find --format ids --null', () => {
  it('writes every id as it is, NUL-terminated, but the one holding NUL (named; exit 1)', async () => {
    const res = await find('--format', 'ids', '--null');
    expect(res.stdout.endsWith('\0')).toBe(true);
    expect(res.stdout.slice(0, -1).split('\0')).toEqual(NEWEST_FIRST.filter((id) => id !== NUL));
    expect(refusals(res.stderr)).toEqual(['error: replay id "dev6/17953\\u000008171256" holds a NUL: not written']);
    expect(res.code).toBe(1);
  });

  it('takes -0, in a process of its own: the bytes a pipe gets and the exit status', async () => {
    const res = await runCliSpawned(['find', archive, '--format', 'ids', '-0', '--search', 'dev1'], env);
    expect(res.stdout).toBe(`${ORDINARY[0]}\0`);
    expect(res.code).toBe(0);
    const all = await runCliSpawned(['find', archive, '-0', '--format', 'ids'], env);
    expect(all.stdout.split('\0').filter((id) => id !== '')).toEqual(NEWEST_FIRST.filter((id) => id !== NUL));
    expect(all.code).toBe(1);
  });

  it('is a usage error with another format, or none (exit 2), before anything is written', async () => {
    for (const args of [['--null', '--format', 'ndjson'], ['--format', 'table', '-0'], ['--null']]) {
      const res = await find(...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stdout, args.join(' ')).toBe('');
      expect(res.stderr, args.join(' ')).toContain('--null goes with --format ids');
    }
  });
});

describe('find --format table and ndjson', () => {
  it('the table shows every id on its own line, its control characters escaped, even in a pipe', async () => {
    const res = await find('--format', 'table');
    const rows = res.stdout.trimEnd().split('\n').slice(1);
    expect(rows).toHaveLength(IDS.length);
    expect(res.stdout).not.toMatch(/[\u0000\u001b\u0007\u2028]/);
    expect(rows.map((r) => r.split(/\s+/).at(-1))).toEqual([
      ORDINARY[2],
      'dev7/\\x1b]52;c;cm0gLXJmIH4=\\x07',
      'dev6/17953\\x0008171256',
      'dev5/17953\\u202808171255',
      ORDINARY[1],
      'dev4/17953\\n08171254',
      ORDINARY[0],
    ]);
    expect(res.code).toBe(0);
  });

  it('NDJSON keeps every id, one record a line', async () => {
    const res = await find('--format', 'ndjson');
    const ids = res.stdout
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { replay_id: string }).replay_id);
    expect(ids).toEqual(NEWEST_FIRST);
    expect(res.code).toBe(0);
  });
});
