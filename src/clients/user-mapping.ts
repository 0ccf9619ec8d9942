/**
 * User mapping (aliasing), spec document 2: map and unmap on `{api_url}/usermap` with the `api_key` parameter
 * (family `ingest`), get mappings on `{analytics_url}/api/2/usermap` with HTTP Basic auth (family `dashboard`,
 * the analytics REST hosts' shared cap).
 */
import type { Transport } from '../http/transport.js';
import { ValidationError } from '../http/errors.js';
import { withSignal, type CallOptions } from './call-options.js';
import { isPlainObject, requireArray, requireMaxBytes, requireObject, requireString, requireStringArray } from './checks.js';
import { jsonObject, MalformedResponseError, unspecified, type UnspecifiedResponse } from './response.js';

export const USER_MAPPING_LIMITS = {
  /** At most 2000 mappings in one batch (not raisable). */
  maxMappings: 2000,
  /** At most 1 MB per batch: the JSON of `mapping`, counted as UTF-8 bytes (1 MB taken as 1,000,000). */
  maxBatchBytes: 1_000_000,
} as const;

export interface UserMapping {
  user_id: string;
  global_user_id: string;
}

export interface MappingOptions extends CallOptions {
  /**
   * `query` (default, as the spec shows): `mapping` and `api_key` in the query string. `form`: the same two
   * parameters form-encoded in the body, for batches too long for a URL (servers commonly refuse URLs over
   * 8–16 KB, far below the 1 MB batch limit).
   */
  encoding?: 'query' | 'form';
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

function mappedList(v: unknown, what: string): MappedUser[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new MalformedResponseError(`${what} is not an array`);
  return v.map((m, i) => {
    if (!isPlainObject(m)) throw new MalformedResponseError(`${what}[${i}] is not an object`);
    return { ...m, platform_id: Number(m.platform_id), user_id: String(m.user_id ?? '') } as MappedUser;
  });
}

export class UserMappingClient {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  async #post(mapping: object[], o: MappingOptions = {}): Promise<UnspecifiedResponse> {
    const json = JSON.stringify(mapping);
    requireMaxBytes('mapping', json, USER_MAPPING_LIMITS.maxBatchBytes, 'the mapping batch');
    const encoding = o.encoding ?? 'query';
    if (encoding !== 'query' && encoding !== 'form') throw new ValidationError('encoding', 'must be "query" or "form"');
    const res = await this.#transport.request({
      method: 'POST', host: 'api', path: '/usermap', auth: 'api_key', family: 'ingest',
      ...(encoding === 'form' ? { form: { mapping: json } } : { query: { mapping: json } }),
      ...withSignal(o),
    });
    return unspecified(res);
  }

  /** `POST {api_url}/usermap?mapping=[{user_id, global_user_id}]&api_key=`: 1 to 2000 mappings, ≤ 1 MB. */
  async map(mappings: readonly UserMapping[], o?: MappingOptions): Promise<UnspecifiedResponse> {
    const list = requireArray('mapping', mappings, 1, USER_MAPPING_LIMITS.maxMappings).map((m, i) => {
      const x = requireObject(`mapping[${i}]`, m);
      if (x.unmap !== undefined) throw new ValidationError(`mapping[${i}].unmap`, 'use unmap() to remove a mapping');
      return { user_id: requireString(`mapping[${i}].user_id`, x.user_id), global_user_id: requireString(`mapping[${i}].global_user_id`, x.global_user_id) };
    });
    return this.#post(list, o);
  }

  /** `POST {api_url}/usermap?mapping=[{user_id, unmap: true}]&api_key=`: 1 to 2000 user IDs, ≤ 1 MB. */
  async unmap(userIds: readonly string[], o?: MappingOptions): Promise<UnspecifiedResponse> {
    const ids = requireStringArray('mapping', userIds, 1, USER_MAPPING_LIMITS.maxMappings);
    return this.#post(ids.map((user_id) => ({ user_id, unmap: true })), o);
  }

  /**
   * `GET {analytics_url}/api/2/usermap?user_ids=`: mappings keyed by each queried user ID. `user_ids` is sent as a
   * JSON array (the spec says "list of strings" without the encoding).
   */
  async getMappings(userIds: readonly string[], o?: CallOptions): Promise<Record<string, UserMappings>> {
    const ids = requireStringArray('user_ids', userIds, 1);
    const path = '/api/2/usermap';
    const res = await this.#transport.request({
      host: 'analytics', path, query: { user_ids: JSON.stringify(ids) }, auth: 'basic', family: 'dashboard', ...withSignal(o),
    });
    if (res.status !== 200) throw new MalformedResponseError(`GET ${path}: expected status 200, got ${res.status}`);
    const data = jsonObject(res, `GET ${path}`);
    const out: Record<string, UserMappings> = {};
    for (const [id, v] of Object.entries(data)) {
      if (!isPlainObject(v)) throw new MalformedResponseError(`GET ${path}: the entry of ${JSON.stringify(id)} is not an object`);
      out[id] = {
        ...v,
        mapped_from: mappedList(v.mapped_from, `GET ${path}: ${id}.mapped_from`),
        mapped_to: mappedList(v.mapped_to, `GET ${path}: ${id}.mapped_to`),
      };
    }
    return out;
  }
}
