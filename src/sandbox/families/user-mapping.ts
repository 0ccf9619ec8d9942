/**
 * User mapping (spec document 2): map and unmap with `POST /usermap` (`mapping` and `api_key` as query parameters or
 * form-encoded), get mappings with `GET /api/2/usermap?user_ids=` (HTTP Basic). In-memory: which user is mapped to
 * which global user, for the life of one sandbox. The mapping limit counts mapping objects, not requests ("1500 alias
 * calls, not batches, per window"): a valid batch is charged its number of objects (rate-limits.ts) before it is
 * applied; over the limit it is answered 429 with Retry-After and changes nothing.
 *
 * Not shown by the spec, so chosen here: map/unmap answer 200 `{code: 200, mapped, unmapped}` (how many objects of
 * each kind the batch held); a bad batch is a 400 `{error, message}` and changes nothing; a wrong or missing `api_key`
 * is a 401. A user's `platform_id` is derived from its user id (see platformId), so it is the same in every sandbox.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAPPING } from '../spec-values.js';
import { ApiRequestError, badRequest } from '../context.js';
import type { RateLimits } from '../rate-limits.js';
import { sendJson } from '../http-util.js';
import { arrayField, jsonParam, knownKeys, nonEmptyString, objectField, stringArray } from './body-checks.js';
import type { FamilyKeys, FamilyRoute } from './family-route.js';
import { readParams, requireApiKey } from './request-input.js';

const MAP_PATH = '/usermap';
const GET_PATH = '/api/2/usermap';
/** Spec: at most 2000 mappings per batch. */
const MAX_MAPPINGS = MAPPING.maxBatch;
/** Spec: at most 1 MB per batch of `mapping` JSON (spec-values.ts). */
const MAX_BATCH_BYTES = MAPPING.maxBatchBytes;
/** The request body: the batch form-encoded, which can take three bytes per byte of JSON. */
const MAX_BODY_BYTES = 3 * MAX_BATCH_BYTES + 4096;

type Mapping = { user_id: string; global_user_id: string } | { user_id: string; unmap: true };

/** A user's platform id: the first 8 hex digits of SHA-256(user id) as an integer, plus 10^11. */
function platformId(userId: string): number {
  return 1e11 + parseInt(createHash('sha256').update(userId).digest('hex').slice(0, 8), 16);
}

function checkBatch(text: string | undefined): Mapping[] {
  if (text !== undefined && Buffer.byteLength(text) > MAX_BATCH_BYTES) {
    throw new ApiRequestError(413, 'batch_too_large', `the mapping batch is over ${MAX_BATCH_BYTES} bytes`);
  }
  return arrayField('mapping', jsonParam('mapping', text), 1, MAX_MAPPINGS).map((raw, i) => {
    const at = `mapping[${i}]`;
    const m = objectField(at, raw);
    knownKeys(at, m, ['user_id', 'global_user_id', 'unmap']);
    const user_id = nonEmptyString(`${at}.user_id`, m.user_id);
    if (m.unmap !== undefined) {
      if (m.unmap !== true || m.global_user_id !== undefined)
        throw badRequest('invalid_request', `${at}: unmap must be true, without global_user_id`);
      return { user_id, unmap: true };
    }
    const global_user_id = nonEmptyString(`${at}.global_user_id`, m.global_user_id);
    if (global_user_id === user_id) throw badRequest('invalid_request', `${at}: a user cannot be mapped to itself`);
    return { user_id, global_user_id };
  });
}

/** `user_ids`: a JSON array of user ids (what the client sends), or the ids separated by commas. */
function userIdsOf(query: URLSearchParams): string[] {
  const all = query.getAll('user_ids');
  if (all.length !== 1)
    throw badRequest(
      'invalid_request',
      all.length === 0 ? 'user_ids is required' : 'user_ids was given more than once',
    );
  const text = all[0]!;
  return stringArray('user_ids', text.trimStart().startsWith('[') ? jsonParam('user_ids', text) : text.split(','), 1);
}

export class UserMappingFamily implements FamilyRoute {
  readonly family = 'user-mapping';
  /** user id → the global user id it is mapped to. */
  readonly #globalOf = new Map<string, string>();

  constructor(
    private readonly keys: FamilyKeys,
    private readonly limits: RateLimits,
  ) {}

  matches(path: string): boolean {
    return path === MAP_PATH || path === GET_PATH;
  }

  auth(path: string): 'basic' | 'api_key' {
    return path === GET_PATH ? 'basic' : 'api_key';
  }

  /** The clients send get mappings under the analytics hosts' cap (`dashboard`), map and unmap as `ingest`. */
  clientFamily(path: string): string {
    return path === GET_PATH ? 'dashboard' : 'ingest';
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const method = path === GET_PATH ? 'GET' : 'POST';
    if (req.method !== method)
      throw new ApiRequestError(405, 'method_not_allowed', `only ${method} is allowed here`, method);
    if (method === 'GET') return sendJson(res, 200, this.#mappings(userIdsOf(query)));
    const params = await readParams(req, query, MAX_BODY_BYTES);
    requireApiKey(params, this.keys.apiKey);
    const batch = checkBatch(params.get('mapping'));
    const refused = this.limits.mapping(batch.length);
    if (refused) {
      return sendJson(
        res,
        429,
        { error: { code: 'rate_limited', message: refused.message, limit: refused.limit } },
        { 'Retry-After': String(refused.retryAfterSeconds) },
      );
    }
    for (const m of batch) {
      if ('unmap' in m) this.#globalOf.delete(m.user_id);
      else this.#globalOf.set(m.user_id, m.global_user_id);
    }
    const unmapped = batch.filter((m) => 'unmap' in m).length;
    sendJson(res, 200, { code: 200, mapped: batch.length - unmapped, unmapped });
  }

  /** Each queried id: the users mapped to it (`mapped_from`) and the global user it is mapped to (`mapped_to`). */
  #mappings(ids: string[]): Record<string, unknown> {
    const entry = (userId: string) => ({ platform_id: platformId(userId), user_id: userId });
    const out: Record<string, unknown> = {};
    for (const id of ids) {
      const to = this.#globalOf.get(id);
      out[id] = {
        mapped_from: [...this.#globalOf].filter(([, g]) => g === id).map(([u]) => entry(u)),
        mapped_to: to === undefined ? [] : [entry(to)],
      };
    }
    return out;
  }
}
