/**
 * What the caller of a client method may give to every request the method makes: the abort signal, and what the
 * `api` command passes through unchecked (`--query`, fields, `-H`) or wants to see (`--raw`, `-i`: the response as it came).
 */
import type { RequestSpec } from './transport.js';

export type CallSpec = Pick<RequestSpec, 'signal' | 'extraQuery' | 'extraFields' | 'extraHeaders' | 'onResponse'>;

/** The fields of `o` that are set, to spread into a RequestSpec (exactOptionalPropertyTypes-friendly). */
export function callSpec(o: CallSpec | undefined): CallSpec {
  const out: CallSpec = {};
  if (o?.signal) out.signal = o.signal;
  if (o?.extraQuery) out.extraQuery = o.extraQuery;
  if (o?.extraFields) out.extraFields = o.extraFields;
  if (o?.extraHeaders) out.extraHeaders = o.extraHeaders;
  if (o?.onResponse) out.onResponse = o.onResponse;
  return out;
}
