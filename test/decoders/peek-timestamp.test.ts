import { describe, expect, it } from 'vitest';
import { peekEventTimestamp } from '../../decoders/index.js';
import { makeEvents } from './fixtures.js';

/** JSON.parse's top-level numeric timestamp: the reference peekEventTimestamp must agree with. */
function reference(text: string): number | undefined {
  const v = JSON.parse(text) as Record<string, unknown>;
  return typeof v['timestamp'] === 'number' ? v['timestamp'] : undefined;
}

function check(text: string, want: number | undefined): void {
  expect(reference(text), text).toBe(want);
  expect(peekEventTimestamp(Buffer.from(text, 'utf8')), text).toBe(want);
}

describe('peekEventTimestamp', () => {
  it('reads the usual rrweb suffix', () => {
    check('{"type":3,"data":{"source":1,"positions":[]},"timestamp":1763629200123}', 1763629200123);
  });

  it('agrees with JSON.parse on generated events', () => {
    for (const e of makeEvents(60, 11)) {
      const text = JSON.stringify(e);
      check(text, reference(text));
    }
  });

  it.each([
    ['timestamp first', '{"timestamp":5,"type":2,"data":{}}', 5],
    ['duplicate key: the last one wins', '{"timestamp":5,"type":2,"timestamp":7}', 7],
    ['duplicate key: a later non-number wins', '{"type":2,"timestamp":7,"timestamp":"x"}', undefined],
    ['an earlier one with a later non-suffix one', '{"timestamp":1,"timestamp":2,"data":{}}', 2],
    ['only nested', '{"type":2,"data":{"timestamp":9}}', undefined],
    ['nested last, top-level earlier', '{"timestamp":4,"data":{"x":1,"timestamp":9}}', 4],
    ['inside a string', '{"type":2,"data":"\\",\\"timestamp\\":9","timestamp":3}', 3],
    ['a string that looks like the suffix', '{"type":2,"data":",\\"timestamp\\":9"}', undefined],
    ['negative', '{"type":2,"timestamp":-12}', -12],
    ['fraction and exponent', '{"type":2,"timestamp":1.5e3}', 1500],
    ['whitespace before the brace', '{"type":2, "timestamp" : 42 }', 42],
    ['a string value', '{"type":2,"timestamp":"42"}', undefined],
    ['null', '{"type":2,"timestamp":null}', undefined],
    ['absent', '{"type":2,"data":{}}', undefined],
    ['the only member', '{"timestamp":8}', 8],
    ['an escaped key', '{"type":2,"time\\u0073tamp":6}', 6],
  ])('%s', (_name, text, want) => {
    check(text, want);
  });
});
