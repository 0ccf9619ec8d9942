/** `list` on a terminal: every row fits its width, ids whole; the duration goes first, then the user is cut with `…`. */
import { expect, test } from 'vitest';
import { ListTable } from '../../bin/cli/list-output.js';

const id = '9a187298-0bc1-49df-8b0b-cdc52da8c225/1795308192585';
const record = (platform_id: number): Record<string, unknown> => ({
  replay_id: id,
  start_time: '2026-11-27T09:02:03.456Z',
  end_time: '2026-11-27T10:04:05Z',
  platform_id,
});

function table(columns: number, users: number[]): string[] {
  const t = new ListTable(columns);
  return users
    .map((u) => t.rows(record(u)))
    .join('')
    .trimEnd()
    .split('\n');
}

test('on 80 columns, rows of 50-character ids and 9-digit users fit: the duration column is left out', () => {
  const lines = table(80, [706510314, 123456789012345678]);
  for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
  expect(lines[0]).toMatch(/^REPLAY ID +START \(UTC\) +USER$/);
  expect(lines[1]).toBe(`${id} 2026-11-27 09:02 706510314`);
  expect(lines[2]).toMatch(new RegExp(`^${id} 2026-11-27 09:02 12345678901…$`));
});

test('on a wider terminal every column is shown', () => {
  const lines = table(100, [706510314]);
  expect(lines[0]).toMatch(/^REPLAY ID +START \(UTC\) +DURATION +USER$/);
  expect(lines[1]).toBe(`${id} 2026-11-27 09:02 1h02m    706510314`);
});
