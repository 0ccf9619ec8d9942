import { createHash } from 'node:crypto';

function digest(name: string): Buffer {
  return createHash('sha256')
    .update('replay-export sample:' + name)
    .digest();
}

/** A version 4 style UUID derived from the sample's name (stable from one recording to the next). */
export function deviceIdFor(name: string): string {
  const b = Buffer.from(digest(name).subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A nine-digit platform id derived from the sample's name. */
export function platformIdFor(name: string): number {
  return 100_000_000 + (digest(name).readUInt32BE(16) % 900_000_000);
}

/** A small stable number derived from the name, used to vary chunk counts between samples. */
export function seedFor(name: string): number {
  return digest(name).readUInt32BE(20);
}
