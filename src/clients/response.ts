/**
 * Reading responses: documented shapes are checked loosely (the fields a caller relies on), anything else is
 * passed through; bodies the specs do not show are handed back as received.
 */
import type { ApiResponse } from '../http/transport.js';
import { MalformedResponseError } from '../replay/records.js';
import { isPlainObject } from './checks.js';

export { MalformedResponseError };

/** A response whose body the spec does not show ("response body: not shown"): status and body as received. */
export interface UnspecifiedResponse {
  status: number;
  /**
   * The body: parsed when it is JSON (a JSON content type, or text that parses as JSON), else the text as received
   * (may be empty or `OK`; the spec does not say which).
   */
  body: unknown;
}

function isJsonType(headers: ApiResponse['headers']): boolean {
  const type = headers['content-type'];
  return /\bjson\b/i.test(Array.isArray(type) ? type.join(',') : (type ?? ''));
}

export function unspecified(res: ApiResponse): UnspecifiedResponse {
  const text = res.text();
  const trimmed = text.trim();
  if (isJsonType(res.headers) || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return { status: res.status, body: JSON.parse(text) as unknown };
    } catch {
      // Not JSON after all: the text as received.
    }
  }
  return { status: res.status, body: text };
}

/** Parses a JSON object body; anything else is MalformedResponseError naming the call. */
export function jsonObject(res: ApiResponse, what: string): Record<string, unknown> {
  const data = res.json<unknown>();
  if (!isPlainObject(data)) throw new MalformedResponseError(`${what}: the response is not a JSON object`);
  return data;
}

/** Parses a JSON array body. */
export function jsonArray(res: ApiResponse, what: string): unknown[] {
  const data = res.json<unknown>();
  if (!Array.isArray(data)) throw new MalformedResponseError(`${what}: the response is not a JSON array`);
  return data;
}
