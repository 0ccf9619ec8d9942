/**
 * `verify <folder>` against archives the CLI made from the sandbox: a clean archive of each format exits 0; each way
 * of damaging one (an object deleted, a byte flipped, an object cut short, an event count or checks changed in the
 * manifest, a key leaving the layout, a stray file) is reported once, as its kind, and exits 1; `--log-format json`
 * gives one JSON line per problem and a summary.
 */
import { appendFile, cp, mkdir, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { lastById, readManifest, tempDir } from '../pipeline/helpers.js';
import { jsonLines } from '../s3-cli/s3-helpers.js';
import { runCli, sandboxEnv, VICTIM_TEXT } from './cli-helpers.js';

let sandbox: Sandbox;
let work: { dir: string; cleanup: () => Promise<void> };
/** Clean archives of the sandbox, one per format. */
const clean: Record<'json' | 'ndjsonGzip' | 'html', string> = { json: '', ndjsonGzip: '', html: '' };
let failedId: string;

beforeAll(async () => {
  work = await tempDir('replay-export-verify-');
  sandbox = await startSandbox({ replicas: 2 });
  // One replay that cannot be decoded: its state is `failed`, nothing of it is stored (not a problem for verify).
  failedId = sandbox.replays().at(-1)!.replayId;
  sandbox.setFaults({ corruptFiles: [failedId] });
  const runs: Array<[keyof typeof clean, string[]]> = [
    ['json', []],
    ['ndjsonGzip', ['--format', 'ndjson', '--gzip']],
    ['html', ['--format', 'html']],
  ];
  for (const [name, flags] of runs) {
    clean[name] = join(work.dir, name);
    const res = await runCli(['archive', '--out', clean[name], '--settle', '0', ...flags], sandboxEnv(sandbox));
    expect(res.code, res.stderr).toBe(1); // the corrupt replay
  }
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await work?.cleanup();
});

async function copyOf(name: keyof typeof clean, to: string): Promise<string> {
  const dir = join(work.dir, to);
  await cp(clean[name], dir, { recursive: true });
  return dir;
}

async function verify(dir: string, ...flags: string[]) {
  return runCli(['verify', dir, '--log-format', 'json', ...flags]);
}

/** The `ok` entries of a local archive's manifest, in manifest order. */
async function okEntries(dir: string): Promise<Array<Record<string, unknown> & { replay_id: string; key: string }>> {
  return [...lastById(await readManifest(dir)).values()].filter((e) => e.status === 'ok') as Array<
    Record<string, unknown> & { replay_id: string; key: string }
  >;
}

describe('verify a local archive', () => {
  test.each(['json', 'ndjsonGzip', 'html'] as const)(
    'a clean %s archive: exit 0, every archived replay intact',
    async (name) => {
      const res = await verify(clean[name]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toBe('');
      const lines = jsonLines(res.stderr);
      expect(lines.filter((l) => l.event === 'problem')).toEqual([]);
      const replays = sandbox.replays().length;
      expect(lines.at(-1)).toMatchObject({
        event: 'summary',
        level: 'info',
        target: clean[name],
        replays,
        verified: replays - 1,
        intact: replays - 1,
        not_ok: 1,
        stored: replays - 1,
        problems: 0,
        by_kind: {},
      });
      expect(lines.at(-1)!.events).toBeGreaterThan(0);
    },
  );

  test('text mode: the summary line, also with --quiet', async () => {
    const res = await runCli(['verify', clean.json, '--quiet']);
    expect(res.code, res.stderr).toBe(0);
    const n = sandbox.replays().length - 1;
    expect(res.stderr).toMatch(
      new RegExp(
        `^Verified ${clean.json.replace(/[/\\.]/g, '\\$&')}: ${n} of ${n} archived replays intact, no problem; 1 replay in another state`,
      ),
    );
  });

  test('every kind of damage is reported once, as its kind, with its replay and key; exit 1', async () => {
    const dir = await copyOf('json', 'damaged');
    const [deleted, flipped, cut, recounted, rechecked, moved] = await okEntries(dir);
    await rm(join(dir, deleted!.key));
    // A byte inside a string: the object still decodes, only its hash tells.
    const flippedPath = join(dir, flipped!.key);
    const bytes = await readFile(flippedPath);
    // The last event's `type` key: the checks read the types only until the meta and full snapshot events are seen.
    const at = bytes.lastIndexOf('"type"') + 2;
    bytes[at] = bytes[at] === 0x79 ? 0x59 : 0x79;
    await writeFile(flippedPath, bytes);
    const cutPath = join(dir, cut!.key);
    await truncate(cutPath, (await readFile(cutPath)).length - 10);
    // The manifest changed: a later entry for a replay is its state.
    const entryOf = (e: Record<string, unknown>, change: Record<string, unknown>) =>
      JSON.stringify({ ...e, ...change, recorded_at: new Date().toISOString() });
    const checks = rechecked!.checks as Record<string, unknown>;
    await appendFile(
      join(dir, 'manifest.ndjson'),
      [
        entryOf(recounted!, { event_count: (recounted!.event_count as number) + 1 }),
        entryOf(rechecked!, { checks: { ...checks, max_gap_ms: (checks.max_gap_ms as number) + 1 } }),
        // A key outside the layout is never read (../../outside/victim would be the victim file).
        entryOf(moved!, { key: '../outside/victim' }),
      ].join('\n') + '\n',
    );
    await mkdir(join(work.dir, 'outside'), { recursive: true });
    await writeFile(join(work.dir, 'outside', 'victim'), VICTIM_TEXT);
    await mkdir(join(dir, 'stray'));
    await writeFile(join(dir, 'stray', 'left.json'), '[]');
    // Files replay-export never writes are orphans too, hidden or not (#28, 6): a real temporary name would not be.
    await writeFile(join(dir, 'stray', '.left.json.tmp'), 'x');
    await writeFile(join(dir, 'stray', `.left.json.${process.pid}.0a1b2c3d.tmp`), 'x');
    await writeFile(join(dir, '_notes'), 'x');

    const res = await verify(dir);
    expect(res.code, res.stderr).toBe(1);
    const lines = jsonLines(res.stderr);
    const problems = lines.filter((l) => l.event === 'problem');
    for (const p of problems) expect(p.level).toBe('error');
    const byKind = (kind: string) => problems.filter((p) => p.kind === kind);
    expect(byKind('missing')).toEqual([expect.objectContaining({ replay_id: deleted!.replay_id, key: deleted!.key })]);
    expect(byKind('sha256_mismatch')).toEqual([
      expect.objectContaining({
        replay_id: flipped!.replay_id,
        key: flipped!.key,
        expected: flipped!.sha256,
        actual: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect(byKind('size_mismatch')).toEqual([
      expect.objectContaining({ replay_id: cut!.replay_id, expected: cut!.bytes, actual: (cut!.bytes as number) - 10 }),
    ]);
    expect(byKind('undecodable')).toEqual([
      expect.objectContaining({ replay_id: cut!.replay_id, msg: expect.stringContaining('TRUNCATED') }),
    ]);
    expect(byKind('event_count_mismatch')).toEqual([
      expect.objectContaining({
        replay_id: recounted!.replay_id,
        expected: (recounted!.event_count as number) + 1,
        actual: recounted!.event_count,
      }),
    ]);
    expect(byKind('checks_mismatch')).toEqual([
      expect.objectContaining({
        replay_id: rechecked!.replay_id,
        expected: { max_gap_ms: (checks.max_gap_ms as number) + 1 },
        actual: { max_gap_ms: checks.max_gap_ms },
      }),
    ]);
    expect(byKind('bad_entry')).toEqual([
      expect.objectContaining({ replay_id: moved!.replay_id, key: '../outside/victim', expected: moved!.key }),
    ]);
    expect(
      byKind('orphan')
        .map((p) => p.key)
        .sort(),
    ).toEqual(['_notes', 'stray/.left.json.tmp', 'stray/left.json']);
    expect(problems).toHaveLength(10);
    expect(await readFile(join(work.dir, 'outside', 'victim'), 'utf8')).toBe(VICTIM_TEXT);
    const summary = lines.at(-1)!;
    expect(summary).toMatchObject({
      event: 'summary',
      level: 'error',
      problems: 10,
      by_kind: {
        missing: 1,
        sha256_mismatch: 1,
        size_mismatch: 1,
        undecodable: 1,
        event_count_mismatch: 1,
        checks_mismatch: 1,
        bad_entry: 1,
        orphan: 3,
      },
      intact: sandbox.replays().length - 1 - 6,
    });

    // Text mode: one `error:` line per problem, naming the key, then the summary.
    const text = await runCli(['verify', dir]);
    expect(text.code).toBe(1);
    const textLines = text.stderr.trim().split('\n');
    expect(textLines.filter((l) => l.startsWith('error: '))).toHaveLength(10);
    expect(text.stderr).toContain(`error: ${deleted!.key} (replay ${deleted!.replay_id}): the object is not stored`);
    expect(textLines.at(-1)).toMatch(
      /^Verified .*: \d+ of \d+ archived replays intact, 10 problems \(bad entry 1, missing 1, size mismatch 1, sha256 mismatch 1/,
    );
  });

  test('only the last entry of a replay is its state: an object an earlier entry named may go', async () => {
    const dir = await copyOf('json', 'reexported');
    const [first] = await okEntries(dir);
    const res = await runCli(['export', first!.replay_id, '--out', dir, '--format', 'ndjson'], sandboxEnv(sandbox));
    expect(res.code, res.stderr).toBe(0);
    // The json object of the first export is no orphan (an ok entry names it) and not verified (not the state).
    expect((await verify(dir)).code).toBe(0);
    await rm(join(dir, first!.key));
    const after = await verify(dir);
    expect(after.code, after.stderr).toBe(0);
    await rm(join(dir, (await okEntries(dir)).find((e) => e.replay_id === first!.replay_id)!.key));
    const gone = jsonLines((await verify(dir)).stderr).filter((l) => l.event === 'problem');
    expect(gone).toEqual([
      expect.objectContaining({
        kind: 'missing',
        replay_id: first!.replay_id,
        key: expect.stringMatching(/\.ndjson$/),
      }),
    ]);
  });

  test('gzip and html objects that no longer decode', async () => {
    const gz = await copyOf('ndjsonGzip', 'gz-damaged');
    const [one] = await okEntries(gz);
    const path = join(gz, one!.key);
    const bytes = await readFile(path);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    await writeFile(path, bytes);
    const gzLines = jsonLines((await verify(gz)).stderr).filter((l) => l.event === 'problem');
    expect(gzLines.map((l) => l.kind).sort()).toEqual(['sha256_mismatch', 'undecodable']);
    expect(gzLines.find((l) => l.kind === 'undecodable')!.msg).toMatch(/BAD_GZIP|BAD_JSON|BAD_UTF8/);

    const html = await copyOf('html', 'html-damaged');
    const [page] = await okEntries(html);
    const pagePath = join(html, page!.key);
    const text = await readFile(pagePath, 'utf8');
    // The page is cut inside its block of events.
    await truncate(
      pagePath,
      Buffer.byteLength(text.slice(0, text.indexOf(']</script><script>replayTakeBlocks()')), 'utf8'),
    );
    const res = await verify(html);
    expect(res.code).toBe(1);
    const htmlLines = jsonLines(res.stderr).filter((l) => l.event === 'problem');
    expect(htmlLines.map((l) => l.kind).sort()).toEqual(['size_mismatch', 'undecodable']);
    expect(htmlLines.find((l) => l.kind === 'undecodable')!.msg).toContain('the page ends inside a block of events');
  });

  test('a folder that holds no archive (missing or empty) fails (exit 1) creating nothing; an unknown scheme is a usage error (exit 2)', async () => {
    const missingPath = join(work.dir, 'no-such-folder');
    const missing = await verify(missingPath);
    expect(missing.code).toBe(1);
    expect(jsonLines(missing.stderr)).toEqual([
      expect.objectContaining({ event: 'fatal', msg: `no archive at ${missingPath} (no manifest found)` }),
    ]);
    await expect(stat(missingPath)).rejects.toThrow();
    const emptyPath = join(work.dir, 'empty-folder');
    await mkdir(emptyPath);
    const empty = await verify(emptyPath);
    expect(empty.code).toBe(1);
    expect(jsonLines(empty.stderr)).toEqual([
      expect.objectContaining({ event: 'fatal', msg: `no archive at ${emptyPath} (no manifest found)` }),
    ]);
    expect(await readdir(emptyPath)).toEqual([]);
    expect((await verify('ftp://host/archive')).code).toBe(2);
    expect((await runCli(['verify', clean.json, '--concurrency', '0'])).code).toBe(2);
  });
});
