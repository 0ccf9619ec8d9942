/**
 * Attribution, spec document 2: `POST {api_url}/attribution` with `api_key` and `event` (a JSON attribution
 * event), form-encoded (default) or as query parameters; family `ingest`. An event without a matching user is
 * held up to 72 hours by the platform, then dropped.
 */
import type { Transport } from '../http/transport.js';
import { ValidationError } from '../http/errors.js';
import { withSignal, type CallOptions } from './call-options.js';
import { optionalString, requireObject, requireString } from './checks.js';
import { unspecified, type UnspecifiedResponse } from './response.js';

/** Advertising / vendor identifiers; at least one must be sent. */
export const ATTRIBUTION_IDENTIFIERS = ['idfa', 'idfv', 'adid', 'android_app_set_id'] as const;

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

export class AttributionClient {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Sends one attribution event. Needs `event_type` and at least one of idfa, idfv, adid, android_app_set_id. */
  async send(event: AttributionEvent, o: AttributionOptions = {}): Promise<UnspecifiedResponse> {
    const e = requireObject('event', event);
    requireString('event.event_type', e.event_type);
    for (const id of ATTRIBUTION_IDENTIFIERS) optionalString(`event.${id}`, e[id]);
    if (!ATTRIBUTION_IDENTIFIERS.some((id) => typeof e[id] === 'string' && e[id] !== '')) {
      throw new ValidationError('event', `needs one of ${ATTRIBUTION_IDENTIFIERS.join(', ')} to identify the user`);
    }
    optionalString('event.platform', e.platform);
    if (e.user_properties !== undefined) requireObject('event.user_properties', e.user_properties);
    const encoding = o.encoding ?? 'form';
    if (encoding !== 'form' && encoding !== 'query') throw new ValidationError('encoding', 'must be "form" or "query"');
    const payload = { event: JSON.stringify(e) };
    const res = await this.#transport.request({
      // Rate limits of attribution: "not shown"; nothing is charged to the mapping budget of `ingest`.
      method: 'POST', host: 'api', path: '/attribution', auth: 'api_key', family: 'ingest', cost: 0,
      ...(encoding === 'form' ? { form: payload } : { query: payload }),
      ...withSignal(o),
    });
    return unspecified(res);
  }
}
