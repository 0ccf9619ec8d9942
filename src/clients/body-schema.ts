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

/** Each type: how a message names it, and whether a value is of it. */
const TYPES: Readonly<Record<BodyFieldType, { words: string; ok: (v: unknown) => boolean }>> = {
  string: { words: 'a string', ok: (v) => typeof v === 'string' },
  boolean: { words: 'true or false', ok: (v) => typeof v === 'boolean' },
  number: { words: 'a number', ok: (v) => typeof v === 'number' && Number.isFinite(v) },
  integer: { words: 'an integer', ok: (v) => typeof v === 'number' && Number.isSafeInteger(v) },
  'string[]': { words: 'an array of strings', ok: (v) => Array.isArray(v) && v.every((s) => typeof s === 'string') },
  object: { words: 'an object', ok: isPlainObject },
  array: { words: 'an array', ok: Array.isArray },
  json: { words: 'any JSON value', ok: () => true },
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
    else if (!TYPES[f.type].ok(v)) throw new ValidationError(at(f.name), `must be ${TYPES[f.type].words}`);
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
