/**
 * User mapping (aliasing), spec document 2: map and unmap on `{api_url}/usermap` with the `api_key` parameter
 * (family `ingest`), get mappings on `{analytics_url}/api/2/usermap` with HTTP Basic auth (family `dashboard` for the host's concurrency, at cost 0: not charged to the dashboard's budgets,
 * the analytics REST hosts' shared cap). Map and unmap are charged one unit per mapping object in the `ingest`
 * family's budget (src/http/options.ts DEFAULT_BUDGETS); group identify and attribution, in the same family, none.
 */
import type { Transport } from '../http/transport.js';
import { HttpClientError, ValidationError } from '../http/errors.js';
import { categoryOf } from '../errors.js';
import { checkBodyFields, req, type BodySchema } from './body-schema.js';
import { callSpec, type CallOptions } from './call-options.js';
import { isPlainObject, requireArray, requireMaxBytes, requireStringArray } from './checks.js';
import { jsonObject, MalformedResponseError, unspecified, type UnspecifiedResponse } from './response.js';
import { MAPPING_SPEC } from '../util/spec-constants.js';
import { ClientOf } from './client-of.js';

/**
 * The spec's mapping limits (src/util/spec-constants.ts): at most 2000 mappings and 1 MB of `mapping` JSON per batch,
 * 1500 mappings per 30-second window. `maxQueryBytes`: the longest `mapping` parameter (percent-encoded) sent in the
 * query string; a longer batch goes form-encoded in the body (see MappingOptions.encoding).
 */
export const USER_MAPPING_LIMITS = Object.freeze({
  maxMappings: MAPPING_SPEC.maxBatch,
  maxBatchBytes: MAPPING_SPEC.maxBatchBytes,
  perWindow: MAPPING_SPEC.perWindow,
  windowMs: MAPPING_SPEC.windowMs,
  maxQueryBytes: 6_000,
});

/**
 * A map or unmap sent in several batches failed after earlier batches were answered: `applied` mapping objects (the
 * first ones, in order) were accepted, the rest not (the failed batch's own fate is unknown when the failure was a
 * timeout). The answers so far are in `answers`, the batch's error in `cause` (its category is this error's).
 */
export class MappingPartialFailureError extends HttpClientError {
  readonly applied: number;
  readonly total: number;
  readonly answers: readonly UnspecifiedResponse[];
  readonly serverMessages: readonly string[];
  constructor(applied: number, total: number, answers: readonly UnspecifiedResponse[], cause: unknown) {
    const status = (cause as { status?: unknown }).status;
    super(
      `usermap: the first ${applied} of ${total} mapping objects were applied (${answers.length} batch${answers.length === 1 ? '' : 'es'}); ` +
        `the other ${total - applied} were not: ${cause instanceof Error ? cause.message : String(cause)}`,
      'MAPPING_PARTIAL_FAILURE',
      { cause, category: categoryOf(cause), ...(typeof status === 'number' ? { status } : {}) },
    );
    this.applied = applied;
    this.total = total;
    this.answers = answers;
    const messages = (cause as { serverMessages?: unknown }).serverMessages;
    this.serverMessages = Array.isArray(messages) ? messages.filter((m): m is string => typeof m === 'string') : [];
  }
}

/** "Mapping object" of map: `user_id` and `global_user_id`, any number (sent in batches under the caps). */
export const MAPPING_BODY: BodySchema = {
  shape: 'array',
  items: { min: 1 },
  fields: [req('user_id', 'string'), req('global_user_id', 'string')],
};

export interface UserMapping {
  user_id: string;
  global_user_id: string;
}

export interface MappingOptions extends CallOptions {
  /**
   * `auto` (default): the query string, as the spec shows, while the percent-encoded `mapping` is at most
   * `USER_MAPPING_LIMITS.maxQueryBytes`; beyond that the same two parameters form-encoded in the body. The spec shows
   * map/unmap with query parameters only, and a documented maximum batch (2000 mappings, up to 1 MB) cannot travel in
   * a URL (HTTP servers refuse request lines past 8–16 KB: 431/414); the body form is the one the platform's other
   * `api_key` endpoints take (group identify; attribution "form-encoded or as query parameters"), an assumption listed
   * in docs/CLIENTS.md. `query` / `form` force one encoding.
   */
  encoding?: 'auto' | 'query' | 'form';
}

export interface MappedUser {
  platform_id: number;
  user_id: string;
}

/** One queried user's mappings. */
export interface UserMappings {
  mapped_from: MappedUser[];
  mapped_to: MappedUser[];
}

/**
 * Splits mapping objects into batches (their `mapping` JSON text) of at most 2000 objects and 1 MB each, in order.
 * One object alone over 1 MB is a ValidationError.
 */
