/** The library's `redact` option: `replayEvents` and `exportReplays` give redacted events; the entry records the digest. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { compileRedactionPolicy } from '../../src/redaction/index.js';
import { exportReplays, replayEvents } from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { readOutput, tempDir } from '../pipeline/helpers.js';
import { leaks, makeRecording, POLICY, recordingSamplesDir } from './recording.js';
import type { LooseEntry } from '../sinks/helpers/entries.js';

let sandbox: Sandbox;
let samples: ReturnType<typeof recordingSamplesDir>;
const { events } = makeRecording();

beforeAll(async () => {
  samples = recordingSamplesDir('personal', events);
  sandbox = await startSandbox({ samplesDir: samples.dir });
});

afterAll(async () => {
  await sandbox?.close();
  samples?.cleanup();
});

const connection = () => ({
  endpoint: sandbox.url,
  apiKey: sandbox.credentials.apiKey,
  secretKey: sandbox.credentials.secretKey,
});

test('replayEvents with a policy yields the events redacted; without, as recorded', async () => {
  const redacted: unknown[] = [];
  for await (const e of replayEvents(samples.replayId, { ...connection(), redact: POLICY })) redacted.push(e);
  expect(redacted).toHaveLength(events.length);
  expect(leaks(JSON.stringify(redacted))).toEqual([]);
  const plain: unknown[] = [];
  for await (const e of replayEvents(samples.replayId, connection())) plain.push(e);
  expect(plain).toEqual(events);
});

test('exportReplays takes a compiled policy; its result entry carries the digest', async () => {
  const policy = compileRedactionPolicy(POLICY);
  const work = await tempDir('replay-export-redact-lib-');
  try {
    const results = [];
    for await (const ev of exportReplays([samples.replayId], {
      ...connection(),
      out: work.dir,
      format: 'ndjson',
      redact: policy,
    })) {
      if (ev.type === 'result') results.push(ev);
    }
    expect(results).toHaveLength(1);
    expect(results[0]!.entry).toMatchObject({ status: 'ok', redaction: policy.digest });
    const written = await readOutput(`${work.dir}/${(results[0]!.entry as LooseEntry).key}`);
    expect(leaks(JSON.stringify(written))).toEqual([]);
  } finally {
    await work.cleanup();
  }
});
