/**
 * One spelling of error codes: every code replay-export throws is in the one table (src/error-codes.ts) and spelled
 * UPPER_SNAKE, as Node's and undici's own codes. The compiler already refuses a code outside the table (`ErrorInit`
 * takes an `ErrorCode`); this scans the source text too, so that a code given through a `string` (a cast, a wider
 * parameter) is caught, and old spellings are never thrown again.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, test } from 'vitest';
import { ERROR_CODES, type ErrorCode, RENAMED_CODES, renamedCode } from '../../src/error-codes.js';
import { ConfigError, type ErrorInit, type ReplayExportError } from '../../src/errors.js';
import * as library from '../../src/index.js';
import { ReplayFailedError } from '../../src/pipeline/errors.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['src', 'decoders', 'sinks', 'bin'];
/** The sandbox's answers on the wire (`{error: {code: "rate_limited"}}`) are the platform's spelling, not our codes. */
const WIRE = [
  'src/sandbox/context.ts',
  'src/sandbox/http-util.ts',
  'src/sandbox/families/',
  'src/sandbox/server.ts',
  // The S3 answers the sandbox gives a bad presigned URL (`SignatureDoesNotMatch`, `AccessDenied`): S3's words.
  'src/sandbox/presign.ts',
];

/**
 * Codes in the source that are not replay-export's error codes: someone else's, kept as data where they are used.
 * Each is listed with its file, so that a new one is a decision, not an accident.
 */
const NOT_OURS: readonly { file: string; code: string; reason: string }[] = [
  { file: 'bin/cli/program.ts', code: 'commander.unknownCommand', reason: "commander's own code, for its handler" },
  {
    file: 'sinks/hash-worker-main.ts',
    code: 'ESTALE',
    reason: 'the hashing thread reports a swapped file as the system error it is (errno name), turned into SINK_IO',
  },
  { file: 'sinks/hash-worker-source.ts', code: 'ESTALE', reason: 'the same thread, built into its source string' },
  {
    file: 'src/http/body.ts',
    code: 'body_too_large',
    reason: 'a private signal inside the transport, always turned into ApiError RESPONSE_TOO_LARGE',
  },
  {
    file: 'src/http/transport.ts',
    code: 'deadline',
    reason: "a retry event's cause beside undici's codes (`UND_ERR_SOCKET`); the error is TimeoutError TIMEOUT",
  },
];

/** The categories (`super(message, 'AUTH_FAILED', 'auth')`): an argument of the same calls, never a code. */
const CATEGORIES: ReadonlySet<string> = new Set([
  'usage',
  'auth',
  'remote',
  'data',
  'storage',
  'interrupted',
  'internal',
]);
const SPELLING = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/** Constructors that take a code as the first argument (`new SinkError('SINK_IO', …)`). */
const CODE_FIRST = /\bnew\s+(?:SinkError|DecodeError|VideoError|ViewError|VerifyError)\(\s*'([^']*)'/g;
/** A code given by name: `code: 'X'`, `code = 'X'`, `code: ErrorCode = 'X'`. */
const CODE_NAMED = /\bcode\??(?:\s*:\s*[A-Za-z]+)?\s*[:=]\s*'([^']*)'/g;
/** Calls whose later arguments may hold a code (`new ConfigError(message, 'X')`, `super(message, 'X')`). */
const CODE_LATER = /\b(?:new\s+(?:ConfigError|HttpClientError|RequestError|ApiError)|super|ConfigError\.of)\(/g;

/** The text of a call's arguments from `start` (just after its `(`) to its matching `)`. */
function argumentsAt(text: string, start: number): string {
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(start, i);
  }
  return text.slice(start);
}

/** The codes a source text gives to an error (see the patterns above). */
function codesGiven(text: string): string[] {
  const found = [...text.matchAll(CODE_FIRST), ...text.matchAll(CODE_NAMED)].map((m) => m[1]!);
  for (const call of text.matchAll(CODE_LATER)) {
    const args = argumentsAt(text, call.index + call[0].length);
    // A code is an argument that is a literal alone: a message has spaces, or is a template.
    for (const m of args.matchAll(/(?:^|,)\s*'([A-Za-z][A-Za-z0-9_]*)'\s*(?=,|$)/g))
      if (!CATEGORIES.has(m[1]!)) found.push(m[1]!);
  }
  return found;
}

