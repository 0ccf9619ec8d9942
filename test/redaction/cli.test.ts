/**
 * `--redact` through the CLI against the sandbox: recordings holding known personal strings (a recording made here,
 * and the real form-typing sample) are exported and archived with a policy; nothing of them remains in the outputs,
 * the manifest records the policy's digest, and a resume re-exports what was archived under another policy.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { compileRedactionPolicy } from '../../src/redaction/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { cleanEnv, runCli, sandboxEnv, walk } from '../cli/cli-helpers.js';
import { lastById, readManifest, readOutput, tempDir } from '../pipeline/helpers.js';
import { leaks, makeRecording, POLICY, recordingSamplesDir } from './recording.js';

let sandbox: Sandbox;
let samples: ReturnType<typeof recordingSamplesDir>;
let work: { dir: string; cleanup: () => Promise<void> };
let policyFile: string;
const { events } = makeRecording();

beforeAll(async () => {
  samples = recordingSamplesDir('personal', events);
  sandbox = await startSandbox({ samplesDir: samples.dir });
  work = await tempDir('replay-export-redact-');
  policyFile = join(work.dir, 'policy.json');
  await writeFile(policyFile, JSON.stringify(POLICY, null, 2));
});

afterAll(async () => {
  await sandbox?.close();
  samples?.cleanup();
  await work?.cleanup();
});

/** The per-replay outcomes of a run's JSON log lines. */
function outcomes(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { event?: string; outcome?: string })
    .filter((l) => l.event === 'replay')
    .map((l) => l.outcome!);
}

describe('archive --redact', () => {
  const digest = compileRedactionPolicy(POLICY).digest;

  test('json, ndjson+gzip, html and version 2 outputs hold no personal string in any form; the manifest records the digest', async () => {
    for (const [format, gzip, version] of [
      ['json', false, '3'],
      ['ndjson', true, '3'],
      ['html', false, '3'],
      ['json', false, '2'],
    ] as const) {
      const out = join(work.dir, `out-${format}-${version}`);
      const args = [
        '--log-format',
        'json',
        'archive',
        '--out',
        out,
        '--settle',
        '0',
        '--format',
        format,
        '--file-version',
        version,
        '--redact',
        policyFile,
        ...(gzip ? ['--gzip'] : []),
      ];
      const res = await runCli(args, sandboxEnv(sandbox));
      expect(res.code, res.stderr).toBe(0);
      const entry = lastById(await readManifest(out)).get(samples.replayId)!;
      expect(entry.status).toBe('ok');
      expect(entry.redaction).toBe(digest);
      const bytes = await readFile(join(out, entry.key as string));
      const text = (gzip ? gunzipSync(bytes) : bytes).toString('utf8');
      expect(leaks(text), format).toEqual([]);
      // The events are all there (none of this recording's events is about a node inside the block).
      expect(entry.event_count).toBe(events.length);
      if (format !== 'html') expect(await readOutput(join(out, entry.key as string))).toHaveLength(events.length);
    }
  });

  test('a resume counts a replay done only under the same policy: another policy, or none, exports it again', async () => {
    const out = join(work.dir, 'out-resume');
    const run = (extra: string[]) =>
      runCli(['--log-format', 'json', 'archive', '--out', out, '--settle', '0', ...extra], sandboxEnv(sandbox));
    let res = await run(['--redact', policyFile]);
    expect(outcomes(res.stderr), res.stderr).toEqual(['ok']);
    res = await run(['--redact', policyFile]);
    expect(outcomes(res.stderr), res.stderr).toEqual(['done-before']);

    const other = join(work.dir, 'policy-other.json');
    await writeFile(other, JSON.stringify({ ...POLICY, patterns: ['email'] }));
    // --dry-run decides the same way: done under this policy, to export under another.
    const plan = async (extra: string[]) =>
      JSON.parse((await run(['--dry-run', ...extra])).stdout) as { action: string; reason?: string };
    expect(await plan(['--redact', policyFile])).toMatchObject({ action: 'skip', reason: 'done' });
    expect(await plan(['--redact', other])).toMatchObject({ action: 'export' });
    res = await run(['--redact', other]);
    expect(outcomes(res.stderr), res.stderr).toEqual(['ok']);
    const otherEntry = lastById(await readManifest(out)).get(samples.replayId)!;
    expect(otherEntry.redaction).toBe(compileRedactionPolicy({ ...POLICY, patterns: ['email'] }).digest);

    // Without a policy: exported again, as recorded, and the entry says no policy.
    res = await run([]);
    expect(outcomes(res.stderr), res.stderr).toEqual(['ok']);
    const plain = lastById(await readManifest(out)).get(samples.replayId)!;
    expect(plain.redaction).toBeUndefined();
    expect(await readOutput(join(out, plain.key as string))).toEqual(events);
    res = await run([]);
    expect(outcomes(res.stderr), res.stderr).toEqual(['done-before']);
  });

  test('a policy that cannot be used stops before anything is written (exit 2, naming the problem)', async () => {
    const out = join(work.dir, 'out-bad');
    const bad = join(work.dir, 'bad.json');
    for (const [content, message] of [
      ['{ "mask": ["li:hover"] }', /:hover is not supported/],
      ['{ "mask": ["input"], "blocks": [] }', /unknown field "blocks"/],
      ['{ "patterns": [{ "regex": "(" }] }', /does not compile/],
      // A look-ahead: RE2 has none (a pattern that needs one could backtrack without end).
      ['{ "patterns": [{ "regex": "(?=\\\\d)\\\\d{4}" }] }', /patterns\[0\]\.regex does not compile as RE2 syntax/],
      ['not json', /is not JSON/],
    ] as const) {
      await writeFile(bad, content);
      const res = await runCli(['archive', '--out', out, '--settle', '0', '--redact', bad], sandboxEnv(sandbox));
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toMatch(message);
    }
    const missing = await runCli(
      ['archive', '--out', out, '--redact', join(work.dir, 'nope.json')],
      sandboxEnv(sandbox),
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*nope\.json.*ENOENT/);
    expect(await walk(work.dir)).not.toContain('out-bad/manifest.ndjson');
  });
});

