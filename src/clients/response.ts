/**
 * Reading responses: documented shapes are checked loosely (the fields a caller relies on), anything else is
 * passed through; bodies the specs do not show are handed back as received.
 */
import type { ApiResponse } from '../http/transport.js';
import { MalformedResponseError } from '../replay/records.js';
import { isPlainObject } from './checks.js';

export { MalformedResponseError };

/** A response whose body the spec does not show ("response body: not shown"): status and text as received. */
export interface UnspecifiedResponse {
  status: number;
  /** The body as received (UTF-8 text; may be empty, `OK`, or JSON — the spec does not say). */
  body: string;
}

export function unspecified(res: ApiResponse): UnspecifiedResponse {
  return { status: res.status, body: res.text() };
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
