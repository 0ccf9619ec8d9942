/**
 * Parses sizes like `256MiB`, `8GiB`, `1.5GiB`, `500MB`, `64KiB` or `1048576` (plain bytes) into a whole number of
 * bytes. Binary units (KiB, MiB, GiB, TiB) are powers of 1024, decimal ones (kB, MB, GB, TB) of 1000; case does not
 * matter, a space before the unit is allowed.
 */

import { ReplayExportError } from '../errors.js';

const UNIT_BYTES: Record<string, number> = {
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
};

export class ByteSizeError extends ReplayExportError {
  constructor(readonly input: string) {
    super(`not a size: ${JSON.stringify(input)} (use e.g. 256MiB, 8GiB or a number of bytes)`, {
      code: 'BAD_BYTE_SIZE',
      category: 'usage',
    });
  }
}

export function parseByteSize(input: string): number {
  const match = /^(\d+(?:\.\d+)?) ?([a-z]*)$/.exec(input.trim().toLowerCase());
  const unit = match === null ? undefined : UNIT_BYTES[match[2] === '' ? 'b' : match[2]!];
  if (match === null || unit === undefined) throw new ByteSizeError(input);
  const bytes = Number(match[1]) * unit;
  if (!Number.isSafeInteger(bytes)) throw new ByteSizeError(input); // a fraction of a byte, or too large
  return bytes;
}

/** The shortest form `parseByteSize` reads back to `bytes`: `256MiB`, `8GiB`, `1536KiB`, or plain bytes (`1000`). */
export function formatByteSize(bytes: number): string {
  for (const unit of ['tib', 'gib', 'mib', 'kib'] as const) {
    const size = UNIT_BYTES[unit]!;
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit.slice(0, 1).toUpperCase()}iB`;
  }
  return String(bytes);
}
