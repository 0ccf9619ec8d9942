/**
 * The option shapes may not grow back (issue 38): a command binds its flags into its library entry's options, the run
 * resolves them once into `Settings` and `PlatformSettings`, the transport takes those; no side path of types between
 * a flag and a request. Counted from the sources' text (comments left out), so that a new shape fails here until it
 * is written into these tables on purpose:
 * - each command names at most the option shapes listed for it (its flags, their shared parts, its entry's options);
 * - each module of the path from a flag to a request declares at most the option shapes listed for it;
 * - the conditional spreads `...(c ? { … } : {})` of the program stay at most `SPREADS` (exactOptionalPropertyTypes:
 *   an option left out is `undefined`, written as a value; a spread is kept where a type refuses `undefined`).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

/** A type named as an option shape: flags, options, settings, their source, a request's spec. */
const SHAPE = /\b[A-Z]\w*(?:Options|Settings|Source|Flags|Request|Spec)\b/g;
/** A declaration of one. */
const DECLARED =
  /^\s*(?:export\s+)?(?:interface|type)\s+([A-Z]\w*(?:Options|Settings|Source|Flags|Request|Spec))\b(?=\s*(?:[{=<]|extends))/gm;

/** What each command's module names (declared or imported): its flags and their parts, its entry's options. */
const COMMAND_SHAPES: Readonly<Record<string, readonly string[]>> = {
  api: ['ApiOptions', 'CallOptions'],
  archive: ['ArchiveFlags', 'SinkFlags', 'ArchiveOptions'],
  auth: ['AuthFlags'],
  completion: [],
  decode: ['DecodeFlags', 'LimitFlags', 'DecodeOptions', 'RunOptions'],
  export: ['SinkFlags', 'ExportReplaysOptions'],
  find: ['FindFlags', 'S3ReadFlags', 'FindOptions'],
  forget: ['ForgetFlags', 'S3ReadFlags', 'ForgetOptions'],
  list: ['ListFlags'],
  sandbox: ['SandboxFlags'],
  verify: ['VerifyFlags', 'S3ReadFlags', 'LimitFlags', 'VerifyOptions'],
  version: [],
  video: ['VideoFlags', 'S3ReadFlags', 'VideoOptions', 'VideoSource'],
  view: ['ViewFlags', 'S3ReadFlags', 'LimitFlags', 'ViewServerOptions'],
};

/** The option shapes each module of the path from a flag to a request declares. */
const DECLARED_SHAPES: Readonly<Record<string, readonly string[]>> = {
  'bin/cli/context.ts': ['GlobalFlags'],
  'bin/cli/flags.ts': ['LimitFlags', 'S3ReadFlags'],
  'bin/cli/sink-flags.ts': ['SinkFlags', 'WriteOptions'],
  'src/pipeline/settings.ts': [
    'FetchSettingsOptions',
    'AssetCaptureOptions',
    'OutputSettingsOptions',
    'RunSettingsOptions',
    'SettingsOptions',
    'SettingsSource',
    'SinkSettings',
  ],
  'src/pipeline/platform.ts': ['PlatformOptions', 'PlatformSettings'],
  'src/pipeline/run.ts': ['RunOptions', 'ConnectionOptions', 'RunSource', 'EntryOptions'],
  'src/pipeline/library.ts': ['ReplayEventsOptions', 'ExportReplayOptions', 'ExportReplaysOptions', 'ArchiveOptions'],
  'src/pipeline/forget.ts': ['ForgetOptions'],
  'src/pipeline/find.ts': ['FindOptions'],
  'src/verify/verify-archive.ts': ['VerifyOptions'],
  'src/view/server.ts': ['ViewServerOptions'],
  'src/http/options.ts': [
    'AdaptiveOptions',
    'RetryOptions',
    'TimeoutOptions',
    'TransportOptions',
    'ResolvedTransportOptions',
  ],
  'sinks/archive.ts': ['OpenArchiveOptions'],
  'sinks/locate.ts': ['OpenStoreOptions'],
  'sinks/open.ts': ['OpenSinkOptions'],
};

/** At most this many conditional spreads in src, decoders, sinks and bin (38 when the option was turned on). */
const SPREADS = 36;

/** A source file's code without its comments. */
async function code(file: string): Promise<string> {
  const text = await readFile(join(packageRoot(), file), 'utf8');
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** The program's TypeScript files (src, decoders, sinks, bin), relative to the root; no tests, no declarations. */
async function programFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const folder of ['src', 'decoders', 'sinks', 'bin']) {
    for (const name of await readdir(join(packageRoot(), folder), { recursive: true })) {
      if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.startsWith('wasm/')) out.push(`${folder}/${name}`);
    }
  }
  return out;
}

/** The conditional spreads of `text`: `...(` up to its closing parenthesis, a `?` inside and `: {}` at its end. */
function conditionalSpreads(text: string): number {
  let count = 0;
  for (let at = text.indexOf('...('); at !== -1; at = text.indexOf('...(', at + 4)) {
    let depth = 1;
    let i = at + 4;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')') depth--;
    }
    const inside = text.slice(at + 4, i - 1);
    if (inside.includes('?') && /:\s*\{\s*\}\s*$/.test(inside)) count++;
  }
  return count;
}

const unique = (names: Iterable<string>): string[] => [...new Set(names)].sort();

describe('option shapes do not grow', () => {
  test('a command names no option shape beyond its flags and its entry’s options (at most 4)', async () => {
    const commands = (await readdir(join(packageRoot(), 'bin/cli/commands'))).filter((n) => n.endsWith('.ts'));
    for (const name of commands) {
      const command = name.replace(/\.ts$/, '');
      const named = unique((await code(`bin/cli/commands/${name}`)).match(SHAPE) ?? []);
      const allowed = COMMAND_SHAPES[command];
      expect(allowed, `${command}: add it to COMMAND_SHAPES`).toBeDefined();
      expect(
        named.filter((n) => !allowed!.includes(n)),
        command,
      ).toEqual([]);
      expect(named.length, command).toBeLessThanOrEqual(4);
    }
  });

  test('no module on the path from a flag to a request declares a new option shape', async () => {
    for (const [file, allowed] of Object.entries(DECLARED_SHAPES)) {
      const declared = unique([...(await code(file)).matchAll(DECLARED)].map((m) => m[1]!));
      expect(
        declared.filter((n) => !allowed.includes(n)),
        file,
      ).toEqual([]);
    }
  });

  test(`at most ${SPREADS} conditional spreads in the program`, async () => {
    let total = 0;
    for (const file of await programFiles()) total += conditionalSpreads(await code(file));
    expect(total).toBeLessThanOrEqual(SPREADS);
  });

  test('a conditional spread is counted, one line or many; a plain spread is not', () => {
    const text = [
      'const a = { ...(x ? { y } : {}), ...rest, ...(f(g) ? {',
      '  z: h(1),',
      '} : {}), ...(k ?? {}) };',
    ].join('\n');
    expect(conditionalSpreads(text)).toBe(2);
  });
});
