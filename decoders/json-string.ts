/**
 * Byte-level JSON string literal decoding, to turn version 2 element strings into bytes without building JS strings.
 * Any input it cannot decode exactly (invalid escapes, a code point the output encoding cannot hold, a lone
 * surrogate in UTF-8 output) makes it return `null`; callers then take the slower `JSON.parse` path, which gives the
 * precise error.
 */

/** How the literal's raw (unescaped) bytes are encoded, and how the result is written. */
export const StringMode = {
  /** UTF-8 input; output one byte per code point, which must be ≤ U+00FF. */
  Utf8ToLatin1: 0,
  /** Latin1 input (one byte per character); output one byte per code point ≤ U+00FF. */
  Latin1ToLatin1: 1,
  /** UTF-8 input; UTF-8 output. */
  Utf8ToUtf8: 2,
} as const;
export type StringMode = (typeof StringMode)[keyof typeof StringMode];

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x61 + 10;
  return -1;
}

function hex4(src: Uint8Array, at: number): number {
  const a = hexValue(src[at]!);
  const b = hexValue(src[at + 1]!);
  const c = hexValue(src[at + 2]!);
  const d = hexValue(src[at + 3]!);
  if ((a | b | c | d) < 0) return -1;
  return (a << 12) | (b << 8) | (c << 4) | d;
}

/** Decodes the JSON string literal that spans exactly `src` (both quotes included). */
export function decodeStringLiteral(src: Uint8Array, mode: StringMode): Buffer | null {
  const n = src.length;
  if (n < 2 || src[0] !== 0x22 || src[n - 1] !== 0x22) return null;
  const out = Buffer.allocUnsafe(n - 2);
  const stop = n - 1;
  const utf8Out = mode === StringMode.Utf8ToUtf8;
  let o = 0;
  let i = 1;
  while (i < stop) {
    const c = src[i]!;
    if (c === 0x5c) {
      if (i + 1 >= stop) return null;
      const e = src[i + 1]!;
      let cp: number;
      i += 2;
      switch (e) {
        case 0x22:
        case 0x5c:
        case 0x2f:
          cp = e;
          break;
        case 0x62:
          cp = 0x08;
          break;
        case 0x66:
          cp = 0x0c;
          break;
        case 0x6e:
          cp = 0x0a;
          break;
        case 0x72:
          cp = 0x0d;
          break;
        case 0x74:
          cp = 0x09;
          break;
        case 0x75: {
          if (i + 4 > stop) return null;
          cp = hex4(src, i);
          if (cp < 0) return null;
          i += 4;
          if (cp >= 0xd800 && cp <= 0xdfff) {
            if (!utf8Out || cp >= 0xdc00) return null;
            // A high surrogate must be followed by an escaped low surrogate.
            if (i + 6 > stop || src[i] !== 0x5c || src[i + 1] !== 0x75) return null;
            const lo = hex4(src, i + 2);
            if (lo < 0xdc00 || lo > 0xdfff) return null;
            i += 6;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          }
          break;
        }
        default:
          return null;
      }
      if (!utf8Out) {
        if (cp > 0xff) return null;
        out[o++] = cp;
      } else if (cp < 0x80) out[o++] = cp;
      else if (cp < 0x800) {
        out[o++] = 0xc0 | (cp >> 6);
        out[o++] = 0x80 | (cp & 0x3f);
      } else if (cp < 0x10000) {
        out[o++] = 0xe0 | (cp >> 12);
        out[o++] = 0x80 | ((cp >> 6) & 0x3f);
        out[o++] = 0x80 | (cp & 0x3f);
      } else {
        out[o++] = 0xf0 | (cp >> 18);
        out[o++] = 0x80 | ((cp >> 12) & 0x3f);
        out[o++] = 0x80 | ((cp >> 6) & 0x3f);
        out[o++] = 0x80 | (cp & 0x3f);
      }
      continue;
    }
    if (c < 0x20 || c === 0x22) return null;
    if (c < 0x80 || mode !== StringMode.Utf8ToLatin1) {
      out[o++] = c; // ASCII, a latin1 byte, or a UTF-8 byte copied to UTF-8 output
      i++;
      continue;
    }
    // UTF-8 input to latin1 output: only the two-byte sequences of U+0080..U+00FF.
    if ((c === 0xc2 || c === 0xc3) && i + 1 < stop && (src[i + 1]! & 0xc0) === 0x80) {
      out[o++] = ((c & 0x1f) << 6) | (src[i + 1]! & 0x3f);
      i += 2;
      continue;
    }
    return null;
  }
  return out.subarray(0, o);
}
