/**
 * Checks of management request bodies (spec document 1) before anything is sent.
 */
import { ValidationError } from '../http/errors.js';
import { checkBodyFields, opt, req, type BodyField, type BodySchema } from './body-schema.js';
import {
  isPlainObject,
  optionalString,
  requireArray,
  requireFiniteNumber,
  requireInteger,
  requireIsoTimestamp,
  requireObject,
  requireOneOf,
  requireString,
  requireStringList,
} from './checks.js';
import {
  EXPERIMENT_CONDITION_OPS,
  FILTER_OPS,
  FLAG_CONDITION_OPS,
  MANAGEMENT_LIMITS,
  type ManagementKind,
} from './management-types.js';

const COMMON_EDIT: readonly BodyField[] = [
  opt('name', 'string'),
  opt('description', 'string'),
  opt('bucketingKey', 'string'),
  opt('bucketingSalt', 'string'),
  opt('evaluationMode', 'string'),
  opt('rolloutPercentage', 'integer'),
  opt('enabled', 'boolean'),
  opt('tags', 'string[]'),
];
const EXPERIMENT_EDIT: readonly BodyField[] = [
  ...COMMON_EDIT,
  opt('experimentType', 'string'),
  opt('stickyBucketing', 'boolean'),
  opt('startDate', 'string'),
  opt('endDate', 'string'),
  opt('exposureEvent', 'object'),
];
const FLAG_EDIT: readonly BodyField[] = [...COMMON_EDIT, opt('bucketingUnit', 'string')];
/** The edit body of each kind: "Experiment (fields accepted by edit)", "Flag (fields accepted by edit)". */
export const EDIT_BODY: Readonly<Record<ManagementKind, BodySchema>> = {
  experiments: {
    shape: 'object',
    fields: EXPERIMENT_EDIT,
    atLeastOneOf: EXPERIMENT_EDIT.map((f) => f.name),
  },
  flags: { shape: 'object', fields: FLAG_EDIT, atLeastOneOf: FLAG_EDIT.map((f) => f.name) },
};
/** A variant: `key` identifies it (required to add one); "name, description labelled optional". */
export const VARIANT_BODY: BodySchema = {
  shape: 'object',
  fields: [
    req('key', 'string'),
    opt('name', 'string'),
    opt('description', 'string'),
    opt('payload', 'json'),
    opt('rolloutWeight', 'number'),
  ],
};
/** A variant edit: the same fields, all optional. */
export const VARIANT_EDIT_BODY: BodySchema = {
  shape: 'object',
  fields: VARIANT_BODY.fields.map((f) => opt(f.name, f.type)),
  atLeastOneOf: VARIANT_BODY.fields.map((f) => f.name),
};
const CREATE_COMMON: readonly BodyField[] = [
  opt('projectId', 'string'),
  opt('name', 'string'),
  req('key', 'string'),
  opt('description', 'string'),
  opt('variants', 'array'),
  opt('rolloutWeights', 'object'),
  opt('targetSegments', 'array'),
  opt('deployments', 'string[]'),
  opt('evaluationMode', 'string'),
];
/**
 * "Create body (experiment and flag)". The spec marks no field required; `key` is required here because it is what
 * identifies the record (an assumption, docs/CLIENTS.md); `projectId` is optional.
 */
export const CREATE_BODY: Readonly<Record<ManagementKind, BodySchema>> = {
  experiments: { shape: 'object', fields: [...CREATE_COMMON, opt('experimentType', 'string')] },
  flags: { shape: 'object', fields: CREATE_COMMON },
};

function weights(field: string, v: unknown): void {
  const o = requireObject(field, v);
  for (const [k, w] of Object.entries(o)) requireFiniteNumber(`${field}.${k}`, w);
}

function exposureEvent(field: string, v: unknown): void {
  const e = requireObject(field, v);
  requireString(`${field}.event_type`, e.event_type);
  requireArray(`${field}.filters`, e.filters).forEach((raw, i) => {
    const f = requireObject(`${field}.filters[${i}]`, raw);
    const at = `${field}.filters[${i}]`;
    requireString(`${at}.group_type`, f.group_type);
    requireString(`${at}.subprop_key`, f.subprop_key);
    requireOneOf(`${at}.subprop_op`, f.subprop_op, FILTER_OPS);
    requireString(`${at}.subprop_type`, f.subprop_type);
    requireStringList(`${at}.subprop_value`, f.subprop_value);
  });
}

/** PATCH /api/1/{kind}/{id}: only the kind's edit fields, at least one, each of its type. */
export function validateEdit(kind: ManagementKind, body: unknown): Record<string, unknown> {
  const b = checkBodyFields('body', body, EDIT_BODY[kind]);
  const pct = MANAGEMENT_LIMITS.rolloutPercentage;
  if (b.rolloutPercentage !== undefined) requireInteger('rolloutPercentage', b.rolloutPercentage, pct.min, pct.max);
  if (b.startDate !== undefined) requireIsoTimestamp('startDate', b.startDate);
  if (b.endDate !== undefined) requireIsoTimestamp('endDate', b.endDate);
  if (b.exposureEvent !== undefined) exposureEvent('exposureEvent', b.exposureEvent);
  return b;
}

/** A variant body: POST needs `key`; PATCH (`partial`) takes any of the fields. */
export function validateVariant(body: unknown, partial: boolean): Record<string, unknown> {
  const v = checkBodyFields('variant', body, partial ? VARIANT_EDIT_BODY : VARIANT_BODY);
  if (partial && v.key !== undefined) requireString('variant.key', v.key);
  return v;
}

function segment(kind: ManagementKind, field: string, raw: unknown): void {
  const s = requireObject(field, raw);
  optionalString(`${field}.name`, s.name);
  optionalString(`${field}.bucketingKey`, s.bucketingKey);
  if (s.percentage !== undefined) requireFiniteNumber(`${field}.percentage`, s.percentage);
  if (s.rolloutWeights !== undefined) weights(`${field}.rolloutWeights`, s.rolloutWeights);
  const ops = kind === 'flags' ? FLAG_CONDITION_OPS : EXPERIMENT_CONDITION_OPS;
  requireArray(`${field}.conditions`, s.conditions).forEach((c, i) => {
    const at = `${field}.conditions[${i}]`;
    const o = requireObject(at, c);
    requireString(`${at}.prop`, o.prop);
    requireOneOf(`${at}.op`, o.op, ops);
    requireString(`${at}.type`, o.type);
    requireStringList(`${at}.values`, o.values);
  });
}

/**
 * POST /api/1/{kind}: known fields only, typed members. The spec marks no create field required; `key` is required
 * here because it is what identifies the record (an assumption, docs/CLIENTS.md); `projectId` is optional.
 */
export function validateCreate(kind: ManagementKind, body: unknown): Record<string, unknown> {
  const b = checkBodyFields('body', body, CREATE_BODY[kind]);
  if (b.variants !== undefined) {
    requireArray('variants', b.variants).forEach((v, i) => {
      if (!isPlainObject(v)) throw new ValidationError(`variants[${i}]`, 'must be an object with a key');
      requireString(`variants[${i}].key`, v.key);
    });
  }
  if (b.rolloutWeights !== undefined) weights('rolloutWeights', b.rolloutWeights);
  if (b.targetSegments !== undefined) {
    for (const [i, s] of requireArray('targetSegments', b.targetSegments).entries())
      segment(kind, `targetSegments[${i}]`, s);
  }
  return b;
}

/** `limit` of the list operations: a positive integer (the spec's samples use 1000; no maximum is stated). */
export function validateLimit(v: unknown): number {
  return requireInteger('limit', v, 1);
}
