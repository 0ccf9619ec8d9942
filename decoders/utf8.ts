/**
 * Incremental UTF-8 validation over a stream of chunks with one native `isUtf8` call per chunk. A multi-byte
 * sequence cut by a chunk boundary is carried over and checked with the next chunk.
 */

import { isUtf8 } from 'node:buffer';

/** Length of the sequence a lead byte starts (0 for bytes that cannot start one). */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

export class Utf8StreamValidator {
  private carry: Buffer | null = null;

  /** Whether everything seen so far is valid UTF-8 (an incomplete trailing sequence is kept for the next chunk). */
  check(chunk: Buffer): boolean {
    let buf = chunk;
    if (this.carry !== null) {
      const carry = this.carry;
      const need = sequenceLength(carry[0]!) - carry.length;
      if (buf.length < need) {
        this.carry = Buffer.concat([carry, buf]); // still incomplete: checked once complete
        return true;
      }
      this.carry = null;
      if (!isUtf8(Buffer.concat([carry, buf.subarray(0, need)]))) return false;
      buf = buf.subarray(need);
    }
    let end = buf.length;
    let k = end - 1;
    while (k >= 0 && end - k <= 3 && (buf[k]! & 0xc0) === 0x80) k--;
    if (k >= 0) {
      const len = sequenceLength(buf[k]!);
      if (len > 1 && len > end - k) {
        this.carry = Buffer.from(buf.subarray(k));
        end = k;
      }
    }
    return isUtf8(buf.subarray(0, end));
  }

  /** Whether the stream ended without an incomplete sequence. */
  end(): boolean {
    return this.carry === null;
  }
}