function mappingBatches(mapping: readonly object[]): { json: string; count: number }[] {
  const out: { json: string; count: number }[] = [];
  let batch: string[] = [];
  let bytes = 2; // the brackets
  const flush = () => {
    if (batch.length > 0) out.push({ json: `[${batch.join(',')}]`, count: batch.length });
    batch = [];
    bytes = 2;
  };
  mapping.forEach((m, i) => {
    const json = JSON.stringify(m);
    const size = Buffer.byteLength(json);
    requireMaxBytes(`mapping[${i}]`, `[${json}]`, USER_MAPPING_LIMITS.maxBatchBytes, 'one mapping object');
    if (
      batch.length >= USER_MAPPING_LIMITS.maxMappings ||
      bytes + size + (batch.length > 0 ? 1 : 0) > USER_MAPPING_LIMITS.maxBatchBytes
    )
      flush();
    bytes += size + (batch.length > 0 ? 1 : 0);
    batch.push(json);
  });
  flush();
  return out;
}

function mappedList(v: unknown, what: string): MappedUser[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new MalformedResponseError(`${what} is not an array`);
  return v.map((m, i) => {
    if (!isPlainObject(m)) throw new MalformedResponseError(`${what}[${i}] is not an object`);
    return { ...m, platform_id: Number(m.platform_id), user_id: String(m.user_id ?? '') } as MappedUser;
  });
}

export class UserMappingClient extends ClientOf<Transport> {
  /**
   * Sends `mapping` in batches of at most 2000 objects and 1 MB of JSON, each charged its number of mapping objects
   * in the transport's `ingest` budget (1500 per 30 s, admitted while the window is under the limit).
   */
  async #send(mapping: readonly object[], o: MappingOptions = {}): Promise<UnspecifiedResponse[]> {
    const encoding = o.encoding ?? 'auto';
    if (encoding !== 'auto' && encoding !== 'query' && encoding !== 'form')
      throw new ValidationError('encoding', 'must be "auto", "query" or "form"');
    const batches = mappingBatches(mapping);
    const out: UnspecifiedResponse[] = [];
    let applied = 0;
    for (const { json, count } of batches) {
      const form =
        encoding === 'form' ||
        (encoding === 'auto' && encodeURIComponent(json).length > USER_MAPPING_LIMITS.maxQueryBytes);
      try {
        const res = await this.via.request({
          method: 'POST',
          host: 'api',
          path: '/usermap',
          auth: 'api_key',
          family: 'ingest',
          cost: count,
          ...(form ? { form: { mapping: json } } : { query: { mapping: json } }),
          ...callSpec(o),
        });
        out.push(unspecified(res));
      } catch (err) {
        if (out.length === 0) throw err;
        throw new MappingPartialFailureError(applied, mapping.length, out, err);
      }
      applied += count;
    }
    return out;
  }

  /**
   * `POST {api_url}/usermap` with `mapping=[{user_id, global_user_id}]` and `api_key`: one or more mappings, sent in
   * batches of at most 2000 and 1 MB (one answer per batch, in order).
   */
  async map(mappings: readonly UserMapping[], o?: MappingOptions): Promise<UnspecifiedResponse[]> {
    const list = requireArray('mapping', mappings, 1).map((m, i) => {
      if (isPlainObject(m) && m.unmap !== undefined)
        throw new ValidationError(`mapping[${i}].unmap`, 'use unmap() to remove a mapping');
      const x = checkBodyFields(`mapping[${i}]`, m, MAPPING_BODY);
      return { user_id: x.user_id as string, global_user_id: x.global_user_id as string };
    });
    return this.#send(list, o);
  }

  /** `POST {api_url}/usermap` with `mapping=[{user_id, unmap: true}]`: one or more user IDs, batched as map(). */
  async unmap(userIds: readonly string[], o?: MappingOptions): Promise<UnspecifiedResponse[]> {
    const ids = requireStringArray('mapping', userIds, 1);
    return this.#send(
      ids.map((user_id) => ({ user_id, unmap: true })),
      o,
    );
  }

  /**
   * `GET {analytics_url}/api/2/usermap?user_ids=`: mappings keyed by each queried user ID. `user_ids` is sent as a
   * JSON array (the spec says "list of strings" without the encoding).
   */
  async getMappings(userIds: readonly string[], o?: CallOptions): Promise<Record<string, UserMappings>> {
    const ids = requireStringArray('user_ids', userIds, 1);
    const path = '/api/2/usermap';
    const res = await this.via.request({
      host: 'analytics',
      path,
      query: { user_ids: JSON.stringify(ids) },
      auth: 'basic',
      // On the analytics host: its concurrency slots. Not a dashboard query: none of the dashboard's cost budgets
      // (the spec states no limit of its own for get mappings).
      family: 'dashboard',
      cost: 0,
      ...callSpec(o),
    });
    if (res.status !== 200) throw new MalformedResponseError(`GET ${path}: expected status 200, got ${res.status}`);
    const data = jsonObject(res, `GET ${path}`);
    const out: Record<string, UserMappings> = {};
    for (const [id, v] of Object.entries(data)) {
      if (!isPlainObject(v))
        throw new MalformedResponseError(`GET ${path}: the entry of ${JSON.stringify(id)} is not an object`);
      out[id] = {
        ...v,
        mapped_from: mappedList(v.mapped_from, `GET ${path}: ${id}.mapped_from`),
        mapped_to: mappedList(v.mapped_to, `GET ${path}: ${id}.mapped_to`),
      };
    }
    return out;
  }
}
