/**
 * Group identify (spec document 2): `POST /groupidentify` with `api_key` and `identification` (a JSON array of
 * `{group_type, group_value, group_properties}`) form-encoded in the body. In-memory: each group's properties, for
 * the life of one sandbox; a later identify of the same group sets the properties it names and keeps the others.
 *
 * Not shown by the spec, so chosen here: the answer is 200 `{code: 200, identified}` (groups in the request); a bad
 * request is a 400 `{error, message}` and changes nothing; a wrong or missing `api_key` is a 401. Operations inside
 * `group_properties` are not shown either: values are stored as sent. The "5 group types and 10 groups per event"
 * limit is about events, which this endpoint does not take.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiRequestError, badRequest } from '../context.js';
import { sendJson } from '../http-util.js';
import { arrayField, jsonParam, nonEmptyString, objectField } from './body-checks.js';
import { GROUP_IDENTIFY } from '../spec-values.js';
import type { FamilyKeys, FamilyRoute } from './family-route.js';
import { readParams, requireApiKey } from './request-input.js';

const PATH = '/groupidentify';
/** Spec: at most 1024 group identifies and 1024 group properties per request. */
const MAX_IDENTIFICATIONS = GROUP_IDENTIFY.maxIdentifications;
const MAX_PROPERTIES = GROUP_IDENTIFY.maxProperties;
/** Spec: at most 1 MB per request (spec-values.ts). */
const MAX_BODY_BYTES = GROUP_IDENTIFY.maxRequestBytes;

interface Identification {
  group_type: string;
  group_value: string;
  group_properties: Record<string, unknown>;
}

function checkIdentifications(text: string | undefined): Identification[] {
  const list = arrayField('identification', jsonParam('identification', text), 1, MAX_IDENTIFICATIONS).map((raw, i) => {
    const g = objectField(`identification[${i}]`, raw);
    return {
      group_type: nonEmptyString(`identification[${i}].group_type`, g.group_type),
      group_value: nonEmptyString(`identification[${i}].group_value`, g.group_value),
      group_properties: objectField(`identification[${i}].group_properties`, g.group_properties),
    };
  });
  const properties = list.reduce((n, g) => n + Object.keys(g.group_properties).length, 0);
  if (properties > MAX_PROPERTIES)
    throw badRequest(
      'invalid_request',
      `${properties} group properties in one request, over the limit of ${MAX_PROPERTIES}`,
    );
  return list;
}

export class GroupIdentifyFamily implements FamilyRoute {
  readonly family = 'ingest';
  /** group type → group value → properties. */
  readonly #groups = new Map<string, Map<string, Record<string, unknown>>>();

  constructor(private readonly keys: FamilyKeys) {}

  matches(path: string): boolean {
    return path === PATH;
  }

  auth(): 'api_key' {
    return 'api_key';
  }

  /** The properties of one group, or undefined when it was never identified. */
  group(groupType: string, groupValue: string): Record<string, unknown> | undefined {
    const props = this.#groups.get(groupType)?.get(groupValue);
    return props === undefined ? undefined : { ...props };
  }

  async handle(req: IncomingMessage, res: ServerResponse, _path: string, query: URLSearchParams): Promise<void> {
    if (req.method !== 'POST')
      throw new ApiRequestError(405, 'method_not_allowed', 'only POST is allowed here', 'POST');
    const params = await readParams(req, query, MAX_BODY_BYTES, true);
    requireApiKey(params, this.keys.apiKey);
    const list = checkIdentifications(params.get('identification'));
    for (const g of list) {
      let byValue = this.#groups.get(g.group_type);
      if (!byValue) this.#groups.set(g.group_type, (byValue = new Map()));
      byValue.set(g.group_value, { ...byValue.get(g.group_value), ...g.group_properties });
    }
    sendJson(res, 200, { code: 200, identified: list.length });
  }
}
