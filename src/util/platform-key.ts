/**
 * A platform id as one canonical string (`"0123"` and `123` are the same user), or undefined for anything that is not
 * an integer: manifest fields are hostile input, and an unsafe number cannot name one user for sure.
 */
export function platformKey(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  if (typeof value === 'string' && /^\s*-?\d{1,30}\s*$/.test(value)) return BigInt(value.trim()).toString();
  return undefined;
}
