import { describe, expect, test } from 'vitest';
import { escapeControls, jsonLine, Reporter } from '../../bin/cli/reporter.js';
import type { ArchiveEvent } from '../../src/pipeline/archive.js';
import { line } from '../sinks/helpers/entries.js';

/** A stand-in for stderr that keeps what is written (not a terminal: no progress bar). */
function capture(): { stream: NodeJS.WriteStream; text: () => string } {
  let out = '';
  const stream = { isTTY: false, write: (chunk: string) => ((out += chunk), true) } as unknown as NodeJS.WriteStream;
  return { stream, text: () => out };
}

const hostileId = 'dev\nok forged/1 → x (1 events, 1 B)\nSummary (x): ok 99\x1b[2J\x1b]0;title\x07\u009b31m\u202etxt';

function resultOf(replayId: string, outcome: 'ok' | 'failed'): ArchiveEvent {
  return outcome === 'ok'
    ? {
        type: 'result',
        replayId,
        outcome,
        entry: line({
          replay_id: replayId,
          status: 'ok',
          key: `k/${replayId}`,
          event_count: 1,
          bytes: 1,
          recorded_at: '',
        }),
      }
    : ({
        type: 'result',
        replayId,
        outcome,
        entry: {
          replay_id: replayId,
          status: 'failed',
          error: { code: 'x', message: `bad ${replayId}`, file_key: replayId },
          recorded_at: '',
        },
      } as ArchiveEvent);
}

describe('text logs', () => {
  test('a replay id with newlines and terminal controls cannot forge lines or reach the terminal raw', () => {
    const out = capture();
    const reporter = new Reporter('text', [], out.stream);
    reporter.onEvent(resultOf(hostileId, 'ok'));
    reporter.onEvent(resultOf(hostileId, 'failed'));
    reporter.summary(`out\n${hostileId}`);
    const lines = out.text().split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines).toHaveLength(4); // ok, failed, summary, and the empty rest after the final newline
    expect(lines[0]).toMatch(/^ok dev\\nok forged/);
    expect(lines[1]).toMatch(/^error: failed dev\\n/);
    expect(lines[2]).toMatch(/^Summary \(out\\ndev\\n/);
    expect(out.text()).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(out.text()).toContain('\\x1b[2J');
    expect(out.text()).toContain('\\u202e');
  });

  test('escapeControls shows each control character as an escape and leaves other text as it is', () => {
    expect(escapeControls('a\tb\rc\nd\x00e\x7f\u0085\u2028 ✓ é 中')).toBe(
      'a\\tb\\rc\\nd\\x00e\\x7f\\x85\\u2028 ✓ é 中',
    );
  });
  test('invisible and reordering characters in a replay id are shown as escapes: zero-width, ALM, bidi, BOM, tags', () => {
    const out = capture();
    const reporter = new Reporter('text', [], out.stream);
    // An id that looks like another one on a terminal: a zero-width space, an Arabic letter mark, a right-to-left
    // override, a soft hyphen, a byte-order mark and a tag character.
    const id = 'dev\u200b/1\u061c\u202e2\u00ad\ufeff\u{e0041}';
    reporter.onEvent(resultOf(id, 'ok'));
    const text = out.text();
    expect(text.trimEnd()).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    for (const shown of ['\\u200b', '\\u061c', '\\u202e', '\\xad', '\\ufeff', '\\u{e0041}'])
      expect(text).toContain(shown);
    const json = capture();
    new Reporter('json', [], json.stream).onEvent(resultOf(id, 'failed'));
    expect(json.text().trimEnd()).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect(JSON.parse(json.text()).replay_id).toBe(id);
  });
});

describe('JSON logs', () => {
  test('every line is one JSON value holding the id exactly, with no raw control character', () => {
    const out = capture();
    const reporter = new Reporter('json', [], out.stream);
    reporter.onEvent(resultOf(hostileId, 'failed'));
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).replay_id).toBe(hostileId);
    expect(out.text().trimEnd()).not.toMatch(/[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(jsonLine({ s: '\u009b\u2029' })).s).toBe('\u009b\u2029');
  });

  test('the catalogue after a fold: a debug record when brought up to date, a warning naming the cause when not', () => {
    const out = capture();
    const reporter = new Reporter('json', [], out.stream);
    reporter.onEvent({ type: 'catalogued', rows: 12, ms: 3.4 });
    reporter.onEvent({ type: 'catalogue-failed', error: new Error('disk full') });
    const [done, failed] = out
      .text()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(done).toMatchObject({ level: 'debug', event: 'catalogued', rows: 12, ms: 3 });
    expect(failed).toMatchObject({ level: 'warn', event: 'catalogue_failed' });
    expect(failed!['msg']).toContain('disk full');
  });

  test('secrets are removed from every string of a record, nested values and keys included, and the line stays JSON', () => {
    const out = capture();
    const secret = 'a"b\\c-secret';
    const reporter = new Reporter('json', [secret], out.stream);
    reporter.log('error', `denied ${secret}`, { error: { message: `x ${secret}`, [secret]: [secret] } });
    const line = out.text().trimEnd();
    const record = JSON.parse(line);
    expect(line).not.toContain('a\\"b\\\\c-secret');
    expect(record.msg).toBe('denied [REDACTED]');
    expect(record.error).toEqual({ message: 'x [REDACTED]', '[REDACTED]': ['[REDACTED]'] });
  });
});

describe('waits of the transport', () => {
  const budgetWait = {
    msg: 'waiting for budget',
    what: 'ingest mappings per 30 s, waiting 28 s',
    family: 'ingest',
    budget: 'mappings per 30 s',
    delayMs: 28_000,
  };
  const retry = {
    msg: 'retrying request',
    what: '429 dashboard concurrency limit, waiting 1 s, attempt 2/6',
    family: 'dashboard',
    status: 429,
    attempt: 1,
    delayMs: 1000,
  };

  test('with retriesShown (the api command) every wait is a warning: a retry and a budget holding a request back', () => {
    const out = capture();
    const reporter = new Reporter('text', [], out.stream, { retriesShown: true });
    reporter.onHttpLog(retry);
    reporter.onHttpLog(budgetWait);
    expect(out.text()).toBe(
      'warn: retrying: 429 dashboard concurrency limit, waiting 1 s, attempt 2/6\nwarn: waiting: ingest mappings per 30 s, waiting 28 s\n',
    );
    expect(reporter.totals.retries).toBe(1);
    const json = capture();
    const r = new Reporter('json', [], json.stream, { retriesShown: true });
    r.onHttpLog(budgetWait);
    expect(JSON.parse(json.text())).toMatchObject({
      level: 'warn',
      event: 'wait',
      family: 'ingest',
      budget: 'mappings per 30 s',
      wait_ms: 28_000,
    });
  });

  test('otherwise a retry is a debug line (--verbose) and a budget wait is not said', () => {
    const out = capture();
    const reporter = new Reporter('text', [], out.stream);
    reporter.onHttpLog(retry);
    reporter.onHttpLog(budgetWait);
    expect(out.text()).toBe('');
    const json = capture();
    new Reporter('json', [], json.stream).onHttpLog(budgetWait);
    expect(json.text()).toBe('');
  });
});
