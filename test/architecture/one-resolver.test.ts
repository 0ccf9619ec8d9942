/**
 * The spine's rules (issue 38): the run resolves the configuration, alone and once — option or flag, then the
 * environment, then the defaults — and is the one way into an archive; the CLI's flags hold the command line only.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

/** Each source file of the program (src, decoders, sinks, bin), its path and its code without comments. */
async function sources(): Promise<{ file: string; code: string }[]> {
  const root = packageRoot();
  const out: { file: string; code: string }[] = [];
  for (const folder of ['src', 'decoders', 'sinks', 'bin']) {
    for (const name of await readdir(join(root, folder), { recursive: true })) {
      if (!name.endsWith('.ts') || name.startsWith('wasm/')) continue;
      const text = await readFile(join(root, folder, name), 'utf8');
      const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      out.push({ file: `${folder}/${name}`, code });
    }
  }
  return out;
}

/** The files whose code calls `name(` (a call, not its definition or a mention in a comment). */
async function callersOf(name: string): Promise<string[]> {
  const call = new RegExp(`(?<!function |\\.)\\b${name}\\(`);
  return (await sources()).filter(({ code }) => call.test(code)).map(({ file }) => file);
}

describe('one resolver: the run', () => {
  test('resolveSettings and resolvePlatform are called by the run alone', async () => {
    expect(await callersOf('resolveSettings')).toEqual(['src/pipeline/run.ts']);
    expect(await callersOf('resolvePlatform')).toEqual(['src/pipeline/run.ts']);
  });

  test('the library names no CLI flag: no `--flag` in the settings, the platform or the run', async () => {
    for (const { file, code } of await sources()) {
      if (!/^src\/pipeline\/(settings|platform|run|library)\.ts$/.test(file)) continue;
      expect(code.match(/['`]--[a-z]/g) ?? [], file).toEqual([]);
    }
  });

  test('no flag of the CLI takes its value from the environment: the run reads PLATFORM_* and the rest once', async () => {
    for (const { file, code } of await sources()) {
      if (!file.startsWith('bin/')) continue;
      expect(code.match(/\.env\(\s*['A-Z]/g) ?? [], file).toEqual([]);
    }
  });
});

describe('one way into an archive: run.archive()', () => {
  test('openArchive and archiveOfSink are called by the run alone (outside sinks/, which defines them)', async () => {
    const outside = async (name: string): Promise<string[]> =>
      (await callersOf(name)).filter((file) => !file.startsWith('sinks/'));
    expect(await outside('openArchive')).toEqual(['src/pipeline/run.ts']);
    expect(await outside('archiveOfSink')).toEqual(['src/pipeline/run.ts']);
  });
});
