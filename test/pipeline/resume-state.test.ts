import { describe, expect, it } from 'vitest';
import type { ManifestEntry } from '../../sinks/sink.js';
import { IdTable } from '../../sinks/id-table.js';
import { ResumeState, type ResumeStateOptions } from '../../src/pipeline/resume-state.js';
import { shardOf } from '../../src/pipeline/shard.js';
import { userTombstoneId } from '../../src/pipeline/tombstone.js';
import { line } from '../sinks/helpers/entries.js';

describe('IdTable', () => {
  it('agrees with a Map over 50,000 ids (growth and rehashing included), ASCII, Latin-1 and wide characters', () => {
    const table = new IdTable();
    const map = new Map<string, number>();
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const alphabet = ['a', 'b', '0', '9', '/', '-', 'é', 'ÿ', '日', '🙂', '\uD800', '\uDC00', '\u0100'];
    for (let i = 0; i < 50_000; i++) {
      let id = '';
      const len = 1 + rnd(12);
      for (let j = 0; j < len; j++) id += alphabet[rnd(alphabet.length)];
      const value = rnd(256);
      table.set(id, value);
      map.set(id, value);
    }
    expect(table.size).toBe(map.size);
    for (const [id, value] of map) expect(table.get(id), id).toBe(value);
    for (const probe of ['', 'zz', 'a'.repeat(300), '日本', 'é/é']) expect(table.get(probe)).toBe(map.get(probe));
  });

  it('keeps ids exactly: lone surrogates, one-byte and two-byte forms of look-alikes stay distinct', () => {
    const table = new IdTable();
    const ids = [
      'a\uD800',
      'a\uDC00',
      'a\uFFFD',
      'a',
      'a\u0000',
      '\u00e9',
      'e\u0301',
      '\u0100',
      '\u0000\u0001',
      '\u0001',
    ];
    ids.forEach((id, i) => table.set(id, i));
    expect(table.size).toBe(ids.length);
    ids.forEach((id, i) => expect(table.get(id)).toBe(i));
    const long = 'x'.repeat(70_000) + '\u4e00';
    table.set(long, 200);
    expect(table.get(long)).toBe(200);
    expect(table.get(long.slice(0, -1))).toBeUndefined();
  });

  it('set returns a stable index that indexOf finds again after growth', () => {
    const table = new IdTable();
    const first = table.set('first', 1);
    for (let i = 0; i < 10_000; i++) table.set(`id-${i}`, 0);
    expect(table.indexOf('first')).toBe(first);
    expect(table.set('first', 2)).toBe(first);
    expect(table.get('first')).toBe(2);
    expect(table.indexOf('absent')).toBe(-1);
  });
});