async function sources(): Promise<string[]> {
  const out: string[] = [];
  for (const folder of FOLDERS) {
    for (const entry of await readdir(join(ROOT, folder), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
      const rel = relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join('/');
      if (!WIRE.some((w) => rel.startsWith(w)) && !rel.startsWith('decoders/wasm/')) out.push(rel);
    }
  }
  return out.sort();
}

describe('the one table of error codes', () => {
  test('every code is spelled UPPER_SNAKE, once, and the table is frozen', () => {
    expect(ERROR_CODES.length).toBeGreaterThan(80);
    for (const code of ERROR_CODES) expect(code, code).toMatch(SPELLING);
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    expect(Object.isFrozen(ERROR_CODES)).toBe(true);
    expect(Object.isFrozen(RENAMED_CODES)).toBe(true);
  });

  test('every code given to an error in src/, decoders/, sinks/ and bin/ is in the table', async () => {
    const files = await sources();
    expect(files.length).toBeGreaterThan(100);
    const table: ReadonlySet<string> = new Set(ERROR_CODES);
    const outside: string[] = [];
    let seen = 0;
    for (const file of files) {
      for (const code of codesGiven(await readFile(join(ROOT, file), 'utf8'))) {
        seen++;
        if (table.has(code) || NOT_OURS.some((n) => n.file === file && n.code === code)) continue;
        outside.push(`${file}: ${code}`);
      }
    }
    expect(outside, 'add the code to src/error-codes.ts, spelled UPPER_SNAKE').toEqual([]);
    expect(seen).toBeGreaterThan(100);
  });

  test('the scan sees a code given each way, and a message is not a code', () => {
    expect(codesGiven("throw new ConfigError('bad thing', 'bad_code');")).toEqual(['bad_code']);
    expect(codesGiven("new SinkError('SINK_IO', 'disk full')")).toEqual(['SINK_IO']);
    expect(codesGiven("super(message, { code: 'too_many', category: 'usage' });")).toEqual(['too_many']);
    expect(codesGiven("constructor(m: string, code: ErrorCode = 'api_error') {}")).toEqual(['api_error']);
    expect(codesGiven("super(\n  `HTTP ${s} (got ${f(x)})`,\n  'timeout',\n  ctx,\n);")).toEqual(['timeout']);
    expect(codesGiven("new ConfigError('region must be us or eu')")).toEqual([]);
    expect(codesGiven("super(status, ctx, excerpt, message, 'AUTH_FAILED', 'auth');")).toEqual(['AUTH_FAILED']);
  });

  test('each old lower-case code maps to a code of the table, and no old spelling is a code now', () => {
    const table: ReadonlySet<string> = new Set(ERROR_CODES);
    for (const [old, now] of Object.entries(RENAMED_CODES)) {
      expect(old, old).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(table.has(now), now).toBe(true);
      expect(renamedCode(old)).toBe(now);
    }
    expect(RENAMED_CODES['rate_limited']).toBe('RATE_LIMITED');
    expect(RENAMED_CODES['bad_json']).toBe('BAD_RESPONSE_JSON');
    expect(renamedCode('BAD_GZIP')).toBeUndefined();
    expect(renamedCode('toString')).toBeUndefined();
  });

  test("a replay failed by an error from outside the tree records our code, the outsider's in the message", () => {
    const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const failed = new ReplayFailedError('d/1', 'k', socket);
    expect(failed.toManifestError()).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'replay d/1 file k: UND_ERR_SOCKET: other side closed',
      file_key: 'k',
    });
    const aborted = new ReplayFailedError('d/1', undefined, Object.assign(new Error('x'), { name: 'AbortError' }));
    expect(aborted.code).toBe('INTERRUPTED');
    expect(new ReplayFailedError('d/1', undefined, 'a string').code).toBe('INTERNAL_ERROR');
  });

  test('errors carry table codes: a type, and what is thrown', () => {
    expectTypeOf<ErrorInit['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<ReplayExportError['code']>().toEqualTypeOf<ErrorCode>();
    expect(new ConfigError('x').code).toBe('CONFIG_ERROR');
    expect(new library.InterruptedError().code).toBe('INTERRUPTED');
    expect(library.ERROR_CODES).toBe(ERROR_CODES);
  });
});
