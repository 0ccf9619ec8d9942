/**
 * The management family's checks of request bodies (spec document 1): the fields each body takes for its kind, their
 * types, and the allowed operators. Which fields are required is "not shown" except that a variant's name and
 * description are optional; the sandbox requires what identifies a thing (`key` of a record or a variant) and at
 * least one field in an edit.
 */
import { EXPERIMENT_OPS, FLAG_OPS, MANAGEMENT, SUBPROP_OPS as FILTER_OPS } from '../spec-values.js';
import { badRequest } from '../context.js';
import {
  arrayField,
  finiteNumber,
  integerIn,
  isoTimestamp,
  knownKeys,
  nonEmptyString,
  objectField,
  oneOf,
  optionalBoolean,
  optionalString,
  stringArray,
} from './body-checks.js';

export type Kind = 'experiments' | 'flags';

const COMMON_EDIT = [
  'name',
  'description',
  'bucketingKey',
  'bucketingSalt',
  'evaluationMode',
  'rolloutPercentage',
  'enabled',
  'tags',
];
const EDIT_FIELDS: Record<Kind, readonly string[]> = {
  experiments: [...COMMON_EDIT, 'experimentType', 'stickyBucketing', 'startDate', 'endDate', 'exposureEvent'],
  flags: [...COMMON_EDIT, 'bucketingUnit'],
};
const CREATE_COMMON = [
  'projectId',
  'name',
  'key',
  'description',
  'variants',
  'rolloutWeights',
  'targetSegments',
  'deployments',
  'evaluationMode',
];
const CREATE_FIELDS: Record<Kind, readonly string[]> = {
  experiments: [...CREATE_COMMON, 'experimentType'],
  flags: CREATE_COMMON,
};
export const VARIANT_FIELDS = ['key', 'name', 'description', 'payload', 'rolloutWeight'] as const;

function weights(field: string, v: unknown): void {
  for (const [k, w] of Object.entries(objectField(field, v))) finiteNumber(`${field}.${k}`, w);
}

function strings(o: Record<string, unknown>, names: readonly string[]): void {
  for (const n of names) optionalString(n, o[n]);
}

function exposureEvent(v: unknown): void {
  const e = objectField('exposureEvent', v);
  knownKeys('exposureEvent', e, ['event_type', 'filters']);
  nonEmptyString('exposureEvent.event_type', e.event_type);
  arrayField('exposureEvent.filters', e.filters).forEach((raw, i) => {
    const at = `exposureEvent.filters[${i}]`;
    const f = objectField(at, raw);
    for (const k of ['group_type', 'subprop_key', 'subprop_type']) nonEmptyString(`${at}.${k}`, f[k]);
    oneOf(`${at}.subprop_op`, f.subprop_op, FILTER_OPS);
    stringArray(`${at}.subprop_value`, f.subprop_value, 0, Number.MAX_SAFE_INTEGER, false);
  });
}

/** PATCH /api/1/{kind}/{id}: the kind's edit fields only, at least one. */
export function checkEdit(kind: Kind, body: unknown): Record<string, unknown> {
  const b = objectField('body', body);
  knownKeys('body', b, EDIT_FIELDS[kind]);
  if (Object.keys(b).length === 0) throw badRequest('invalid_request', 'an edit needs at least one field');
  strings(b, [
    'name',
    'description',
    'bucketingKey',
    'bucketingSalt',
    'evaluationMode',
    'experimentType',
    'bucketingUnit',
  ]);
  optionalBoolean('enabled', b.enabled);
  optionalBoolean('stickyBucketing', b.stickyBucketing);
  if (b.rolloutPercentage !== undefined)
    integerIn('rolloutPercentage', b.rolloutPercentage, MANAGEMENT.rolloutMin, MANAGEMENT.rolloutMax);
  if (b.tags !== undefined) stringArray('tags', b.tags, 0, Number.MAX_SAFE_INTEGER, false);
  if (b.startDate !== undefined) isoTimestamp('startDate', b.startDate);
  if (b.endDate !== undefined) isoTimestamp('endDate', b.endDate);
  if (b.exposureEvent !== undefined) exposureEvent(b.exposureEvent);
  return b;
}

/** A variant: POST needs `key`; an edit (`partial`) takes any of the fields, at least one. */
export function checkVariant(body: unknown, partial: boolean): Record<string, unknown> {
  const v = objectField('variant', body);
  knownKeys('variant', v, VARIANT_FIELDS);
  if (!partial || v.key !== undefined) nonEmptyString('variant.key', v.key);
  if (partial && Object.keys(v).length === 0)
    throw badRequest('invalid_request', 'a variant edit needs at least one field');
  strings(v, ['name', 'description']);
  if (v.rolloutWeight !== undefined) finiteNumber('variant.rolloutWeight', v.rolloutWeight);
  return v;
}

function segment(kind: Kind, at: string, raw: unknown): void {
  const s = objectField(at, raw);
  knownKeys(at, s, ['name', 'conditions', 'percentage', 'bucketingKey', 'rolloutWeights']);
  optionalString(`${at}.name`, s.name);
  optionalString(`${at}.bucketingKey`, s.bucketingKey);
  if (s.percentage !== undefined) finiteNumber(`${at}.percentage`, s.percentage);
  if (s.rolloutWeights !== undefined) weights(`${at}.rolloutWeights`, s.rolloutWeights);
  arrayField(`${at}.conditions`, s.conditions).forEach((c, i) => {
    const ca = `${at}.conditions[${i}]`;
    const o = objectField(ca, c);
    nonEmptyString(`${ca}.prop`, o.prop);
    oneOf(`${ca}.op`, o.op, kind === 'flags' ? FLAG_OPS : EXPERIMENT_OPS);
    nonEmptyString(`${ca}.type`, o.type);
    stringArray(`${ca}.values`, o.values, 0, Number.MAX_SAFE_INTEGER, false);
  });
}

/** POST /api/1/{kind}: the kind's create fields only; `key` required; variant keys unique. */
export function checkCreate(kind: Kind, body: unknown): Record<string, unknown> {
  const b = objectField('body', body);
  knownKeys('body', b, CREATE_FIELDS[kind]);
  nonEmptyString('key', b.key);
  strings(b, ['projectId', 'name', 'description', 'evaluationMode', 'experimentType']);
  if (b.variants !== undefined) {
    // The create body's variants are "objects with `key`": other fields are kept when they are variant fields.
    const keys = arrayField('variants', b.variants).map((v, i) =>
      nonEmptyString(`variants[${i}].key`, objectField(`variants[${i}]`, v).key),
    );
    if (new Set(keys).size !== keys.length)
      throw badRequest('invalid_request', 'variants: two variants have the same key');
  }
  if (b.rolloutWeights !== undefined) weights('rolloutWeights', b.rolloutWeights);
  if (b.deployments !== undefined) stringArray('deployments', b.deployments);
  if (b.targetSegments !== undefined)
    for (const [i, s] of arrayField('targetSegments', b.targetSegments).entries())
      segment(kind, `targetSegments[${i}]`, s);
  return b;
}