describe('export --redact of a real recording (the form-typing sample)', () => {
  test("the README's example: typed names, emails and text are masked in a stdout export; the events still parse", async () => {
    const index = JSON.parse(
      await readFile(join(import.meta.dirname, '..', '..', 'samples', 'index.json'), 'utf8'),
    ) as { replays: { name: string; replay_id: string; expected: string }[] };
    const sample = index.replays.find((r) => r.name === 'form-typing')!;
    const recorded = await readFile(join(import.meta.dirname, '..', '..', 'samples', sample.expected), 'utf8');
    const words = ['Ada', 'Lovelace', 'ada@example.com', 'Mathematician', 'engines'];
    for (const w of words) expect(recorded).toContain(w);
    // The policy of the README's example, as the README writes it.
    const readme = await readFile(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const example = /cat > policy\.json <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(readme);
    expect(example, 'the README has the policy example').not.toBeNull();
    expect(readme).toContain(`--sandbox export ${sample.replay_id} --out ./safe --redact policy.json`);
    const policy = join(work.dir, 'form-policy.json');
    await writeFile(policy, example![1]!);
    const res = await runCli(['--sandbox', 'export', sample.replay_id, '--out', '-', '--redact', policy], cleanEnv());
    expect(res.code, res.stderr).toBe(0);
    for (const w of words) expect(res.stdout, w).not.toContain(w);
    const exported = JSON.parse(res.stdout) as { type: number }[];
    expect(exported.length).toBe((JSON.parse(recorded) as unknown[]).length);
    expect(exported.filter((e) => e.type === 2)).toHaveLength(1);
  });
});
