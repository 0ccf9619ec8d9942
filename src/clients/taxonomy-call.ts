/**
 * One taxonomy request: `{analytics_url}/api/2/taxonomy/...`, HTTP Basic auth, form-encoded bodies, family
 * `taxonomy`; the `{success, data}` envelope is unwrapped and `success: false` becomes TaxonomyFailureError.
 */
import type { HttpMethod, QueryParams, Transport } from '../http/transport.js';
import { ValidationError } from '../http/errors.js';
import { callSpec, type CallOptions } from './call-options.js';
import { pathSegment } from '../http/url-parts.js';
import { isPlainObject, requireString } from './checks.js';
import { jsonObject, MalformedResponseError } from './response.js';
import { TaxonomyFailureError } from './taxonomy-types.js';
import { ClientOf } from './client-of.js';
import { taxonomyCost } from '../util/spec-constants.js';

export const TAXONOMY_PATH = '/api/2/taxonomy';

type FormValue = string | boolean | number | readonly string[] | undefined;

/** Form fields: booleans as `true`/`false`, string arrays comma-joined, undefined left out. */
function toForm(fields: Readonly<Record<string, FormValue>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (typeof v === 'boolean' || typeof v === 'number') out[k] = String(v);
    else if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) {
      v.forEach((s, i) => {
        if (typeof s !== 'string') throw new ValidationError(`${k}[${i}]`, 'must be a string');
      });
      out[k] = v.join(',');
    } else throw new ValidationError(k, 'must be a string, a boolean or a list of strings');
  }
  return out;
}

export interface TaxonomyRequest {
  method: HttpMethod;
  /** Path below `/api/2/taxonomy`: a resource, then the item's path parameter (name, value), one segment. */
  resource: string;
  item?: readonly [name: string, value: string | number];
  /** Last path segment(s) after the encoded ones (`restore`). */
  suffix?: string;
  form?: Readonly<Record<string, FormValue>>;
  query?: QueryParams;
}

/** Body of a successful call: `success` and, for reads, `data`. */
export interface Envelope {
  success: boolean;
  data?: unknown;
  [field: string]: unknown;
}

/** A request for one item of `resource` (`/event/:event_type`), its `name` checked a non-empty string. */
export function named(
  method: HttpMethod,
  resource: string,
  name: string,
  value: string,
  more: Partial<TaxonomyRequest> = {},
): TaxonomyRequest {
  return { method, resource, item: [name, requireString(name, value)], ...more };
}

export class TaxonomyCaller extends ClientOf<Transport> {
  async call(r: TaxonomyRequest, o?: CallOptions): Promise<Envelope> {
    const segs = r.item ? [pathSegment(...r.item)] : [];
    const path = [`${TAXONOMY_PATH}/${r.resource}`, ...segs, ...(r.suffix ? [r.suffix] : [])].join('/');
    const form = r.form ? toForm(r.form) : undefined;
    const res = await this.via.request({
      method: r.method,
      host: 'analytics',
      path,
      auth: 'basic',
      family: 'taxonomy',
      cost: taxonomyCost(r.method),
      ...(form && Object.keys(form).length ? { form } : {}),
      ...(r.query ? { query: r.query } : {}),
      ...callSpec(o),
    });
    const what = `${r.method} ${path}`;
    const body = res.body.length === 0 ? { success: true } : jsonObject(res, what);
    if (body.success === false) {
      const errors = Array.isArray(body.errors) ? body.errors : [];
      const messages = errors.map((e) =>
        isPlainObject(e) && typeof e.message === 'string' ? e.message : JSON.stringify(e),
      );
      throw new TaxonomyFailureError(r.method, path, res.status, messages);
    }
    return { ...body, success: true };
  }

  /** A read: `data` must be present (an array for lists, an object for single records). */
  async read<T>(r: TaxonomyRequest, shape: 'array' | 'object', o?: CallOptions): Promise<T> {
    const env = await this.call(r, o);
    const ok = shape === 'array' ? Array.isArray(env.data) : isPlainObject(env.data);
    if (!ok)
      throw new MalformedResponseError(
        `${r.method} ${TAXONOMY_PATH}/${r.resource}: "data" is not ${shape === 'array' ? 'an array' : 'an object'}`,
      );
    return env.data as T;
  }
}
