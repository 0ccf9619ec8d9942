import { randomBytes } from 'node:crypto';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeSegment,
  encodeSegment,
  isOutputKey,
  MAX_SEGMENT_BYTES,
  outputKeysOf,
  replayIdFromKey,
  replayKey,
  replayKeyBase,
} from '../../sinks/keys.js';
import { JSON_AND_NDJSON_OUTPUTS } from './helpers/outputs.js';

const HOSTILE_PIECES = [
  '',
  '.',
  '..',
  '...',
  '/',
  '//',
  '\\',
  '\0',
  '\n',
  '\r',
  '\t',
  '\x7f',
  '%',
  '%2F',
  '%2f',
  '%25',
  '%00',
  '%~',
  '%empty',
  '%none',
  '^',
  '^a',
  '~',
  ' ',
  'CON',
  'con',
  'con.txt',
  'Nul',
  'lpt1',
  'COM9',
  'aux.',
  '_manifest',
  '_staging',
  '.tmp',
  'a',
  'A',
  'é',
  'e\u0301',
  'Å',
  '\u212b',
  'ß',
  'SS',
  'ss',
  '\ud800',
  '\udc00',
  '\ud83d\ude00',
  '\ufffd',
  '😀',
  '日本',
  'ǅ',
  'İ',
  'ı',
  'K',
  '\u212a',
  ':',
  '*',
  '?',
  '"',
  '<',
  '>',
  '|',
  '-',
  '_',
  '0',
  '1763629200000',
  '2f6b7b9e-1c1d-4c2e-9b1a-1234567890ab',
  '\u2028',
  '\u00a0',
];

