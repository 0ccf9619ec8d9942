/**
 * Attribution (spec document 2): `POST /attribution` with `api_key` and `event` (a JSON attribution event), sent
 * form-encoded or as query parameters. An event names its user by idfa, idfv, adid or android_app_set_id. The spec's
 * states: an event with no matching user yet is held up to 72 hours, then dropped. The sandbox logs no events of
 * users, so no event ever finds its user: each one is held (in memory) and dropped 72 hours after it arrived, by the
 * sandbox clock (`now`).
 *
 * Not shown by the spec, so chosen here: the answer is 200 `{code: 200, status: "held"}`; a bad event is a 400
 * `{error, message}`; a wrong or missing `api_key` is a 401.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiRequestError, badRequest } from '../context.js';
import { sendJson } from '../http-util.js';
import { jsonParam, nonEmptyString, objectField, optionalString } from './body-checks.js';
import type { FamilyKeys, FamilyRoute } from './family-route.js';
import { readParams, requireApiKey } from './request-input.js';

const PATH = '/attribution';
const IDENTIFIERS = ['idfa', 'idfv', 'adid', 'android_app_set_id'];
/** Spec: a held event is kept up to 72 hours. */
const HOLD_MS = 72 * 3600_000;
/** The spec states no size limit: one event is small; 1 MB is ample. */
const MAX_BODY_BYTES = 1_000_000;
/** Held events kept at most (the oldest are dropped first beyond this), so memory stays bounded. */
const MAX_HELD = 10_000;

export interface HeldAttribution {
  event: Record<string, unknown>;
  /** The sandbox clock when it arrived (ms). */
  receivedAt: number;
}

function checkEvent(text: string | undefined): Record<string, unknown> {
  const e = objectField('event', jsonParam('event', text));
  nonEmptyString('event.event_type', e.event_type);
  for (const id of IDENTIFIERS) optionalString(`event.${id}`, e[id]);
  if (!IDENTIFIERS.some((id) => typeof e[id] === 'string' && e[id] !== '')) {
    throw badRequest('invalid_request', `event needs one of ${IDENTIFIERS.join(', ')} to identify the user`);
  }
  optionalString('event.platform', e.platform);
  if (e.user_properties !== undefined) objectField('event.user_properties', e.user_properties);
  return e;
}

export class AttributionFamily implements FamilyRoute {
  readonly family = 'ingest';
  #held: HeldAttribution[] = [];

  constructor(
    private readonly keys: FamilyKeys,
    private readonly now: () => number,
  ) {}

  matches(path: string): boolean {
    return path === PATH;
  }

  auth(): 'api_key' {
    return 'api_key';
  }

  /** The events held now (those older than 72 hours are dropped first), oldest first. */
  held(): HeldAttribution[] {
    const since = this.now() - HOLD_MS;
    this.#held = this.#held.filter((h) => h.receivedAt >= since);
    return this.#held.map((h) => ({ event: { ...h.event }, receivedAt: h.receivedAt }));
  }

  async handle(req: IncomingMessage, res: ServerResponse, _path: string, query: URLSearchParams): Promise<void> {
    if (req.method !== 'POST')
      throw new ApiRequestError(405, 'method_not_allowed', 'only POST is allowed here', 'POST');
    const params = await readParams(req, query, MAX_BODY_BYTES);
    requireApiKey(params, this.keys.apiKey);
    const event = checkEvent(params.get('event'));
    this.held();
    this.#held.push({ event, receivedAt: this.now() });
    if (this.#held.length > MAX_HELD) this.#held.shift();
    sendJson(res, 200, { code: 200, status: 'held' });
  }
}
