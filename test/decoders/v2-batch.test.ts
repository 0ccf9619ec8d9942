import { describe, expect, it } from 'vitest';
import { DecodeError, decodeEventBytes } from '../../decoders/index.js';
import { ArrayElementScanner, type ScannedElement } from '../../decoders/json-scanner.js';
import { DecodeLimits } from '../../decoders/limits.js';
import { decodeV2Elements } from '../../decoders/v2-batch.js';
import { chunked, gz, makeEvents, pack, roundTrip } from './fixtures.js';

const events = makeEvents(240, 11);
const packedElements = (): unknown[] =>
  events.map((e, i) => (i % 2 === 0 ? JSON.stringify(pack(e, 'rrweb')) : pack(e, 'amplitude')));

async function decodeAll(file: Buffer, chunk: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const batch of decodeEventBytes(chunked(file, chunk))) out.push(...batch);
  return out;
}

async function errorOf(file: Buffer, chunk: number): Promise<DecodeError> {
  try {
    await decodeAll(file, chunk);
  } catch (err) {
    expect(err).toBeInstanceOf(DecodeError);
    return err as DecodeError;
  }
  throw new Error('expected a DecodeError');
}

function corruptZlib(e: unknown): string {
  const p = Buffer.from(pack(e, 'rrweb'), 'latin1');
  p[p.length - 3] ^= 0xff; // breaks the adler32 checksum at least
  return p.toString('latin1');
}

describe('version 2 chunks with many payloads', () => {
  it('decode every payload of a chunk to the recorded events, whatever the chunking', async () => {
    const file = gz(JSON.stringify(packedElements()));
    for (const chunk of [1 << 16, 777]) {
      const out = await decodeAll(file, chunk);
      expect(out.map((b) => JSON.parse(b.toString()) as unknown)).toEqual(roundTrip(events));
    }

    const scanner = new ArrayElementScanner();
    const elements: ScannedElement[] = [];
    scanner.push(Buffer.from(JSON.stringify(packedElements())), elements);
    expect(elements.length).toBe(events.length);
    const decoded = (await decodeV2Elements(elements, 'f', DecodeLimits.of({}))).flat();
    expect(decoded.map((b) => JSON.parse(b.toString()) as unknown)).toEqual(roundTrip(events));
  });

  it.each([
    ['corrupt zlib only', [[70, 'zlib']], 'BAD_ZLIB', 70],
    [
      'corrupt zlib before a bad string',
      [
        [40, 'zlib'],
        [60, 'packed'],
      ],
      'BAD_ZLIB',
      40,
    ],
    [
      'bad string before corrupt zlib',
      [
        [10, 'packed'],
        [50, 'zlib'],
      ],
      'BAD_PACKED',
      10,
    ],
    [
      'bad inner JSON after corrupt zlib',
      [
        [33, 'zlib'],
        [34, 'inner'],
      ],
      'BAD_ZLIB',
      33,
    ],
  ] as const)('reports the first bad element in file order: %s', async (_name, faults, code, index) => {
    const elements = packedElements();
    for (const [at, kind] of faults) {
      elements[at] =
        kind === 'zlib'
          ? corruptZlib(events[at])
          : kind === 'packed'
            ? '"not a literal'
            : Buffer.from('\x78\x9c\x03\x00\x00\x00\x00\x01').toString('latin1');
    }
    for (const chunk of [1 << 16, 777]) {
      const err = await errorOf(gz(JSON.stringify(elements)), chunk);
      expect(err.code).toBe(code);
      expect(err.index).toBe(index);
    }
    // Uncompressed bytes in small pieces: elements cut across chunks, the bad ones among them.
    for (const chunk of [4096, 1500, 97]) {
      const err = await errorOf(Buffer.from(JSON.stringify(elements)), chunk);
      expect(err.code).toBe(code);
      expect(err.index).toBe(index);
    }
  });

  it('decode every payload when elements are cut across chunks, and the events before a bad one', async () => {
    const text = Buffer.from(JSON.stringify(packedElements()));
    for (const chunk of [8192, 4096, 1500, 97]) {
      const out = await decodeAll(text, chunk);
      expect(out.map((b) => JSON.parse(b.toString()) as unknown)).toEqual(roundTrip(events));
    }
    const elements = packedElements();
    elements[150] = corruptZlib(events[150]);
    const got: Buffer[] = [];
    await expect(
      (async () => {
        for await (const batch of decodeEventBytes(chunked(Buffer.from(JSON.stringify(elements)), 1500)))
          got.push(...batch);
      })(),
    ).rejects.toMatchObject({ code: 'BAD_ZLIB', index: 150 });
    expect(got.map((b) => JSON.parse(b.toString()) as unknown)).toEqual(roundTrip(events).slice(0, 150));
  });

  it('an element error in an earlier chunk wins over a syntax error found later', async () => {
    const elements = packedElements();
    elements[20] = corruptZlib(events[20]);
    const text = Buffer.from(`${JSON.stringify(elements)} trailing`);
    const err = await errorOf(text, 4096);
    expect(err.code).toBe('BAD_ZLIB');
    expect(err.index).toBe(20);
  });
});
