import { createHash } from 'node:crypto';

/**
 * Strings up to this many characters key a Map or Set as they are. V8 hashes a string whole only up to 16,383
 * characters (longer ones by their length alone, so that many long keys collide and each lookup compares them all):
 * a key from outside (an API's file key, page token or id) is bounded before it keys anything.
 */
const MAX_KEY_CHARS = 1024;

/**
 * `text` as the key of a Map or Set: itself when it has at most `MAX_KEY_CHARS` characters, else its length and the
 * SHA-256 of its UTF-16 code units (every string, lone surrogates included, kept apart), after a NUL no short key
 * starts with. Linear in `text`'s length.
 */
export function boundedKey(text: string): string {
  if (text.length <= MAX_KEY_CHARS) return text;
  return `\u0000${text.length}:${createHash('sha256').update(text, 'utf16le').digest('base64')}`;
}
