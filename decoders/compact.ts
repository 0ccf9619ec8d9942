/**
 * Removes insignificant whitespace (outside strings) from one already-validated JSON value, so that it can be
 * written on one line. Bytes inside strings are copied unchanged.
 */
export function compactJson(bytes: Buffer): Buffer {
  const n = bytes.length;
  const out = Buffer.allocUnsafe(n);
  let o = 0;
  let inString = false;
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (inString) {
      out[o++] = c;
      if (c === 0x5c) {
        i++;
        out[o++] = bytes[i]!;
      } else if (c === 0x22) inString = false;
    } else {
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
      out[o++] = c;
      if (c === 0x22) inString = true;
    }
  }
  return out.subarray(0, o);
}
