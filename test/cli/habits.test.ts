/**
 * Habits of gh and rclone (issue #42 items 1 and 7): a missing file is named as missing, short flags, `version`,
 * unknown commands refused even with `--help`, a run's error before its summary, completion of `api` operations and
 * `auth` actions, and a fish script that fish itself reads and completes with.
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { drive } from '../../bin/cli/sink-flags.js';
import { wasReported } from '../../bin/cli/fatal.js';
import { Reporter } from '../../bin/cli/reporter.js';
import { SinkError } from '../../sinks/index.js';
import type { ArchiveEvent } from '../../src/pipeline/archive.js';
import { packageVersion } from '../../src/util/package-root.js';
import { tempDir } from '../pipeline/helpers.js';
import { line } from '../sinks/helpers/entries.js';
import { bashCompletions, cleanEnv, runCli } from './cli-helpers.js';

const ID = 'ab55062f-dfc4-4c6a-bf1e-e4fbc6fdc3d3/1795308171251';
let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  work = await tempDir('replay-export-habits-');
});
afterAll(async () => {
  await work.cleanup();
});

describe('a missing file is named as missing', () => {
  test.each([
    [['video', './typo.json', '--out', 'x.mp4'], '"./typo.json": no such file'],
    [['video', 'typo.ndjson.gz', '-o', 'x.mp4'], '"typo.ndjson.gz": no such file'],
    [['export', './typo.json', '--out', 'x'], '"./typo.json": no such file'],
    [['list', '--replay', '../elsewhere/r.json'], '"../elsewhere/r.json": no such file'],
  ])('%j: exit 2 about the file, before any request', async (args, message) => {
    const res = await runCli(args, cleanEnv());
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(message);
    expect(res.stderr).not.toMatch(/credentials/);
  });

  test('a folder given as the file, and a file given where ids go, are said to be so', async () => {
    const video = await runCli(['video', work.dir, '-o', 'x.mp4'], cleanEnv());
    expect([video.code, video.stderr]).toEqual([2, expect.stringContaining(`"${work.dir}": not a file`)]);
    const file = join(work.dir, 'events.json');
    await writeFile(file, '[]');
    const exported = await runCli(['export', file, '-o', work.dir], cleanEnv());
    expect([exported.code, exported.stderr]).toEqual([
      2,
      expect.stringContaining(`"${file}": a file, not a replay id`),
    ]);
  });
});

describe('short flags, version, unknown commands', () => {
  test('-o for --out and -n for --max', async () => {
    const out = join(work.dir, 'short');
    const exported = await runCli(['--sandbox', 'export', ID, '-o', out], cleanEnv());
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain(`${out}/${ID}.json`);
    const listed = await runCli(['--sandbox', 'list', '-n', '2', '--json'], cleanEnv());
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(2);
  });

  test('`version` prints the version, as --version does', async () => {
    const res = await runCli(['version'], cleanEnv());
    expect(res).toMatchObject({ code: 0, stdout: `replay-export ${packageVersion()}\n`, stderr: '' });
  });

  test('an unknown command is refused with --help, -h and after help; a known one still has its help', async () => {
    for (const args of [
      ['nosuch', '--help'],
      ['nosuch', '-h'],
      ['--sandbox', 'nosuch', '--help'],
      ['help', 'nosuch'],
    ]) {
      const res = await runCli(args, cleanEnv());
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain("unknown command 'nosuch'");
      expect(res.stdout).toBe('');
    }
    const help = await runCli(['list', '--help'], cleanEnv());
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: replay-export list/);
  });
});

describe('a run stopped part-way', () => {
  test('prints its error before the summary of what it did, and once', async () => {
    let text = '';
    const stream = { isTTY: false, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
    const reporter = new Reporter('text', [], stream);
    const failure = new SinkError('SINK_IO', 'the target is read-only (EROFS) writing out/manifest.ndjson');
    const events = (async function* (): AsyncGenerator<ArchiveEvent> {
      const entry = line({ replay_id: ID, status: 'ok', key: `k/${ID}`, event_count: 1, bytes: 1, recorded_at: '' });
      yield { type: 'result', replayId: ID, outcome: 'ok', entry } as ArchiveEvent;
      throw failure;
    })();
    await expect(drive(events, reporter, 'out', {})).rejects.toBe(failure);
    const lines = text.split('\n').filter((l) => l !== '');
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['ok', 'error:', 'Summary']);
    expect(lines[1]).toContain('the target is read-only');
    expect(wasReported(failure)).toBe(true);
  });
});

describe('completion', () => {
  const bash = (script: string, words: string[]): string[] => bashCompletions(script, words, work.dir);

  test("bash completes api's operation names and auth's actions", async () => {
    const script = (await runCli(['completion', 'bash'], cleanEnv())).stdout;
    expect(bash(script, ['replay-export', 'api', 'dashboard.seg'])).toEqual(['dashboard.segmentation']);
    expect(bash(script, ['replay-export', 'api', 'experiments.versions.'])).toEqual(
      expect.arrayContaining(['experiments.versions.list', 'experiments.versions.get']),
    );
    expect(bash(script, ['replay-export', 'auth', 'lo'])).toEqual(['login', 'logout']);
    expect(bash(script, ['replay-export', 'list', '-'])).toEqual(expect.arrayContaining(['-n', '--max', '--profile']));
  });

  test('fish (the shell itself): commands, flags, fixed words, api operations', async () => {
    const res = await runCli(['completion', 'fish'], cleanEnv());
    expect(res.code).toBe(0);
    const file = join(work.dir, 'replay-export.fish');
    await writeFile(file, res.stdout);
    const fish = (line: string): string[] => {
      const run = spawnSync('fish', ['--no-config', '-c', `source ${file}; complete -C '${line}'`], {
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      return run.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split('\t')[0]!);
    };
    expect(fish('replay-export ar')).toEqual(['archive']);
    expect(fish('replay-export export x/1 --format ')).toEqual(['html', 'json', 'ndjson']);
    expect(fish('replay-export api dashboard.seg')).toEqual(['dashboard.segmentation']);
    expect(fish('replay-export auth ')).toEqual(['login', 'logout', 'status']);
    expect(fish('replay-export completion ')).toEqual(['bash', 'fish', 'zsh']);
    expect(fish('replay-export archive --dry')).toEqual(['--dry-run']);
  });
});
