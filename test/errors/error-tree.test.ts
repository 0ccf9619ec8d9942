import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as library from '../../src/index.js';
import {
  archiveReplays,
  AuthError,
  categoryOf,
  DecodeError,
  EXIT_CODES,
  exitCodeOf,
  exportReplay,
  replayEvents,
  ReplayExportError,
  SinkError,
  ValidationError,
} from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { FAST } from '../pipeline/helpers.js';

let sandbox: Sandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox({});
  dir = await mkdtemp(join(tmpdir(), 'error-tree-'));
});
afterAll(async () => {
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

describe('one error tree', () => {
  test('every error class the package root exports derives from ReplayExportError', () => {
    const classes = Object.entries(library).filter(
      ([name, value]) => typeof value === 'function' && name.endsWith('Error'),
    );
    expect(classes.length).toBeGreaterThan(10);
    for (const [name, value] of classes) {
      expect(
        (value as { prototype: unknown }).prototype instanceof ReplayExportError || value === ReplayExportError,
        name,
      ).toBe(true);
    }
  });

  test('each category has one exit code; an error maps to its category, a stray throw to internal', () => {
    expect(EXIT_CODES).toEqual({ usage: 2, auth: 3, remote: 1, data: 1, storage: 1, interrupted: 130, internal: 1 });
    const cases: [unknown, string, number][] = [
      [new ValidationError('replay_id', 'bad'), 'usage', 2],
      [new DecodeError('BAD_GZIP', 'x', { file: 'k', index: 3 }), 'data', 1],
      [new SinkError('SINK_AUTH', 'refused'), 'auth', 3],
      [new SinkError('SINK_CONFIG', 'bad target'), 'usage', 2],
      [new SinkError('SINK_IO', 'disk full'), 'storage', 1],
      [new library.InterruptedError(), 'interrupted', 130],
      [new TypeError('bug'), 'internal', 1],
      ['a string', 'internal', 1],
    ];
    for (const [err, category, code] of cases) {
      expect(categoryOf(err)).toBe(category);
      expect(exitCodeOf(err)).toBe(code);
    }
    const decode = new DecodeError('EVENT_TOO_LARGE', 'x', { file: 'dev/1/a.json.gz', index: 7 });
    expect(decode).toMatchObject({
      code: 'EVENT_TOO_LARGE',
      fileKey: 'dev/1/a.json.gz',
      file: 'dev/1/a.json.gz',
      index: 7,
      name: 'DecodeError',
    });
  });

  test('a wrong key is an AuthError to every library entry point, as the README says', async () => {
    const wrong = {
      endpoint: sandbox.url,
      apiKey: sandbox.credentials.apiKey,
      secretKey: 'wrong-secret-key-000',
      ...FAST,
    };
    const id = sandbox.replays()[0]!.replayId;
    const drain = async (it: AsyncIterable<unknown>) => {
      for await (const _ of it) void _;
    };
    for (const run of [
      () => drain(replayEvents(id, wrong)),
      () => exportReplay(id, { ...wrong, out: join(dir, 'one') }),
      () => drain(archiveReplays({ ...wrong, out: join(dir, 'all'), settleMs: 0 })),
    ]) {
      const err = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AuthError);
      expect(err).toMatchObject({ category: 'auth', code: 'AUTH_FAILED', status: 401 });
    }
  });

  test('a replay that fails carries its category and context; its cause is kept', async () => {
    const sb = await startSandbox({ faults: { corruptFiles: [sandbox.replays()[1]!.replayId] } });
    try {
      const id = sb.replays()[1]!.replayId;
      const err = await (async () => {
        for await (const _ of replayEvents(id, { endpoint: sb.url, ...sb.credentials, ...FAST })) void _;
      })().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(library.ReplayFailedError);
      expect(err).toMatchObject({ category: 'data', replayId: id, fileKey: expect.stringContaining('/v3/') });
      expect((err as Error).cause).toBeInstanceOf(DecodeError);
      // One spelling: the replay's error carries its cause's code unchanged (as the manifest does).
      expect((err as library.ReplayFailedError).code).toBe(((err as Error).cause as DecodeError).code);
      expect((err as library.ReplayFailedError).code).toMatch(/^[A-Z_]+$/);
    } finally {
      await sb.close();
    }
  });
});
