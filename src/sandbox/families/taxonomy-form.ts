/**
 * The fields of one taxonomy request: the form-encoded body merged with the query (the client sends `event_type` in
 * the body of a GET, `showDeleted` in the query), read as the spec's record fields. Every problem is a
 * TaxonomyFailure, which the family answers with the taxonomy's failure body `{success: false, errors: [{message}]}`.
 */

/** A taxonomy call that fails: the status to answer and the message of its `errors` entry. */
export class TaxonomyFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'TaxonomyFailure';
  }
}

export function fail(status: number, message: string): never {
  throw new TaxonomyFailure(status, message);
}

/** Longest name (event type, property, category) the sandbox takes. */
const MAX_NAME = 1024;

/** Property fields a create or update may carry, as the records hold them. */
export interface PropertyFieldValues {
  description?: string;
  type?: string;
  regex?: string;
  enum_values?: string;
  is_array_type?: boolean;
  is_required?: boolean;
  is_hidden?: boolean;
  classifications?: string[];
}

export const PROPERTY_FIELDS = [
  'description',
  'type',
  'regex',
  'enum_values',
  'is_array_type',
  'is_required',
  'is_hidden',
  'classifications',
] as const;
const BOOLEAN_FIELDS = new Set([
  'is_array_type',
  'is_required',
  'is_hidden',
  'showDeleted',
  'is_hidden_from_dropdowns',
  'is_hidden_from_persona_results',
  'is_hidden_from_pathfinder',
  'is_hidden_from_timeline',
]);

export class TaxonomyFields {
  constructor(private readonly values: ReadonlyMap<string, string>) {}

  /** Merges the query and the form body; a field given twice (in either or both) is a 400. */
  static parse(query: URLSearchParams, body: string): TaxonomyFields {
    const values = new Map<string, string>();
    for (const source of [query, new URLSearchParams(body)]) {
      for (const [k, v] of source) {
        if (values.has(k)) fail(400, `${k} was given more than once`);
        values.set(k, v);
      }
    }
    return new TaxonomyFields(values);
  }

  /** Refuses fields other than `allowed`. */
  only(allowed: readonly string[]): this {
    for (const k of this.values.keys())
      if (!allowed.includes(k)) fail(400, `unknown field ${k} (this call takes: ${allowed.join(', ') || 'none'})`);
    return this;
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  string(name: string): string | undefined {
    return this.values.get(name);
  }

  /** A required non-empty name, at most 1,024 characters. */
  name(field: string): string {
    const v = this.values.get(field);
    if (v === undefined || v.trim() === '') fail(400, `${field} is required`);
    return checkName(field, v);
  }

  optionalName(field: string): string | undefined {
    return this.values.has(field) ? this.name(field) : undefined;
  }

  boolean(name: string): boolean | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    if (!BOOLEAN_FIELDS.has(name) || (v !== 'true' && v !== 'false')) fail(400, `${name} must be true or false`);
    return v === 'true';
  }

  /** The property fields given (classifications: a comma-separated list). */
  propertyFields(): PropertyFieldValues {
    const out: PropertyFieldValues = {};
    for (const k of ['description', 'type', 'regex', 'enum_values'] as const) {
      const v = this.values.get(k);
      if (v !== undefined) out[k] = v;
    }
    for (const k of ['is_array_type', 'is_required', 'is_hidden'] as const) {
      const v = this.boolean(k);
      if (v !== undefined) out[k] = v;
    }
    const c = this.values.get('classifications');
    if (c !== undefined)
      out.classifications = c
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    if (out.regex !== undefined) {
      try {
        new RegExp(out.regex);
      } catch {
        fail(400, 'regex is not a valid regular expression');
      }
    }
    return out;
  }
}

export function checkName(field: string, v: string): string {
  if (v.length > MAX_NAME) fail(400, `${field} is longer than ${MAX_NAME} characters`);
  return v;
}
