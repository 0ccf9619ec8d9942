/**
 * One spelling of an error code: the manifest carries the code as thrown, and every manifest read gives an entry
 * written with the old spellings (`decode_bad_gzip`, `sink_io`, `rate_limited`) the thrown one, on both backends.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { thrownCode } from '../../sinks/error-codes.js';
import type { FailedEntry } from '../../sinks/sink.js';
import { ReplayFailedError } from '../../src/pipeline/errors.js';
import { countFailure, recordedFailure } from '../../src/pipeline/quarantine.js';
import { RedactionError } from '../../src/redaction/errors.js';
import { createLocalSink } from '../../sinks/local.js';
import { parseManifestLine } from '../../sinks/manifest-lines.js';
import { createS3Sink } from '../../sinks/s3.js';
import type { ManifestEntry, Sink } from '../../sinks/sink.js';
import { createS3rver } from '../helpers/s3rver.js';

const ROOT = new URL('../../', import.meta.url);

/** The members (`| 'CODE'`) of a union type in a source file, from the line that starts it to `to`. */
async function codesIn(file: string, from: string, to: string): Promise<string[]> {
  const text = await readFile(new URL(file, ROOT), 'utf8');
  const part = text.slice(text.indexOf(from), text.indexOf(to, text.indexOf(from)));
  return [...part.matchAll(/\|\s*'([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]!);
}

describe('error codes: the thrown spelling, old ones read', () => {
  test('each old spelling reads as the thrown code; thrown codes are left as they are', () => {
    const old: [string, string][] = [
      ['decode_bad_gzip', 'BAD_GZIP'],
      ['decode_event_too_large', 'EVENT_TOO_LARGE'],
      ['sink_io', 'SINK_IO'],
      ['sink_path_escape', 'SINK_PATH_ESCAPE'],
      ['manifest_corrupt', 'MANIFEST_CORRUPT'],
      ['replay_not_found', 'REPLAY_NOT_FOUND'],
      ['econnreset', 'ECONNRESET'],
      ['enospc', 'ENOSPC'],
      ['und_err_socket', 'UND_ERR_SOCKET'],
      ['err_stream_premature_close', 'ERR_STREAM_PREMATURE_CLOSE'],
      ['eai_again', 'EAI_AGAIN'],
      // Codes thrown in lower case before the one spelling (src/error-codes.ts RENAMED_CODES).
      ['rate_limited', 'RATE_LIMITED'],
      ['api_error', 'API_ERROR'],
      ['timeout', 'TIMEOUT'],
      ['too_many_files', 'TOO_MANY_FILES'],
      ['listing_stalled', 'LISTING_STALLED'],
      ['redaction_failed', 'REDACTION_FAILED'],
      ['auth_failed', 'AUTH_FAILED'],
      ['storage_redirect', 'STORAGE_REDIRECT'],
      ['bad_json', 'BAD_RESPONSE_JSON'],
    ];
    for (const [before, after] of old) expect(thrownCode(before), before).toBe(after);
    for (const code of [
      'BAD_GZIP',
      'SINK_IO',
      'REPLAY_NOT_FOUND',
      'ECONNRESET',
      'RATE_LIMITED',
      'BAD_JSON',
      'BAD_RESPONSE_JSON',
      'error',
      'SignatureDoesNotMatch',
    ]) {
      expect(thrownCode(code), code).toBe(code);
    }
  });

  test('every DecodeError and SinkError code round-trips from the spelling old manifests gave it', async () => {
    const decode = await codesIn('decoders/errors.ts', 'export type DecodeErrorCode', 'export interface');
    const sink = await codesIn('sinks/errors.ts', 'export type SinkErrorCode', 'export interface');
    expect(decode).toContain('REPLAY_TOO_LARGE');
    expect(decode.length).toBeGreaterThanOrEqual(15);
    expect(sink).toContain('MANIFEST_CORRUPT');
    expect(sink.length).toBeGreaterThanOrEqual(9);
    for (const code of decode) expect(thrownCode(`decode_${code.toLowerCase()}`)).toBe(code);
    for (const code of sink) expect(thrownCode(code.toLowerCase())).toBe(code);
  });

  test("an old run's failed line counts toward quarantine with the same failure thrown now", () => {
    const line = JSON.stringify({
      replay_id: 'd/2',
      status: 'failed',
      error: { code: 'redaction_failed', message: 'm', file_key: 'k' },
      attempts: 2,
      recorded_at: 't',
    });
    const before = recordedFailure(parseManifestLine(line, 1) as FailedEntry);
    const now = new ReplayFailedError('d/2', 'k', new RedactionError(4, new Error('too deep')));
    expect(now.code).toBe('REDACTION_FAILED');
    const entry: FailedEntry = { ...JSON.parse(line), error: now.toManifestError() };
    expect(countFailure(entry, before, 3)).toMatchObject({ status: 'quarantined', attempts: 3 });
  });

  test('a manifest line with an old spelling parses with the thrown one; the rest of the entry unchanged', () => {
    const line = JSON.stringify({
      replay_id: 'd/1',
      status: 'failed',
      error: { code: 'decode_bad_gzip', message: 'BAD_GZIP: x', file_key: 'k', index: 3 },
      recorded_at: 't',
    });
    expect(parseManifestLine(line, 1)).toEqual({
      replay_id: 'd/1',
      status: 'failed',
      error: { code: 'BAD_GZIP', message: 'BAD_GZIP: x', file_key: 'k', index: 3 },
      recorded_at: 't',
    });
  });
});

let base: string;
let server: S3rver;
let endpoint: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'error-codes-'));
  server = createS3rver({
    address: '127.0.0.1',
    port: 0,
    directory: join(base, 's3'),
    silent: true,
    configureBuckets: [{ name: 'codes' }],
  });
  endpoint = `http://127.0.0.1:${((await server.run()) as { port: number }).port}`;
});
afterAll(async () => {
  await server?.close();
  await rm(base, { recursive: true, force: true });
});

