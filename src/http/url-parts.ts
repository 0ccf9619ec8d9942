/**
 * The values that go into a request URL: percent-encoding that never throws a raw `URIError`, and path parameters
 * that cannot leave their segment. Every client builds its paths with `pathSegment` and every query value goes
 * through `encodeComponent` (in `buildUrl`), so these are the only places a value becomes part of a URL.
 */
import { ValidationError } from './errors.js';

const LONE_SURROGATE = /\p{Cs}/u;

/** Whether a string holds a UTF-16 surrogate without its pair (not Unicode text: it has no UTF-8 form to send). */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** A short, printable excerpt of a value for an error message (lone surrogates shown as `\uXXXX` by JSON). */
function shown(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

function loneSurrogate(field: string, text: string): ValidationError {
  return new ValidationError(field, `${shown(text)} holds a lone UTF-16 surrogate, which has no UTF-8 form to send`);
}

/** `text` when it can be sent as UTF-8; a lone surrogate throws a ValidationError naming `field`. */
export function sendableText(field: string, text: string): string {
  if (hasLoneSurrogate(text)) throw loneSurrogate(field, text);
  return text;
}

/** `encodeURIComponent`, except that a lone surrogate throws a ValidationError naming `field` instead of a URIError. */
export function encodeComponent(field: string, text: string): string {
  try {
    return encodeURIComponent(text);
  } catch (err) {
    if (!(err instanceof URIError)) throw err;
    throw loneSurrogate(field, text);
  }
}

/**
 * A path parameter as one percent-encoded segment: a safe integer, or a non-empty string other than `.` and `..`
 * (a URL parser resolves those, so `/experiments/exp1/variants/..` would be sent as `/experiments/exp1/`).
 * Anything else throws a ValidationError naming `field` before a request is made.
 */
export function pathSegment(field: string, value: unknown): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value !== 'string' || value.length === 0) {
    const got =
      typeof value === 'string'
        ? '""'
        : typeof value === 'number'
          ? String(value)
          : value === null
            ? 'null'
            : typeof value;
    throw new ValidationError(field, `must be a non-empty string or a safe integer (got ${got})`);
  }
  if (value === '.' || value === '..') {
    throw new ValidationError(
      field,
      `${shown(value)} is not allowed as a path parameter: the URL would name another resource`,
    );
  }
  return encodeComponent(field, value);
}
