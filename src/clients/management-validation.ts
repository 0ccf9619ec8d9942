/**
 * Checks of management request bodies (spec document 1) before anything is sent.
 */
import { ValidationError } from '../http/errors.js';
import {
  isPlainObject,
  onlyKeys,
  optionalBoolean,
  optionalString,
  requireArray,
  requireFiniteNumber,
  requireInteger,
  requireIsoTimestamp,
  requireObject,
  requireOneOf,
  requireString,
  requireStringArray,
  requireStringList,
} from './checks.js';
import {
  EXPERIMENT_CONDITION_OPS,
  FILTER_OPS,
  FLAG_CONDITION_OPS,
  MANAGEMENT_LIMITS,
  type ManagementKind,
} from './management-types.js';

const COMMON_EDIT = ['name', 'description', 'bucketingKey', 'bucketingSalt', 'evaluationMode', 'rolloutPercentage', 'enabled', 'tags'];
const EDIT_FIELDS: Record<ManagementKind, readonly string[]> = {
  experiments: [...COMMON_EDIT, 'experimentType', 'stickyBucketing', 'startDate', 'endDate', 'exposureEvent'],
  flags: [...COMMON_EDIT, 'bucketingUnit'],
};
const VARIANT_FIELDS = ['key', 'name', 'description', 'payload', 'rolloutWeight'];
const CREATE_COMMON = ['projectId', 'name', 'key', 'description', 'variants', 'rolloutWeights', 'targetSegments', 'deployments', 'evaluationMode'];
const CREATE_FIELDS: Record<ManagementKind, readonly string[]> = {
  experiments: [...CREATE_COMMON, 'experimentType'],
  flags: CREATE_COMMON,
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
  const b = requireObject('body', body);
  onlyKeys('body', b, EDIT_FIELDS[kind]);
  if (!Object.values(b).some((v) => v !== undefined)) throw new ValidationError('body', 'an edit needs at least one field');
  for (const k of ['name', 'description', 'bucketingKey', 'bucketingSalt', 'evaluationMode', 'experimentType', 'bucketingUnit']) {
    optionalString(k, b[k]);
  }
  optionalBoolean('enabled', b.enabled);
  optionalBoolean('stickyBucketing', b.stickyBucketing);
  const pct = MANAGEMENT_LIMITS.rolloutPercentage;
  if (b.rolloutPercentage !== undefined) requireInteger('rolloutPercentage', b.rolloutPercentage, pct.min, pct.max);
  if (b.tags !== undefined) requireStringList('tags', b.tags);
  if (b.startDate !== undefined) requireIsoTimestamp('startDate', b.startDate);
  if (b.endDate !== undefined) requireIsoTimestamp('endDate', b.endDate);
  if (b.exposureEvent !== undefined) exposureEvent('exposureEvent', b.exposureEvent);
  return b;
}

/** A variant body: POST needs `key`; PATCH (`partial`) takes any of the fields. */
export function validateVariant(body: unknown, partial: boolean): Record<string, unknown> {
  const v = requireObject('variant', body);
  onlyKeys('variant', v, VARIANT_FIELDS);
  if (!partial || v.key !== undefined) requireString('variant.key', v.key);
  if (partial && !Object.values(v).some((x) => x !== undefined)) throw new ValidationError('variant', 'an edit needs at least one field');
  optionalString('variant.name', v.name);
  optionalString('variant.description', v.description);
  if (v.rolloutWeight !== undefined) requireFiniteNumber('variant.rolloutWeight', v.rolloutWeight);
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
  const b = requireObject('body', body);
  onlyKeys('body', b, CREATE_FIELDS[kind]);
  requireString('key', b.key);
  for (const k of ['projectId', 'name', 'description', 'evaluationMode', 'experimentType']) optionalString(k, b[k]);
  if (b.variants !== undefined) {
    requireArray('variants', b.variants).forEach((v, i) => {
      if (!isPlainObject(v)) throw new ValidationError(`variants[${i}]`, 'must be an object with a key');
      requireString(`variants[${i}].key`, v.key);
    });
  }
  if (b.rolloutWeights !== undefined) weights('rolloutWeights', b.rolloutWeights);
  if (b.deployments !== undefined) requireStringArray('deployments', b.deployments);
  if (b.targetSegments !== undefined) {
    requireArray('targetSegments', b.targetSegments).forEach((s, i) => segment(kind, `targetSegments[${i}]`, s));
  }
  return b;
}

/** `limit` of the list operations: a positive integer (the spec's samples use 1000; no maximum is stated). */
export function validateLimit(v: unknown): number {
  return requireInteger('limit', v, 1);
}
