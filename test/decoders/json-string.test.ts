import { describe, expect, it } from 'vitest';
import { decodeStringLiteral, StringMode } from '../../decoders/json-string.js';

/** Reference for UTF-8 output: JSON.parse, then UTF-8 (null when a lone surrogate makes that impossible). */
function refUtf8(literal: string): Buffer | null {
  const s = JSON.parse(literal) as string;
  return /[\uD800-\uDFFF]/u.test(s) ? null : Buffer.from(s, 'utf8');
}

/** Reference for latin1 output: JSON.parse, then one byte per char (null when a char is above U+00FF). */
function refLatin1(literal: string): Buffer | null {
  const s = JSON.parse(literal) as string;
  return /[^\x00-\xff]/.test(s) ? null : Buffer.from(s, 'latin1');
}

describe('decodeStringLiteral', () => {
  const cases = [
    '""',
    '"plain ascii"',
    '"esc \\" \\\\ \\/ \\b \\f \\n \\r \\t"',
    '"\\u0000\\u001f\\u007f\\u0080\\u00ff\\u00FF"',
    '"é ÿ \u0080"',
    '"漢字 😀 \\u6f22\\uD83D\\uDE00"',
    '"lone \\ud83d here"',
    '"lone low \\udc00"',
    '"high then text \\ud83dx"',
    '"\\u0100"',
  ];

  it.each(cases)('agrees with JSON.parse: %s', (literal) => {
    const bytes = Buffer.from(literal, 'utf8');
    expect(decodeStringLiteral(bytes, StringMode.Utf8ToUtf8)).toEqual(refUtf8(literal));
    expect(decodeStringLiteral(bytes, StringMode.Utf8ToLatin1)).toEqual(refLatin1(literal));
  });

  it('decodes every latin1 byte value, raw and escaped, from latin1 input', () => {
    const all = String.fromCharCode(...Array.from({ length: 256 }, (_, k) => k));
    const literal = JSON.stringify(all);
    expect(decodeStringLiteral(Buffer.from(literal, 'latin1'), StringMode.Latin1ToLatin1)).toEqual(
      Buffer.from(all, 'latin1'),
    );
    expect(decodeStringLiteral(Buffer.from(literal, 'utf8'), StringMode.Utf8ToLatin1)).toEqual(
      Buffer.from(all, 'latin1'),
    );
  });

  it.each(['"', 'x""', '"a\\"', '"\\x"', '"\\u12"', '"\\u12G4"', '"a"b"', '"raw\ttab"', '"\\'])(
    'returns null for the invalid literal %s',
    (literal) => {
      for (const mode of [StringMode.Utf8ToUtf8, StringMode.Utf8ToLatin1, StringMode.Latin1ToLatin1]) {
        expect(decodeStringLiteral(Buffer.from(literal, 'utf8'), mode)).toBeNull();
      }
    },
  );
});
