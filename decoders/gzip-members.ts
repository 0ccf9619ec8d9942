/**
 * Where the gzip members of a file end: the cold path of the gzip layer, run only after gunzip failed, to name the
 * compressed offset of what broke it (node's gunzip goes from one member to the next inside one write and reports
 * neither where a member ended nor where it failed).
 */

import { crc32, createInflateRaw } from 'node:zlib';

/** Offset right after the complete, valid gzip members at the start of `bytes` (0 when the first one is not). */
export async function gzipMembersEnd(bytes: Buffer): Promise<number> {
  let pos = 0;
  for (;;) {
    const end = pos < bytes.length ? await memberEnd(bytes, pos) : undefined;
    if (end === undefined) return pos;
    pos = end;
  }
}

/** Whether `bytes` holds the gzip magic at `pos` (where a member would begin). */
export function startsMember(bytes: Buffer, pos: number): boolean {
  return bytes.length - pos >= 2 && bytes[pos] === 0x1f && bytes[pos + 1] === 0x8b;
}

/** End of the member at `pos` when it is whole and valid (header, deflate data, CRC-32 and size), else undefined. */
async function memberEnd(bytes: Buffer, pos: number): Promise<number | undefined> {
  const body = headerEnd(bytes, pos);
  if (body === undefined) return undefined;
  const data = await inflateRaw(bytes.subarray(body));
  if (data === undefined) return undefined;
  const end = body + data.consumed + 8;
  if (end > bytes.length) return undefined;
  if (bytes.readUInt32LE(end - 8) !== data.crc || bytes.readUInt32LE(end - 4) !== data.size % 2 ** 32) return undefined;
  return end;
}

/** Offset of the deflate data of the member at `pos` (RFC 1952 header, optional fields included), or undefined. */
function headerEnd(bytes: Buffer, pos: number): number | undefined {
  if (bytes.length - pos < 10 || !startsMember(bytes, pos) || bytes[pos + 2] !== 8) return undefined;
  const flags = bytes[pos + 3]!;
  if (flags & 0xe0) return undefined;
  let at = pos + 10;
  if (flags & 0x04) {
    if (at + 2 > bytes.length) return undefined;
    at += 2 + bytes.readUInt16LE(at);
  }
  for (const flag of [0x08, 0x10]) {
    if (!(flags & flag)) continue;
    const zero = bytes.indexOf(0, at);
    if (zero < 0) return undefined;
    at = zero + 1;
  }
  if (flags & 0x02) {
    if (at + 2 > bytes.length || (crc32(bytes.subarray(pos, at)) & 0xffff) !== bytes.readUInt16LE(at)) return undefined;
    at += 2;
  }
  return at <= bytes.length ? at : undefined;
}

/** Inflates the raw deflate stream at the start of `bytes` (output only checksummed): what it used, or undefined. */
function inflateRaw(bytes: Buffer): Promise<{ consumed: number; crc: number; size: number } | undefined> {
  return new Promise((resolve) => {
    const inflater = createInflateRaw();
    let crc = 0;
    let size = 0;
    inflater.on('data', (chunk: Buffer) => {
      crc = crc32(chunk, crc);
      size += chunk.length;
    });
    // The stream ends where its final block does, even with input left after it; bytesWritten is what it used.
    inflater.on('end', () => resolve({ consumed: inflater.bytesWritten, crc, size }));
    inflater.on('error', () => resolve(undefined));
    inflater.end(bytes);
  });
}
