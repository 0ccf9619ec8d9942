/**
 * `--redact` into S3 (real s3rver): the stored objects hold no personal string in any form, the manifest objects record
 * the policy's digest, and a resume under the same policy leaves the replay alone.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { compileRedactionPolicy } from '../../src/redaction/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { lastById, tempDir } from '../pipeline/helpers.js';
import { leaks, makeRecording, POLICY, recordingSamplesDir } from '../redaction/recording.js';
import { runCliSpawned } from '../cli/cli-helpers.js';
import {
  cliEnv,
  getObject,
  jsonLines,
  keepStagingFolder,
  readS3Manifest,
  s3Flags,
  startS3,
  type S3Server,
} from './s3-helpers.js';

let sandbox: Sandbox;
let s3: S3Server;
let samples: ReturnType<typeof recordingSamplesDir>;
let work: { dir: string; cleanup: () => Promise<void> };
let policyFile: string;
const { events } = makeRecording();

beforeAll(async () => {
  samples = recordingSamplesDir('personal-s3', events);
  sandbox = await startSandbox({ samplesDir: samples.dir });
  work = await tempDir('replay-export-redact-s3-');
  s3 = await startS3(join(work.dir, 's3'));
  policyFile = join(work.dir, 'policy.json');
  await writeFile(policyFile, JSON.stringify(POLICY));
});

afterAll(async () => {
  await s3?.stop();
  await sandbox?.close();
  samples?.cleanup();
  await work?.cleanup();
});

describe('archive --redact to S3', () => {
  test('the stored object holds no personal string; the manifest records the digest; a resume leaves it alone', async () => {
    const prefix = 'redacted';
    await keepStagingFolder(s3, prefix);
    const args = [
      '--log-format',
      'json',
      'archive',
      ...s3Flags(s3, prefix),
      '--settle',
      '0',
      '--format',
      'ndjson',
      '--gzip',
      '--redact',
      policyFile,
    ];
    const first = await runCliSpawned(args, cliEnv(sandbox));
    expect(first.code, first.stderr).toBe(0);
    const entry = lastById(await readS3Manifest(s3.reader, prefix)).get(samples.replayId)!;
    expect(entry).toMatchObject({
      status: 'ok',
      redaction: compileRedactionPolicy(POLICY).digest,
      event_count: events.length,
    });
    const stored = await getObject(s3.reader, `${prefix}/${entry.key as string}`);
    expect(leaks(gunzipSync(stored.body).toString('utf8'))).toEqual([]);

    const again = await runCliSpawned(args, cliEnv(sandbox));
    expect(again.code, again.stderr).toBe(0);
    expect(
      jsonLines(again.stderr)
        .filter((l) => l.event === 'replay')
        .map((l) => l.outcome),
    ).toEqual(['done-before']);
  });
});
