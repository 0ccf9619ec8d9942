/**
 * Hostile replay files that inflate to far more than they weigh, built without ever holding the inflated bytes.
 *
 * The text is `prefix`, then `count` times the byte `fill`, then `suffix`. Its deflate stream is made of pieces
 * compressed each from a fresh state and ended byte-aligned by a full flush, so that they can be laid end to end:
 * the stream of a long run is one small piece (1 MiB of the run, ~1 KB compressed) repeated. The zlib and gzip
 * check values of the whole text are computed from the run's length, not over its bytes (except gzip's CRC-32,
 * computed a MiB at a time from one buffer).
 */

import { constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';

/** Inflated bytes of the run per repeated piece. */
const PIECE = 1 << 20;

export interface LongText {
  prefix: string;
  fill: string;
  count: number;
  suffix: string;
}

/** Raw deflate blocks of `bytes`: not final, byte-aligned, referring to nothing before them. */
function blocks(bytes: Buffer): Buffer {
  return deflateRawSync(bytes, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
}

/** The raw deflate stream (final block included) of the text. */
export function rawDeflate(t: LongText): Buffer {
  const fill = t.fill.charCodeAt(0);
  const whole = Math.floor(t.count / PIECE);
  const piece = blocks(Buffer.alloc(PIECE, fill));
  const parts: Buffer[] = [blocks(Buffer.from(t.prefix))];
  for (let i = 0; i < whole; i++) parts.push(piece);
  parts.push(blocks(Buffer.alloc(t.count - whole * PIECE, fill)));
  parts.push(deflateRawSync(Buffer.from(t.suffix))); // ends with the final block
  return Buffer.concat(parts);
}

const ADLER_MOD = 65521n;

/** Adler-32 of the text, from the run's length. */
function adler32(t: LongText): number {
  let a = 1n;
  let b = 0n;
  const bytes = (s: string): void => {
    for (const c of Buffer.from(s)) {
      a = (a + BigInt(c)) % ADLER_MOD;
      b = (b + a) % ADLER_MOD;
    }
  };
  bytes(t.prefix);
  // n bytes c after (a, b): a + n c, and b + n a + c n (n + 1) / 2.
  const n = BigInt(t.count);
  const c = BigInt(t.fill.charCodeAt(0));
  b = (b + n * a + c * ((n * (n + 1n)) / 2n)) % ADLER_MOD;
  a = (a + n * c) % ADLER_MOD;
  bytes(t.suffix);
  return Number((b << 16n) | a);
}

/** The zlib stream (RFC 1950) of the text: what a version 2 packer writes. */
export function zlibStream(t: LongText): Buffer {
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler32(t));
  return Buffer.concat([Buffer.from([0x78, 0xda]), rawDeflate(t), trailer]);
}

/** The gzip member (RFC 1952) of the text: a version 3 file. */
export function gzipMember(t: LongText): Buffer {
  const run = Buffer.alloc(PIECE, t.fill.charCodeAt(0));
  let crc = crc32(t.prefix);
  for (let left = t.count; left > 0; left -= PIECE) crc = crc32(left >= PIECE ? run : run.subarray(0, left), crc);
  crc = crc32(t.suffix, crc);
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc);
  trailer.writeUInt32LE((Buffer.byteLength(t.prefix) + t.count + Buffer.byteLength(t.suffix)) % 2 ** 32, 4);
  return Buffer.concat([header, rawDeflate(t), trailer]);
}

/** An event whose `data.text` is `count` letters `a` (`{"type":3,...,"text":"aaa…"}}`), before any packer marker. */
function eventText(count: number, marker: string): LongText {
  return {
    prefix: '{"type":3,"timestamp":1763629200000,"data":{"source":5,"text":"',
    fill: 'a',
    count,
    suffix: `"}${marker}}`,
  };
}

/** A version 2 element (a JSON string of the latin1 zlib payload, as the packers write it) of that event. */
export function packedBomb(letters: number): string {
  return JSON.stringify(zlibStream(eventText(letters, ',"v":"v1"')).toString('latin1'));
}

/** A gzip version 2 file: the bomb element between `before` and `after` (elements as JSON text). */
export function v2BombFile(letters: number, before: string[] = [], after: string[] = []): Buffer {
  return gzipSync(`[${[...before, packedBomb(letters), ...after].join(',')}]`);
}

/** A gzip version 3 file holding one event of about `letters` bytes (the file never exists inflated). */
export function v3BombFile(letters: number): Buffer {
  const event = eventText(letters, '');
  return gzipMember({ ...event, prefix: '[' + event.prefix, suffix: event.suffix + ']' });
}

/** Size in bytes of the event of `letters` letters (as decoded). */
export function bombEventBytes(letters: number): number {
  const t = eventText(letters, '');
  return Buffer.byteLength(t.prefix) + letters + Buffer.byteLength(t.suffix);
}