const failed = (id: string, code: string): ManifestEntry => ({
  replay_id: id,
  status: 'failed',
  error: { code, message: 'm' },
  recorded_at: '2026-01-01T00:00:00.000Z',
});

async function codesOf(sink: Sink): Promise<Record<string, string | undefined>> {
  const out: Record<string, string | undefined> = {};
  for await (const e of sink.readManifest()) out[e.replay_id] = 'error' in e ? e.error.code : undefined;
  return out;
}

describe.each([
  ['a local folder', () => createLocalSink(join(base, 'local'))],
  [
    'S3 (s3rver)',
    () =>
      createS3Sink('s3://codes/archive', {
        endpoint,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        forcePathStyle: true,
        region: 'us-east-1',
      }),
  ],
])('an archive written with the old spellings, on %s', (_name, open) => {
  test('reads with the thrown codes, from the log and, once folded, from the snapshot', async () => {
    const sink = open();
    try {
      // What a run before one spelling appended; a line of today's runs next to them.
      await sink.appendManifest(failed('d/1', 'decode_bad_gzip'));
      await sink.appendManifest(failed('d/2', 'sink_io'));
      await sink.appendManifest(failed('d/3', 'rate_limited'));
      await sink.appendManifest(failed('d/4', 'EVENT_TOO_LARGE'));
      const expected = { 'd/1': 'BAD_GZIP', 'd/2': 'SINK_IO', 'd/3': 'RATE_LIMITED', 'd/4': 'EVENT_TOO_LARGE' };
      expect(await codesOf(sink)).toEqual(expected);
      expect((await sink.compactManifest!({ layout: 'all' })).compacted).toBe(true);
      expect(await codesOf(sink)).toEqual(expected);
    } finally {
      await sink.close();
    }
  });
});
