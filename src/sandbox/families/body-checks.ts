/**
 * Checks of request bodies as the sandbox's families apply them. Each returns the value or throws a 400
 * `invalid_request` naming the field (a dotted path into the body, e.g. `targetSegments[0].conditions[1].op`).
 * These are the server's own checks, written apart from the clients' (src/clients/checks.ts) on purpose: the
 * sandbox is a second implementation that the clients are tested against.
 */
import { badRequest } from '../context.js';

function refuse(field: string, why: string): never {
  throw badRequest('invalid_request', `${field} ${why}`);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function objectField(field: string, v: unknown): Record<string, unknown> {
  return isObject(v) ? v : refuse(field, 'must be an object');
}

export function nonEmptyString(field: string, v: unknown): string {
  return typeof v === 'string' && v !== '' ? v : refuse(field, 'must be a non-empty string');
}

export function optionalString(field: string, v: unknown): void {
  if (v !== undefined && typeof v !== 'string') refuse(field, 'must be a string');
}

export function optionalBoolean(field: string, v: unknown): void {
  if (v !== undefined && typeof v !== 'boolean') refuse(field, 'must be true or false');
}

export function finiteNumber(field: string, v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : refuse(field, 'must be a number');
}

export function integerIn(field: string, v: unknown, min: number, max: number): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max
    ? v
    : refuse(field, `must be an integer from ${min} to ${max}`);
}

/** An array of `min`..`max` items. */
export function arrayField(field: string, v: unknown, min = 0, max = Number.MAX_SAFE_INTEGER): unknown[] {
  if (!Array.isArray(v)) refuse(field, 'must be an array');
  if (v.length < min || v.length > max)
    refuse(
      field,
      `must hold ${max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `${min} to ${max}`} items (got ${v.length})`,
    );
  return v;
}

/** An array of strings; `nonEmpty` refuses empty strings. */
export function stringArray(
  field: string,
  v: unknown,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
  nonEmpty = true,
): string[] {
  return arrayField(field, v, min, max).map((s, i) =>
    nonEmpty
      ? nonEmptyString(`${field}[${i}]`, s)
      : typeof s === 'string'
        ? s
        : refuse(`${field}[${i}]`, 'must be a string'),
  );
}

export function oneOf(field: string, v: unknown, allowed: readonly string[]): string {
  return typeof v === 'string' && allowed.includes(v)
    ? v
    : refuse(field, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
}

/** Only these keys may appear in the object. */
export function knownKeys(field: string, o: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(o).find((k) => !allowed.includes(k));
  if (unknown !== undefined)
    refuse(`${field}.${unknown}`, `is not a field accepted here (accepted: ${allowed.join(', ')})`);
}

/** An ISO 8601 date or date-time naming a real instant. */
export function isoTimestamp(field: string, v: unknown): string {
  const ok =
    typeof v === 'string' &&
    /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) &&
    !Number.isNaN(Date.parse(v.replace(' ', 'T')));
  return ok ? v : refuse(field, 'must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z');
}

/** A JSON text that parses (a parameter holding JSON, e.g. `mapping`). */
export function jsonParam(field: string, text: string | undefined): unknown {
  if (text === undefined) refuse(field, 'is required');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return refuse(field, 'is not valid JSON');
  }
}
