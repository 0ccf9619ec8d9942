/**
 * The fields of a request body as data: which the spec names, which are required, their JSON types. One schema per
 * body serves both the client's check before sending (`checkBodyFields`) and the text `replay-export api <op> --help`
 * prints (`describeBody`, through the catalogue's `body`), so the two cannot disagree. The detailed rules (allowed
 * operators, ISO 8601 times, ranges) stay with each client; this covers names, presence and JSON types.
 */
import { ValidationError } from '../http/errors.js';
import { isPlainObject, onlyKeys, requireObject, requireString, requireStringList } from './checks.js';

export type BodyFieldType = 'string' | 'boolean' | 'number' | 'integer' | 'string[]' | 'object' | 'array' | 'json';

export interface BodyField {
  readonly name: string;
  readonly type: BodyFieldType;
  /** Required: a string must be non-empty, anything else present. */
  readonly required?: boolean;
}

export interface BodySchema {
  /** `object`: the body is one object of these fields; `array`: a JSON array of such objects. */
  readonly shape: 'object' | 'array';
  readonly fields: readonly BodyField[];
  /** Fields beyond those listed are sent as given (the spec leaves the object open). */
  readonly open?: boolean;
  /** Array bodies: how many elements (inclusive). */
  readonly items?: { readonly min: number; readonly max?: number };
  /** At least one of these fields must be given (a non-empty string for a string field): an edit's fields, say. */
  readonly atLeastOneOf?: readonly string[];
}

/** A required field / an optional one. */
export const req = (name: string, type: BodyFieldType): BodyField => ({ name, type, required: true });
export const opt = (name: string, type: BodyFieldType): BodyField => ({ name, type });

function typeOk(type: BodyFieldType, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isSafeInteger(v);
    case 'string[]':
      return Array.isArray(v) && v.every((s) => typeof s === 'string');
    case 'object':
      return isPlainObject(v);
    case 'array':
      return Array.isArray(v);
    case 'json':
      return true;
  }
}

const TYPE_WORDS: Readonly<Record<BodyFieldType, string>> = {
  string: 'a string',
  boolean: 'true or false',
  number: 'a number',
  integer: 'an integer',
  'string[]': 'an array of strings',
  object: 'an object',
  array: 'an array',
  json: 'any JSON value',
};

/** Checks one object against the schema's fields: known names only (unless open), required ones present, types. */
export function checkBodyFields(where: string, value: unknown, schema: BodySchema): Record<string, unknown> {
  const o = requireObject(where, value);
  if (!schema.open)
    onlyKeys(
      where,
      o,
      schema.fields.map((f) => f.name),
    );
  const at = (name: string) => (where === 'body' ? name : `${where}.${name}`);
  for (const f of schema.fields) {
    const v = o[f.name];
    if (v === undefined) {
      if (f.required) throw new ValidationError(at(f.name), 'is required');
      continue;
    }
    if (f.required && f.type === 'string') requireString(at(f.name), v);
    else if (f.type === 'string[]') requireStringList(at(f.name), v);
    else if (!typeOk(f.type, v)) throw new ValidationError(at(f.name), `must be ${TYPE_WORDS[f.type]}`);
  }
  const some = schema.atLeastOneOf;
  if (some && !some.some((k) => o[k] !== undefined && o[k] !== ''))
    throw new ValidationError(where, `needs at least one of ${some.join(', ')}`);
  return o;
}

/** The one-line description `--help` prints: `{event_property, event_type?, description?, ...}` (`?`: optional). */
export function describeBody(schema: BodySchema): string {
  const fields = schema.fields.map((f) => `${f.name}${f.required ? '' : '?'}`);
  const some = schema.atLeastOneOf ? ` (at least one of ${schema.atLeastOneOf.join(', ')})` : '';
  const object = `{${[...fields, ...(schema.open ? ['...'] : [])].join(', ')}}${some}`;
  if (schema.shape === 'object') return object;
  const n = schema.items;
  const count = n === undefined ? '' : n.max === undefined ? ` (at least ${n.min})` : ` (${n.min} to ${n.max})`;
  return `array of ${object}${count}`;
}
