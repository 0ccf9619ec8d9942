import { describe, expect, it } from 'vitest';
import { peekEventFields } from '../../decoders/index.js';
import { makeEvents } from './fixtures.js';

/** What JSON.parse says: the reference peekEventFields must always agree with. */
function reference(text: string): { type?: number; timestamp?: number } {
  const v = JSON.parse(text) as Record<string, unknown>;
  const out: { type?: number; timestamp?: number } = {};
  if (typeof v['type'] === 'number') out.type = v['type'];
  if (typeof v['timestamp'] === 'number') out.timestamp = v['timestamp'];
  return out;
}

function check(text: string, want?: { type?: number; timestamp?: number }): void {
  const got = peekEventFields(Buffer.from(text, 'utf8'));
  expect(got, text).toEqual(reference(text));
  if (want) expect(got, text).toEqual(want);
}

describe('peekEventFields', () => {
  it('reads the usual rrweb shape', () => {
    check('{"type":3,"data":{"source":1,"positions":[]},"timestamp":1763629200123}', {
      type: 3,
      timestamp: 1763629200123,
    });
  });

  it('agrees with JSON.parse on generated events', () => {
    for (const e of makeEvents(60, 9)) check(JSON.stringify(e));
  });

  it.each([
    ['timestamp first', '{"timestamp":5,"type":2,"data":{}}', { type: 2, timestamp: 5 }],
    ['type last', '{"data":{"type":9},"timestamp":5,"type":4}', { type: 4, timestamp: 5 }],
    ['nested type and timestamp only', '{"data":{"type":9,"timestamp":7}}', {}],
    ['nested type after the prefix', '{"type":3,"data":{"node":{"type":2}},"timestamp":8}', { type: 3, timestamp: 8 }],
    ['duplicate top-level type: last wins', '{"type":3,"data":{},"type":5,"timestamp":8}', { type: 5, timestamp: 8 }],
    ['duplicate timestamp', '{"timestamp":1,"type":3,"timestamp":2}', { type: 3, timestamp: 2 }],
    ['later non-number duplicate removes it', '{"type":3,"type":"x","timestamp":2}', { timestamp: 2 }],
    ['whitespace everywhere', ' {\n "type" : 4 ,\r\n "timestamp" :\t-12.5e1 } ', { type: 4, timestamp: -125 }],
    ['string values', '{"type":"3","timestamp":"5"}', {}],
    ['type in a string value', '{"type":1,"data":"\\"type\\":7","timestamp":3}', { type: 1, timestamp: 3 }],
    ['escaped key', '{"\\u0074ype":6,"timestamp":3}', { type: 6, timestamp: 3 }],
    ['key that ends in timestamp', '{"type":1,"x\\"timestamp":4}', { type: 1 }],
    ['timestamp key inside a string', '{"type":1,"s":",\\"timestamp\\":4}"}', { type: 1 }],
    ['braces in strings', '{"a":"}{][","type":2,"b":["}",{"c":"\\\\"}],"timestamp":0}', { type: 2, timestamp: 0 }],
    ['nested non-first type key', '{"type":3,"data":{"source":9,"type":0},"timestamp":8}', { type: 3, timestamp: 8 }],
    [
      'duplicate type after whitespace and comma',
      '{"type":3,"data":{} , \n "type":6,"timestamp":8}',
      { type: 6, timestamp: 8 },
    ],
    ['type as a string value', '{"type":3,"kind":"type","list":["type"],"timestamp":8}', { type: 3, timestamp: 8 }],
    [
      'long and negative numbers',
      '{"type":-1,"timestamp":12345678901234567890}',
      { type: -1, timestamp: 12345678901234567890 },
    ],
    ['sixteen-digit timestamp', '{"type":3,"timestamp":9007199254740993}', { type: 3, timestamp: 9007199254740992 }],
    ['empty object', '{}', {}],
    ['null timestamp', '{"type":2,"timestamp":null}', { type: 2 }],
    ['float type', '{"type":2.5,"timestamp":1e3}', { type: 2.5, timestamp: 1000 }],
    ['unicode before fields', '{"data":{"t":"漢字😀"},"type":3,"timestamp":42}', { type: 3, timestamp: 42 }],
  ] as const)('%s', (_name, text, want) => {
    check(text, want);
  });

  it('never throws on text that is not an object', () => {
    expect(peekEventFields(Buffer.from('[1,2]'))).toEqual({});
    expect(peekEventFields(Buffer.from('{"type":'))).toEqual({});
    expect(peekEventFields(Buffer.from(''))).toEqual({});
  });
});
