import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decodeEvents } from '../../decoders/index.js';
import { Transport } from '../../src/clients/index.js';
import { ConfigError, exitCodeOf, exportReplay, replayEvents } from '../../src/index.js';
import { verifyArchive } from '../../src/archive.js';
import { startViewServer } from '../../src/view/index.js';
import { cleanEnv, runCli } from '../cli/cli-helpers.js';
import { tempDir } from '../pipeline/helpers.js';

let work: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  work = await tempDir('replay-export-option-errors-');
});
afterAll(async () => {
  await work.cleanup();
});

/** What `run` threw (or rejected with); undefined when it did not. */
async function thrown(run: () => unknown): Promise<unknown> {
  try {
    await run();
    return undefined;
  } catch (err) {
    return err;
  }
}

/** A usage error (CLI exit 2) of the error tree, whose message starts with the option's name. */
function expectOptionError(err: unknown, option: string): void {
  expect(err).toBeInstanceOf(ConfigError);
  expect(err).toMatchObject({
    category: 'usage',
    message: expect.stringMatching(new RegExp(`^${option.replace('.', '\\.')} must`)),
  });
  expect(exitCodeOf(err)).toBe(2);
}

describe('a bad option is a usage error naming it, in the library', () => {
  test('new Transport({ region: "mars" }) throws ConfigError naming region', async () => {
    const err = await thrown(() => new Transport({ region: 'mars' as never }));
    expectOptionError(err, 'region');
    expect((err as Error).message).toBe('region must be "us" or "eu", got "mars"');
  });

  test('a bad endpoint or tunable of the transport is a ConfigError naming it', async () => {
    expectOptionError(await thrown(() => new Transport({ endpoint: 'ftp://example.com' })), 'endpoint');
    expectOptionError(await thrown(() => new Transport({ timeouts: { connectMs: 0 } })), 'timeouts.connectMs');
    expectOptionError(await thrown(() => new Transport({ adaptive: { backoff: 2 } })), 'adaptive \\(replay\\).backoff');
  });

  test('replayEvents with region "mars" throws ConfigError before any request', async () => {
    const err = await thrown(async () => {
      for await (const _ of replayEvents('device/1', { region: 'mars' as never, apiKey: 'k', secretKey: 's' })) void _;
    });
    expectOptionError(err, 'region');
  });

  test('a bad maxEventBytes is a ConfigError naming it: in the decoders and in exportReplay', async () => {
    const decoding = await thrown(async () => {
      for await (const _ of decodeEvents(Readable.from([Buffer.from('[]')]), { maxEventBytes: 2 ** 31 })) void _;
    });
    expectOptionError(decoding, 'maxEventBytes');
    const exporting = await thrown(() =>
      exportReplay('device/1', { maxEventBytes: 0, apiKey: 'k', secretKey: 's', out: join(work.dir, 'out') }),
    );
    expectOptionError(exporting, 'maxEventBytes');
  });

  test('verifyArchive and startViewServer refuse a bad maxEventBytes before opening the archive', async () => {
    const missing = join(work.dir, 'no-archive');
    // Resolved by the run it opens, when it is called (as a bad `concurrency` always was).
    expectOptionError(await thrown(() => verifyArchive({ out: missing, maxEventBytes: 0 })), 'maxEventBytes');
    expectOptionError(await thrown(() => startViewServer({ out: missing, maxEventBytes: 2 ** 31 })), 'maxEventBytes');
  });
});

describe('through the CLI, the same options exit 2 naming the flag', () => {
  test.each([
    [['export', 'device/1', '--region', 'mars'], '--region'],
    [['export', 'device/1', '--max-event-size', '0'], '--max-event-size'],
  ])('%j exits 2', async (args, flag) => {
    const res = await runCli([...args, '--out', join(work.dir, 'cli')], {
      ...cleanEnv(),
      PLATFORM_API_KEY: 'k',
      PLATFORM_SECRET_KEY: 's',
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(flag);
  });
});
