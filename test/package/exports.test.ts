import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const run = promisify(execFile);

/** Imports `spec` by the package's own name from a child process (the built dist/, through `exports`). */
async function namesOf(spec: string): Promise<string[]> {
  const { stdout } = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(spec)}); console.log(JSON.stringify(Object.keys(m)));`,
    ],
    {
      cwd: packageRoot(),
    },
  );
  return JSON.parse(stdout) as string[];
}

describe('the published surface', () => {
  // 36: the errors' table of codes (ERROR_CODES) joined them; a name added on purpose raises this with its reason.
  test('the root holds the entry points, the sinks factories and the errors: at most 36 runtime names', async () => {
    const names = await namesOf('replay-export');
    expect(names.length).toBeLessThanOrEqual(36);
    for (const name of [
      'replayEvents',
      'replayEventBytes',
      'exportReplay',
      'exportReplays',
      'archiveReplays',
      'decodeEvents',
      'decodeEventBytes',
      'openSink',
      'createLocalSink',
      'createS3Sink',
      'ReplayExportError',
      'AuthError',
      'DecodeError',
      'SinkError',
      'exitCodeOf',
      'ERROR_CODES',
    ]) {
      expect(names).toContain(name);
    }
  });

  test('no internal leaks into an entry: CLI helpers and sink building blocks stay inside', async () => {
    const internal: Record<string, string[]> = {
      'replay-export': ['packageVersion', 'connect', 'Run'],
      'replay-export/sinks': [
        'TempFile',
        'ReplayEncoder',
        'describeSystemError',
        'encodeSegment',
        'decodeSegment',
        'MAX_SEGMENT_BYTES',
      ],
      'replay-export/clients': [
        'connect',
        'transportDownloader',
        'secretsOf',
        'secretForms',
        'redactText',
        'toIsoUtc',
        'parseTimestamp',
        'validatePlatformId',
      ],
      'replay-export/archive': [
        'parseDuration',
        'formatDuration',
        'DurationError',
        'parseByteSize',
        'formatByteSize',
        'ByteSizeError',
        'packageVersion',
      ],
      'replay-export/sandbox': ['runSandboxCommand', 'sandboxBanner', 'parseFaultsFlag'],
    };
    for (const [spec, names] of Object.entries(internal)) {
      const got = await namesOf(spec);
      for (const name of names) expect(got, spec).not.toContain(name);
    }
  });

  test('each subpath resolves by name and holds what it is for', async () => {
    const want: Record<string, string[]> = {
      'replay-export/decoders': ['decodeEventBatches', 'peekEventFields', 'ReplayBudget', 'DecodeError'],
      'replay-export/sinks': ['createLocalSink', 'createS3Sink', 'parseManifestLine', 'replayKey', 'SinkError'],
      'replay-export/clients': [
        'SessionReplayClient',
        'Transport',
        'DashboardClient',
        'TaxonomyClient',
        'ExperimentsClient',
      ],
      'replay-export/archive': [
        'readManifestState',
        'resolveShard',
        'verifyArchive',
        'VerifyError',
        'forgetReplays',
        'findReplays',
      ],
      'replay-export/sandbox': ['startSandbox', 'SANDBOX_DEFAULTS'],
      'replay-export/redaction': [
        'compileRedactionPolicy',
        'loadRedactionPolicy',
        'ReplayRedactor',
        'redactBatches',
        'RedactionPolicyError',
      ],
      'replay-export/view': ['startViewServer', 'parseIndexQuery', 'storedEvents', 'ViewError'],
      'replay-export/video': ['renderVideo', 'renderEvents', 'VideoError', 'BROWSER_ENV', 'VIDEO_DEFAULTS'],
    };
    for (const [spec, names] of Object.entries(want)) {
      const got = await namesOf(spec);
      for (const name of names) expect(got, spec).toContain(name);
    }
  });

  test("typesVersions (moduleResolution node10) maps each subpath to its exports' types, and nothing else", async () => {
    const pkg = JSON.parse(await readFile(join(packageRoot(), 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string } | string>;
      typesVersions: { '*': Record<string, string[]> };
    };
    const subpaths = Object.entries(pkg.exports).filter(([k, v]) => k !== '.' && typeof v !== 'string');
    const want = Object.fromEntries(
      subpaths.map(([k, v]) => [k.slice(2), [(v as { types: string }).types.replace(/^\.\//, '')]]),
    );
    expect(pkg.typesVersions).toEqual({ '*': want });
  });

  test('internal paths are not reachable from outside the package', async () => {
    await expect(namesOf('replay-export/dist/src/pipeline/library.js')).rejects.toThrow(
      /ERR_PACKAGE_PATH_NOT_EXPORTED/,
    );
  });
});
