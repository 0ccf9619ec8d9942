/**
 * Validation primitives shared by the API clients. Each throws ValidationError naming the API's own parameter
 * (or a dotted path into a body, e.g. `items[3].conversation_parts[0].body`) before anything is sent.
 */
import { ValidationError } from '../http/errors.js';

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'an object' : String(v);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string of at least one character. */
export function requireString(field: string, v: unknown): string {
  if (typeof v !== 'string' || v.length === 0)
    throw new ValidationError(field, `must be a non-empty string (got ${show(v)})`);
  return v;
}

/** A string (empty allowed) when present. */
export function optionalString(field: string, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new ValidationError(field, `must be a string (got ${show(v)})`);
  return v;
}

export function requireFiniteNumber(field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new ValidationError(field, `must be a finite number (got ${show(v)})`);
  return v;
}

export function requireInteger(
  field: string,
  v: unknown,
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    const range =
      min > Number.MIN_SAFE_INTEGER ? (max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : ` ≥ ${min}`) : '';
    throw new ValidationError(field, `must be an integer${range} (got ${show(v)})`);
  }
  return v;
}

export function requireObject(field: string, v: unknown): Record<string, unknown> {
  if (!isPlainObject(v)) throw new ValidationError(field, `must be an object (got ${show(v)})`);
  return v;
}

/** An array whose length lies in [min, max]. */
export function requireArray(field: string, v: unknown, min = 0, max = Number.POSITIVE_INFINITY): readonly unknown[] {
  if (!Array.isArray(v)) throw new ValidationError(field, `must be an array (got ${show(v)})`);
  if (v.length < min || v.length > max) {
    const bound =
      max === Number.POSITIVE_INFINITY ? `at least ${min}` : min === max ? `exactly ${min}` : `${min} to ${max}`;
    throw new ValidationError(field, `must hold ${bound} item${max === 1 ? '' : 's'} (got ${v.length})`);
  }
  return v;
}

/** An array of non-empty strings, length in [min, max]. */
export function requireStringArray(field: string, v: unknown, min = 0, max = Number.POSITIVE_INFINITY): string[] {
  return requireArray(field, v, min, max).map((s, i) => requireString(`${field}[${i}]`, s));
}

/** An array of strings (empty strings allowed), e.g. filter values. */
export function requireStringList(field: string, v: unknown): string[] {
  return requireArray(field, v).map((s, i) => {
    if (typeof s !== 'string') throw new ValidationError(`${field}[${i}]`, `must be a string (got ${show(s)})`);
    return s;
  });
}

export function requireOneOf<T extends string>(field: string, v: unknown, allowed: readonly T[]): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw new ValidationError(
      field,
      `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')} (got ${show(v)})`,
    );
  }
  return v as T;
}

/** Only the listed keys may appear (catches fields of the other kind, e.g. `exposureEvent` on a flag). */
export function onlyKeys(field: string, o: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (o[k] !== undefined && !allowed.includes(k)) {
      throw new ValidationError(`${field}.${k}`, `is not a field accepted here (accepted: ${allowed.join(', ')})`);
    }
  }
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date or date-time string that names a real instant. */
export function requireIsoTimestamp(field: string, v: unknown): string {
  if (typeof v !== 'string' || !ISO_8601.test(v) || Number.isNaN(Date.parse(v.replace(' ', 'T')))) {
    throw new ValidationError(field, `must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z (got ${show(v)})`);
  }
  return v;
}

/** A calendar date written YYYYMMDD (the dashboard's `start`/`end`). */
export function requireYyyymmdd(field: string, v: unknown): string {
  const m = typeof v === 'string' ? /^(\d{4})(\d{2})(\d{2})$/.exec(v) : null;
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const t = new Date(Date.UTC(y, mo - 1, d));
    if (t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d) return v as string;
  }
  throw new ValidationError(field, `must be a calendar date written YYYYMMDD, e.g. 20260131 (got ${show(v)})`);
}

/** UTF-8 size of a text against a byte cap. */
export function requireMaxBytes(field: string, text: string, maxBytes: number, what: string): number {
  const size = Buffer.byteLength(text, 'utf8');
  if (size > maxBytes)
    throw new ValidationError(field, `${what} is ${size} bytes, over the limit of ${maxBytes} bytes`);
  return size;
}