describe('ResumeState', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  const options: ResumeStateOptions = { keyFor: (id) => `${id}.json`, now };
  const ok = (id: string, extra: Record<string, unknown> = {}): ManifestEntry =>
    line({ replay_id: id, status: 'ok', key: `${id}.json`, recorded_at: '', ...extra });

  it('the last entry of an id counts: ok then failed is not done; failed then ok is', () => {
    const s = new ResumeState();
    s.add(ok('a'), options);
    s.add(line({ replay_id: 'a', status: 'failed', recorded_at: '' }), options);
    s.add(line({ replay_id: 'b', status: 'failed', recorded_at: '' }), options);
    s.add(ok('b'), options);
    s.add(line({ replay_id: 'c', status: 'skipped', recorded_at: '' }), options);
    expect([s.doneAtKey('a'), s.doneAtKey('b'), s.doneAtKey('c'), s.doneAtKey('d')]).toEqual([
      false,
      true,
      false,
      false,
    ]);
  });

  it('knows replays last recorded settling, until another entry follows', () => {
    const s = new ResumeState();
    const settling = (id: string): ManifestEntry =>
      line({ replay_id: id, status: 'skipped', reason: 'settling', recorded_at: '' });
    s.add(settling('a'), options);
    s.add(settling('b'), options);
    s.add(ok('b'), options);
    s.add(settling('c'), options);
    s.add(line({ replay_id: 'c', status: 'failed', recorded_at: '' }), options);
    expect([s.settling('a'), s.settling('b'), s.settling('c'), s.settling('d')]).toEqual([true, false, false, false]);
    expect([s.doneAtKey('a'), s.doneAtKey('b')]).toEqual([false, true]);
  });

  it('an ok entry at another key (other format or layout) is not done', () => {
    const s = new ResumeState();
    s.add(ok('a', { key: 'a.ndjson' }), options);
    s.add(ok('b', { key: undefined }), options);
    expect(s.doneAtKey('a')).toBe(false);
    expect(s.doneAtKey('b')).toBe(false);
  });

  it('keeps only the ids of its shard', () => {
    const shard = { index: 1, count: 3 };
    const s = new ResumeState();
    const ids = Array.from({ length: 60 }, (_, i) => `dev/${1795308171251 + i}`);
    for (const id of ids) s.add(ok(id), { ...options, shard });
    for (const id of ids) expect(s.doneAtKey(id), id).toBe(shardOf(id, 3) === 1);
  });

  it('keeps file keys only with a recheck window, only for replays that started within it, and drops them when undone', () => {
    const recent = new Date(now - 3_600_000).toISOString();
    const old = new Date(now - 10 * 86_400_000).toISOString();
    const keys = ['k1', 'k2'];
    const windowed = { ...options, recheckMs: 86_400_000 };
    const s = new ResumeState();
    s.add(ok('recent', { start_time: recent, file_keys: keys }), windowed);
    s.add(ok('old', { start_time: old, file_keys: keys }), windowed);
    s.add(ok('unreadable', { start_time: 'soon', file_keys: keys }), windowed);
    s.add(ok('undone', { start_time: recent, file_keys: keys }), windowed);
    s.add(line({ replay_id: 'undone', status: 'failed', recorded_at: '' }), windowed);
    expect(s.fileKeys('recent')).toEqual(keys);
    expect(s.fileKeys('old')).toBeUndefined();
    expect(s.fileKeys('unreadable')).toEqual(keys);
    expect(s.fileKeys('undone')).toBeUndefined();
    const none = new ResumeState();
    none.add(ok('recent', { start_time: recent, file_keys: keys }), options);
    expect(none.fileKeys('recent')).toBeUndefined();
    expect(none.doneAtKey('recent')).toBe(true);
  });

  it('a tombstone is the state until another entry of the id follows; a user tombstone covers every replay of the user', () => {
    const s = new ResumeState();
    const forgotten = (id: string, extra: Record<string, unknown> = {}): ManifestEntry =>
      line({ replay_id: id, status: 'forgotten', scope: 'replay', recorded_at: '', ...extra });
    s.add(ok('a'), options);
    s.add(forgotten('a'), options);
    s.add(forgotten('b'), options);
    // A run that was exporting b while forget ran records ok afterwards: the last entry is its state (as a fold keeps
    // it), and running forget again forgets it again.
    s.add(ok('b'), options);
    expect([s.forgotten({ replay_id: 'b' }), s.doneAtKey('b')]).toEqual([false, true]);
    s.add(forgotten('never-archived'), options);
    s.add(
      line({
        replay_id: userTombstoneId('123'),
        status: 'forgotten',
        scope: 'user',
        platform_id: 123,
        recorded_at: '',
      }),
      options,
    );
    expect(s.forgotten({ replay_id: 'a' })).toBe(true);
    expect(s.doneAtKey('a')).toBe(false);
    expect(s.forgotten({ replay_id: 'never-archived' })).toBe(true);
    expect(s.forgotten({ replay_id: 'new/1', platform_id: 123 })).toBe(true);
    expect(s.forgotten({ replay_id: 'new/1', platform_id: 124 })).toBe(false);
    expect(s.forgotten({ replay_id: 'new/1', platform_id: Number.NaN })).toBe(false);
    expect(s.forgotten({ replay_id: 'new/1' })).toBe(false);
    // The same user tombstone fields under any other id, or with a mismatched id, forget no user.
    const t = new ResumeState();
    t.add(line({ replay_id: 'dev/1', status: 'forgotten', scope: 'user', platform_id: 7, recorded_at: '' }), options);
    t.add(
      line({ replay_id: userTombstoneId('8'), status: 'forgotten', scope: 'user', platform_id: 9, recorded_at: '' }),
      options,
    );
    expect([
      t.forgotten({ replay_id: 'x/1', platform_id: 7 }),
      t.forgotten({ replay_id: 'x/1', platform_id: 9 }),
    ]).toEqual([false, false]);
    expect(t.forgotten({ replay_id: 'dev/1' })).toBe(true);
  });

  it('a user tombstone counts in every shard, whichever shard its own id falls in', () => {
    const user = userTombstoneId('42');
    for (let index = 0; index < 3; index++) {
      const s = new ResumeState();
      s.add(line({ replay_id: user, status: 'forgotten', scope: 'user', platform_id: 42, recorded_at: '' }), {
        ...options,
        shard: { index, count: 3 },
      });
      expect(s.forgotten({ replay_id: 'd/1', platform_id: 42 }), String(index)).toBe(true);
    }
  });
});
