import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

/**
 * Every error the library throws is a `ReplayExportError` (src/errors.ts): a raw `Error`, `TypeError` or `RangeError`
 * escapes the tree and exits 1 as `internal`, whatever it means. This scans the library's source text (src/, decoders/,
 * sinks/) and fails on any raw throw or rejection outside the allow-list below.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['src', 'decoders', 'sinks'];

/**
 * Folders not scanned. decoders/wasm/ is AssemblyScript, compiled by scripts/build-wasm.mjs (`--runtime stub`) into
 * the WebAssembly module that decoders/wasm-instance.ts instantiates with no imports: a `throw` there could only be a
 * trap (`unreachable`, there is no `abort` import), never an object of this tree, and the source is not the library's
 * TypeScript (it holds no throw today). The TypeScript around the module is scanned.
 */
const EXCLUDED = ['decoders/wasm/'];

/**
 * Files whose raw throws are not the library's: code that runs in another realm (the viewer's browser page, a worker
 * thread evaluated from a string), where the error tree does not exist; what they throw is reported across the
 * boundary as a message and turned into a typed error on this side.
 */
const ALLOWED: readonly { file: string; reason: string }[] = [
  {
    file: 'sinks/player/browser/main.ts',
    reason: "the player's browser code (run in the page; shown in its status line)",
  },
  {
    file: 'sinks/player/browser/api.ts',
    reason: "window.player's argument errors, thrown in the page to the code that embeds the player",
  },
  {
    file: 'sinks/player/player-script.ts',
    reason: "the same browser code, built into the page's script (npm run build:inlined)",
  },
];

const RAW =
  /\b(?:throw\s+|reject\(\s*)(?:Object\.assign\(\s*)?(?:new\s+)?(?:Error|TypeError|RangeError|SyntaxError|ReferenceError)\s*\(/;

/**
 * The only files that may throw `InternalError` (a broken invariant of replay-export itself): anything a caller or an
 * input can cause has its own error (`ConfigError`, `DecodeError`, `SinkError`, ...), so this list stays short.
 */
const INTERNAL: readonly { file: string; reason: string }[] = [
  { file: 'decoders/runs.ts', reason: 'an event over 2^31 - 1 bytes: maxEventBytes is capped at 1 GiB' },
  { file: 'sinks/id-table.ts', reason: '65,535 chunks of 8 MiB of ids: memory runs out long before' },
  { file: 'sinks/player-page.ts', reason: 'the installed rrweb bundle holds a closing tag (a broken install)' },
  { file: 'src/http/limiter.ts', reason: 'a request of an API family the limiter was not configured with' },
  { file: 'src/http/regions.ts', reason: 'a host kind with no host (the region is checked first: a ConfigError)' },
  { file: 'src/http/transport.ts', reason: 'a request after the transport was closed' },
  { file: 'src/pipeline/archive-run.ts', reason: 'asset capture on, and the run built no capture' },
  { file: 'src/pipeline/export-replay.ts', reason: 'asset capture on, and the run built no capture' },
  { file: 'src/pipeline/ordered-prefetch.ts', reason: 'a prefetched body read twice, or after it was discarded' },
  { file: 'src/util/package-root.ts', reason: 'no package.json above the module (a broken install)' },
  { file: 'src/verify/verify-archive.ts', reason: 'a verification iterated twice' },
];

const INTERNAL_THROW = /\bnew\s+InternalError\s*\(/;

async function sources(folder: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(ROOT, folder), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const rel = relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join('/');
    if (!EXCLUDED.some((prefix) => rel.startsWith(prefix))) out.push(rel);
  }
  return out.sort();
}

/** `file:line: text` of each line of a file that `pattern` matches, doc and line comments left out. */
async function linesMatching(file: string, pattern: RegExp): Promise<string[]> {
  const lines = (await readFile(join(ROOT, file), 'utf8')).split('\n');
  const hits: string[] = [];
  lines.forEach((line, i) => {
    const code = line.trimStart();
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
    if (pattern.test(code)) hits.push(`${file}:${i + 1}: ${code}`);
  });
  return hits;
}

describe('no raw throws in library code', () => {
  test('src/, decoders/ and sinks/ throw only typed errors (outside the allow-list)', async () => {
    const files = (await Promise.all(FOLDERS.map(sources))).flat();
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) {
      if (ALLOWED.some((a) => a.file === file)) continue;
      found.push(...(await linesMatching(file, RAW)));
    }
    expect(found, 'throw a typed error (ConfigError, DecodeError, SinkError, InternalError, ...) instead').toEqual([]);
  });

  test('InternalError is thrown only where the allow-list says (broken invariants, not inputs)', async () => {
    const files = (await Promise.all(FOLDERS.map(sources))).flat();
    const found: string[] = [];
    for (const file of files) {
      if (file === 'src/errors.ts' || INTERNAL.some((a) => a.file === file)) continue;
      found.push(...(await linesMatching(file, INTERNAL_THROW)));
    }
    expect(found, 'a caller or an input can cause this: throw its own error (ConfigError, DecodeError, ...)').toEqual(
      [],
    );
  });

  test('each allow-list entry still names a file with a raw throw (no stale entry)', async () => {
    for (const { file } of ALLOWED) expect((await linesMatching(file, RAW)).length, file).toBeGreaterThan(0);
    for (const { file } of INTERNAL)
      expect((await linesMatching(file, INTERNAL_THROW)).length, file).toBeGreaterThan(0);
  });

  test('the scan sees a raw throw, a rejection and a wrapped one', () => {
    for (const line of [
      "throw new Error('x');",
      'if (a) throw new TypeError(`bad ${a}`);',
      'return Promise.reject(new Error("no"));',
      "throw Object.assign(new RangeError('r'), { code: 1 });",
      "throw TypeError('without new');",
    ]) {
      expect(RAW.test(line), line).toBe(true);
    }
    expect(RAW.test("throw new ConfigError('region must be us or eu');")).toBe(false);
    expect(RAW.test("throw new InternalError('a broken invariant');")).toBe(false);
  });
});