/** Small deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomId(rand: () => number): string {
  const n = 1 + Math.floor(rand() * 5);
  let id = '';
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.6) id += HOSTILE_PIECES[Math.floor(rand() * HOSTILE_PIECES.length)];
    else if (r < 0.8) id += String.fromCharCode(Math.floor(rand() * 0x80));
    else if (r < 0.95) id += String.fromCharCode(Math.floor(rand() * 0x10000));
    else id += 'x'.repeat(Math.floor(rand() * 400)) + String.fromCharCode(Math.floor(rand() * 0x10000));
  }
  return id;
}

function checkKey(key: string, root: string): void {
  const segments = key.split('/');
  expect(segments).toHaveLength(2);
  for (const segment of segments) {
    // Room for the local sink's temporary name `.<name>.<pid>.<8 hex>.tmp` inside 255 bytes.
    expect(Buffer.byteLength(segment) + 1 + 1 + 7 + 1 + 8 + 4).toBeLessThanOrEqual(255);
    expect(segment).toMatch(/^[a-z0-9%^][a-z0-9._%^~A-F-]*$/);
    expect(segment).not.toMatch(/\.$/);
    expect(segment.split('.')[0]).not.toMatch(/^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i);
  }
  const path = resolve(root, ...segments);
  const rel = relative(root, path);
  expect(rel.startsWith('..' + sep) || rel === '..' || isAbsolute(rel)).toBe(false);
  expect(rel.split(sep)).toHaveLength(2);
}

describe('output keys (what a sink removes)', () => {
  it('every key replayKey makes, of any id and format, is an output key; outputKeysOf gives all six', () => {
    const rand = prng(19);
    for (let i = 0; i < 3000; i++) {
      const id = randomId(rand);
      const keys = outputKeysOf(id);
      expect(new Set(keys).size).toBe(6);
      for (const key of keys) expect(isOutputKey(key), JSON.stringify(key)).toBe(true);
      expect(keys).toContain(replayKey(id, { format: 'html', gzip: true }));
    }
  });

  it('nothing else is: the manifest, staging, paths leaving the target, other depths and extensions', () => {
    for (const key of [
      'manifest.ndjson',
      '_manifest/a/b.json',
      '_staging/1-2.json',
      '../a/b.json',
      'a/../b.json',
      './a.json',
      'a/./b.json',
      '/a/b.json',
      'a\\b/c.json',
      'a/b/c.json',
      'a.json',
      'a/b',
      'a/b.txt',
      'a/.b.json',
      'a/-b.json',
      '.a/b.json',
      '',
      'a/.json',
      'a/b.json\0',
      'a/b\n.json',
      'A/b.json',
    ]) {
      expect(isOutputKey(key), JSON.stringify(key)).toBe(false);
    }
  });
});

describe('replay keys', () => {
  it('keeps ordinary ids readable', () => {
    expect(replayKey('2f6b7b9e-1c1d-4c2e-9b1a-1234567890ab/1763629200000', JSON_AND_NDJSON_OUTPUTS[0]!)).toBe(
      '2f6b7b9e-1c1d-4c2e-9b1a-1234567890ab/1763629200000.json',
    );
    expect(replayKey('dev/sess', { format: 'ndjson', gzip: true })).toBe('dev/sess.ndjson.gz');
    expect(replayKey('dev/sess', { format: 'json', gzip: true })).toBe('dev/sess.json.gz');
    expect(replayKey('Dev/A.b', { format: 'ndjson', gzip: false })).toBe('^dev/^a.b.ndjson');
  });

  it('escapes dot names, separators, reserved names and special tokens', () => {
    expect(replayKeyBase('../..')).toBe('%2E%2E/%2E%2E');
    expect(replayKeyBase('./.')).toBe('%2E/%2E');
    expect(replayKeyBase('a/../b')).toBe('a%2F.%2E/b'); // split at the last slash
    expect(replayKeyBase('-rf/-')).toBe('%2Drf/%2D');
    expect(replayKeyBase('a\\b/c')).toBe('a%5Cb/c');
    expect(replayKeyBase('con/nul.txt')).toBe('%63on/%6Eul.txt');
    expect(replayKeyBase('/x')).toBe('%empty/x');
    expect(replayKeyBase('x')).toBe('%none/x');
    expect(replayKeyBase('x/')).toBe('x/%empty');
    expect(replayKeyBase('%empty/%none')).toBe('%25empty/%25none');
    expect(replayKeyBase('_manifest/a.')).toBe('%5Fmanifest/a%2E');
    expect(replayKeyBase('a\0b/\u0001')).toBe('a%00b/%01');
  });

  it('keeps unicode normalisation forms, case variants and lone surrogates apart', () => {
    const nfc = 'caf\u00e9/1';
    const nfd = 'cafe\u0301/1';
    expect(nfc.normalize('NFD')).toBe(nfd);
    expect(replayKeyBase(nfc)).not.toBe(replayKeyBase(nfd));
    expect(replayKeyBase('ABC/1').toLowerCase()).not.toBe(replayKeyBase('abc/1').toLowerCase());
    expect(replayKeyBase('\ud800/1')).not.toBe(replayKeyBase('\udc00/1'));
    expect(replayKeyBase('\ud800/1')).not.toBe(replayKeyBase('\ufffd/1'));
  });

  it('shortens long segments with a hash, staying distinct', () => {
    const s1 = encodeSegment('a'.repeat(1000));
    const s2 = encodeSegment('a'.repeat(999) + 'b');
    expect(s1.length).toBeLessThanOrEqual(MAX_SEGMENT_BYTES);
    expect(s1).not.toBe(s2);
    expect(s1).toMatch(/%~[0-9a-f]{32}$/);
    expect(decodeSegment(s1)).toBeUndefined();
    // A multi-byte character is never cut in the middle of its escape.
    const s3 = encodeSegment('é'.repeat(300));
    expect(s3.slice(0, -34)).toMatch(/^(%C3%A9)+$/);
    const s4 = encodeSegment('A'.repeat(300));
    expect(s4.slice(0, -34)).toMatch(/^(\^a)+$/);
  });

  it('decodes every unshortened key back to its id', () => {
    const rand = prng(7);
    let checked = 0;
    for (let i = 0; i < 3000; i++) {
      const id = randomId(rand);
      const key = replayKey(id, JSON_AND_NDJSON_OUTPUTS[i % 4]!);
      if (key.includes('%~')) continue;
      expect(replayIdFromKey(key)).toBe(id);
      checked++;
    }
    expect(checked).toBeGreaterThan(2000);
    expect(replayIdFromKey('a/b%2')).toBeUndefined();
    expect(replayIdFromKey('A/b.json')).toBeUndefined();
  });

  it('maps many random and hostile ids to distinct keys inside the target (property)', () => {
    const root = resolve('/srv/replays');
    const rand = prng(20261120);
    const ids = new Set<string>();
    for (const a of HOSTILE_PIECES) {
      ids.add(a);
      for (const b of HOSTILE_PIECES) ids.add(`${a}/${b}`);
    }
    for (let i = 0; i < 20000; i++) ids.add(randomId(rand));
    for (let i = 0; i < 200; i++) ids.add(randomBytes(1 + (i % 300)).toString('latin1'));
    const keys = new Map<string, string>();
    const folded = new Map<string, string>();
    let n = 0;
    for (const id of ids) {
      checkKey(replayKey(id, JSON_AND_NDJSON_OUTPUTS[n++ % 4]!), root);
      const key = replayKeyBase(id);
      const previous = keys.get(key);
      if (previous !== undefined)
        throw new Error(`ids ${JSON.stringify(previous)} and ${JSON.stringify(id)} share key ${key}`);
      keys.set(key, id);
      // Distinct on case-insensitive file systems too.
      const lower = key.toLowerCase();
      const clash = folded.get(lower);
      if (clash !== undefined)
        throw new Error(`ids ${JSON.stringify(clash)} and ${JSON.stringify(id)} fold to ${lower}`);
      folded.set(lower, id);
    }
    expect(keys.size).toBe(ids.size);
  });

  it('a part left as it is decodes to itself, and one that is not decodes back too (the plain fast path, property)', () => {
    const alphabet = 'ab09._-A^%';
    let seed = 7;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (const part of [
      'con',
      'con.x',
      'conx',
      'lpt1',
      'nul.',
      'a.',
      '.a',
      '-a',
      '_a',
      'a-',
      'a_',
      'a.b',
      'x'.repeat(200),
      'x'.repeat(201),
    ]) {
      expect(decodeSegment(encodeSegment(part)) ?? 'hashed', part).toBe(part.length > 200 ? 'hashed' : part);
    }
    for (let i = 0; i < 20_000; i++) {
      const part = Array.from({ length: 1 + next(7) }, () => alphabet[next(alphabet.length)]).join('');
      const encoded = encodeSegment(part);
      expect(decodeSegment(encoded), part).toBe(part);
      const unchanged =
        /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9_-])?$/.test(part) && !/^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/.test(part);
      expect(encoded === part, part).toBe(unchanged);
    }
  });
});
