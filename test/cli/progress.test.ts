import { EventEmitter } from 'node:events';
import { describe, expect, test, vi } from 'vitest';
import {
  ETA_MIN_DONE,
  PROGRESS_HZ,
  progressLine,
  ProgressRenderer,
  statusLine,
  type ProgressState,
} from '../../bin/cli/progress.js';
import { failedLine } from '../../bin/cli/reporter.js';

const state = (s: Partial<ProgressState> = {}): ProgressState => ({
  elapsedMs: 65_000,
  done: 12,
  listed: 40,
  listingComplete: false,
  events: 123_456,
  bytes: 5 * 1024 * 1024,
  ...s,
});

describe('progressLine', () => {
  test('while listing: a count and a rate, no bar and no ETA (there is no total yet); then a bar and an ETA', () => {
    const line = progressLine(state(), 200);
    expect(line).toBe('1m05s  12 done, 40 listed  listing…  0.2 replays/s  5.0 MiB  123456 events');
    // The default order: the listing a few replays ahead of the exports is no total to fill a bar against.
    expect(progressLine(state({ done: 39, listed: 40 }), 200)).not.toMatch(/[[#\]]|ETA/);
    const done = progressLine(state({ listingComplete: true }), 200);
    expect(done).toMatch(
      /^\[#+\.+\] {2}1m05s {2}12\/40 replays {2}listed {2}ETA 2m31s {2}5\.0 MiB {2}123456 events {2}0\.2 replays\/s$/,
    );
  });

  test('the periodic status line (stderr not a terminal) says every part, with no bar', () => {
    expect(statusLine(state())).toBe(
      'progress: 1m05s, 12 done, 40 listed, listing…, 0.2 replays/s, 5.0 MiB, 123456 events',
    );
    expect(statusLine(state({ listingComplete: true }))).toContain('12/40 replays, listed, ETA 2m31s');
  });

  test('an ETA from the rate once the listing is complete and enough replays are done', () => {
    expect(progressLine(state({ listingComplete: true, done: ETA_MIN_DONE - 1 }), 200)).toContain('ETA --');
    // 20 done in 10 s: 2 a second, 20 left → 10 s.
    expect(progressLine(state({ listingComplete: true, done: 20, listed: 40, elapsedMs: 10_000 }), 200)).toContain(
      'ETA 10s',
    );
  });

  test('never wider than the terminal less one column, whatever the width; parts dropped from the least useful', () => {
    for (let cols = 1; cols <= 200; cols++) {
      for (const s of [
        state(),
        state({ done: 123_456, listed: 999_999, events: 10 ** 12, bytes: 10 ** 15, elapsedMs: 10 ** 9 }),
      ]) {
        const line = progressLine(s, cols);
        expect(line.length, `${cols}: ${line}`).toBeLessThanOrEqual(cols - 1);
        expect(line).not.toMatch(/[\r\n]/);
      }
    }
    const narrow = progressLine(state(), 40);
    expect(narrow).toContain('12 done, 40 listed');
    expect(narrow).not.toContain('events');
  });
});

class FakeTerminal extends EventEmitter {
  columns = 80;
  written: string[] = [];
  write(chunk: string): boolean {
    this.written.push(chunk);
    return true;
  }
}

describe('ProgressRenderer', () => {
  test('draws on start, redraws at the new width on resize, clears before a line and leaves nothing at stop', () => {
    const term = new FakeTerminal();
    const r = new ProgressRenderer(term, () => state({ listingComplete: true }));
    r.draw(); // not started: nothing
    expect(term.written).toEqual([]);
    r.start();
    expect(term.written.at(-1)).toMatch(/^\r\x1b\[2K\[/);
    term.columns = 30;
    term.emit('resize');
    const last = term.written.at(-1)!;
    expect(last.startsWith('\r\x1b[2K')).toBe(true);
    expect(last.slice('\r\x1b[2K'.length).length).toBeLessThanOrEqual(29);
    r.clear();
    expect(term.written.at(-1)).toBe('\r\x1b[2K');
    r.draw();
    r.stop();
    expect(term.written.at(-1)).toBe('\r\x1b[2K');
    const n = term.written.length;
    term.emit('resize');
    r.draw();
    r.stop();
    expect(term.written).toHaveLength(n);
  });

  test('redraws on a timer', () => {
    vi.useFakeTimers();
    try {
      const term = new FakeTerminal();
      let calls = 0;
      const r = new ProgressRenderer(term, () => (calls++, state()));
      r.start();
      expect(calls).toBe(1); // drawn at once
      vi.advanceTimersByTime(1000);
      expect(calls).toBe(1 + PROGRESS_HZ);
      r.stop();
      vi.advanceTimersByTime(1000);
      expect(calls).toBe(1 + PROGRESS_HZ);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('failedLine', () => {
  test('names the replay and the file once each', () => {
    const id = 'dev-1/1795308171251';
    const key = 'dev-1/1795308171251/file-0003.bin';
    const line = failedLine(id, {
      file_key: key,
      message: `replay ${id} file ${key}: cannot decode file ${key} of replay ${id}: bad header`,
    });
    expect(line).toBe(`failed ${id} file ${key}: cannot decode the file of the replay: bad header`);
    expect(failedLine(id, { message: `replay ${id}: HTTP 500` })).toBe(`failed ${id}: HTTP 500`);
  });
});
