/**
 * Attribution, spec document 2: `POST {api_url}/attribution` with `api_key` and `event` (a JSON attribution
 * event), form-encoded (default) or as query parameters; family `ingest`. An event without a matching user is
 * held up to 72 hours by the platform, then dropped.
 */
import type { Transport } from '../http/transport.js';
import { ValidationError } from '../http/errors.js';
import { checkBodyFields, opt, req, type BodySchema } from './body-schema.js';
import { callSpec, type CallOptions } from './call-options.js';
import { unspecified, type UnspecifiedResponse } from './response.js';
import { ClientOf } from './client-of.js';

/** Advertising / vendor identifiers; at least one must be sent. */
export const ATTRIBUTION_IDENTIFIERS = ['idfa', 'idfv', 'adid', 'android_app_set_id'] as const;

/** "Attribution event": `event_type`, an identifier, `user_properties`, `platform`; other fields sent as given. */
export const ATTRIBUTION_EVENT_BODY: BodySchema = {
  shape: 'object',
  open: true,
  fields: [
    req('event_type', 'string'),
    ...ATTRIBUTION_IDENTIFIERS.map((id) => opt(id, 'string')),
    opt('user_properties', 'object'),
    opt('platform', 'string'),
  ],
  atLeastOneOf: ATTRIBUTION_IDENTIFIERS,
};

export interface AttributionEvent {
  event_type: string;
  idfa?: string;
  idfv?: string;
  adid?: string;
  android_app_set_id?: string;
  user_properties?: Record<string, unknown>;
  /** `ios` or `android` in the spec's requests. */
  platform?: 'ios' | 'android' | (string & {});
  [field: string]: unknown;
}

export interface AttributionOptions extends CallOptions {
  /** `form` (default): form-encoded body; `query`: both parameters in the query string. */
  encoding?: 'form' | 'query';
}

export class AttributionClient extends ClientOf<Transport> {
  /** Sends one attribution event. Needs `event_type` and at least one of idfa, idfv, adid, android_app_set_id. */
  async send(event: AttributionEvent, o: AttributionOptions = {}): Promise<UnspecifiedResponse> {
    const e = checkBodyFields('event', event, ATTRIBUTION_EVENT_BODY);
    const encoding = o.encoding ?? 'form';
    if (encoding !== 'form' && encoding !== 'query') throw new ValidationError('encoding', 'must be "form" or "query"');
    const payload = { event: JSON.stringify(e) };
    const res = await this.via.request({
      // Rate limits of attribution: "not shown"; nothing is charged to the mapping budget of `ingest`.
      method: 'POST',
      host: 'api',
      path: '/attribution',
      auth: 'api_key',
      family: 'ingest',
      cost: 0,
      ...(encoding === 'form' ? { form: payload } : { query: payload }),
      ...callSpec(o),
    });
    return unspecified(res);
  }
}
