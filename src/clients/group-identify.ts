/**
 * Group identify, spec document 2: `POST {ingest_url}/groupidentify`, form-encoded `api_key` and
 * `identification` (JSON array), family `ingest`. Updates affect future events only.
 */
import type { Transport } from '../http/transport.js';
import { ValidationError } from '../http/errors.js';
import { checkBodyFields, req, type BodySchema } from './body-schema.js';
import { callSpec, type CallOptions } from './call-options.js';
import { requireArray, requireMaxBytes } from './checks.js';
import { unspecified, type UnspecifiedResponse } from './response.js';
import { GROUP_IDENTIFY_SPEC } from '../util/spec-constants.js';
import { ClientOf } from './client-of.js';

/** Identifications and properties (summed over them) per request; the form body's bytes (src/util/spec-constants.ts). */
export const GROUP_IDENTIFY_LIMITS = GROUP_IDENTIFY_SPEC;

/** "Group identification": `group_type`, `group_value`, `group_properties` (1 to 1024 per request). */
export const GROUP_IDENTIFY_BODY: BodySchema = {
  shape: 'array',
  items: { min: 1, max: GROUP_IDENTIFY_SPEC.maxIdentifications },
  fields: [req('group_type', 'string'), req('group_value', 'string'), req('group_properties', 'object')],
};

export interface GroupIdentification {
  group_type: string;
  group_value: string;
  /** Property name → value. Operations inside (`$set`, ...) are not shown by the spec; values are sent as given. */
  group_properties: Record<string, unknown>;
}

export class GroupIdentifyClient extends ClientOf<Transport> {
  /** Sends 1 to 1024 group identifications (≤ 1024 properties in all, ≤ 1 MB). */
  async identify(identifications: readonly GroupIdentification[], o?: CallOptions): Promise<UnspecifiedResponse> {
    const list = requireArray('identification', identifications, 1, GROUP_IDENTIFY_LIMITS.maxIdentifications);
    let properties = 0;
    list.forEach((raw, i) => {
      const g = checkBodyFields(`identification[${i}]`, raw, GROUP_IDENTIFY_BODY);
      properties += Object.keys(g.group_properties as object).length;
    });
    if (properties > GROUP_IDENTIFY_LIMITS.maxProperties) {
      throw new ValidationError(
        'identification',
        `${properties} group properties in one request, over the limit of ${GROUP_IDENTIFY_LIMITS.maxProperties}`,
      );
    }
    const form = { identification: JSON.stringify(list) };
    // The api_key the transport adds is short; the cap is checked on the encoded body without it.
    requireMaxBytes(
      'identification',
      new URLSearchParams(form).toString(),
      GROUP_IDENTIFY_LIMITS.maxRequestBytes,
      'the request body',
    );
    const res = await this.via.request({
      // Limits of group identify per window: "not shown"; nothing is charged to the mapping budget of `ingest`.
      method: 'POST',
      host: 'ingest',
      path: '/groupidentify',
      form,
      auth: 'api_key',
      family: 'ingest',
      cost: 0,
      ...callSpec(o),
    });
    return unspecified(res);
  }
}
