/**
 * The parameters of one catalogue operation (src/clients/catalogue.ts): their declared types, and the values a caller
 * gave as `name=value` text, parsed and checked against those declarations before any request is built.
 */
import { ValidationError } from '../http/errors.js';

/** `json`: any JSON value (objects, arrays); `string[]`: a JSON array of strings or a comma-separated list. */
export type ParamType = 'string' | 'integer' | 'boolean' | 'string[]' | 'json';

export interface ParamSpec {
  readonly name: string;
  /**
   * The name the request carries, as the spec writes it (`amplitude_id`, `replay_id`, `e`; `start_time`/`end_time`,
   * which the spec does not name, as the client sends them), when it is not `name`: accepted beside `name`
   * (`--param amplitude_id=…`), shown by `--help`.
   */
  readonly wire?: string;
  readonly type: ParamType;
  readonly required?: boolean;
  readonly help: string;
  /** The only values taken (a `string` or `integer` parameter): checked by `OperationArgs`, listed by `--help`. */
  readonly values?: readonly string[];
  /** What the client does when the parameter is not given, in words (`--help` prints it). */
  readonly default?: string;
}

/**
 * The type of a parameter as `--help` and `--list` show it: its values when it has a fixed set (`asc|desc`), else
 * its type (`integer`, `string[]`). The same declaration `OperationArgs` checks values against.
 */
export function paramTypeText(spec: ParamSpec): string {
  return spec.values !== undefined ? spec.values.join('|') : spec.type;
}

/** The names a parameter is known by: its own and the spec's (`wire`). */
const namesOf = (s: ParamSpec): string[] => (s.wire !== undefined ? [s.name, s.wire] : [s.name]);

/** Every name a parameter of `specs` is known by. */
export function knownNames(specs: readonly ParamSpec[]): Set<string> {
  return new Set(specs.flatMap(namesOf));
}

type Value = string | number | boolean | string[] | unknown;

function parseValue(spec: ParamSpec, text: string): Value {
  if (spec.values !== undefined && !spec.values.includes(text))
    throw new ValidationError(spec.name, `must be one of ${spec.values.join(', ')} (got ${JSON.stringify(text)})`);
  switch (spec.type) {
    case 'string':
      return text;
    case 'integer':
      if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
        throw new ValidationError(spec.name, `must be an integer (got ${JSON.stringify(text)})`);
      return Number(text);
    case 'boolean':
      if (text !== 'true' && text !== 'false')
        throw new ValidationError(spec.name, `must be true or false (got ${JSON.stringify(text)})`);
      return text === 'true';
    case 'string[]': {
      if (!text.trimStart().startsWith('[')) return text.split(',').filter((s) => s !== '');
      const parsed = parseJson(spec.name, text);
      if (!Array.isArray(parsed) || !parsed.every((s) => typeof s === 'string'))
        throw new ValidationError(spec.name, 'must be a JSON array of strings');
      return parsed as string[];
    }
    case 'json':
      return parseJson(spec.name, text);
  }
}

function parseJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ValidationError(name, 'must be valid JSON');
  }
}

/** Checked parameter values of one call; the getters name the parameter in their errors. */
export class OperationArgs {
  readonly #values: ReadonlyMap<string, Value>;

  private constructor(values: ReadonlyMap<string, Value>) {
    this.#values = values;
  }

  /**
   * Parses `pairs` (name → text) against `specs`, each under its name or the spec's (`wire`): unknown names, bad
   * values, one parameter given twice and missing required ones are refused.
   */
  static parse(specs: readonly ParamSpec[], pairs: ReadonlyArray<readonly [string, string]>): OperationArgs {
    const byName = new Map(specs.flatMap((s) => namesOf(s).map((name) => [name, s] as const)));
    const values = new Map<string, Value>();
    for (const [given, text] of pairs) {
      const spec = byName.get(given);
      if (!spec)
        throw new ValidationError(given, `unknown parameter (known: ${[...knownNames(specs)].join(', ') || 'none'})`);
      if (values.has(spec.name)) throw new ValidationError(given, 'given more than once');
      values.set(spec.name, parseValue(spec, text));
    }
    for (const s of specs) if (s.required && !values.has(s.name)) throw new ValidationError(s.name, 'is required');
    return new OperationArgs(values);
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }

  string(name: string): string {
    return this.#get(name, 'string') as string;
  }

  integer(name: string): number {
    return this.#get(name, 'number') as number;
  }

  strings(name: string): string[] {
    const v = this.#values.get(name);
    if (!Array.isArray(v)) throw new ValidationError(name, 'is required');
    return v as string[];
  }

  /** The value as parsed (its declared type), or undefined when it was not given. */
  value(name: string): unknown {
    return this.#values.get(name);
  }

  json(name: string): unknown {
    if (!this.#values.has(name)) throw new ValidationError(name, 'is required');
    return this.#values.get(name);
  }

  /** Only the parameters that were given, as an object for the client's options (`{eventType: ...}`). */
  optional<K extends string>(...names: K[]): Partial<Record<K, never>> {
    const out: Record<string, Value> = {};
    for (const n of names) if (this.#values.has(n)) out[n] = this.#values.get(n);
    return out as Partial<Record<K, never>>;
  }

  #get(name: string, type: 'string' | 'number'): Value {
    const v = this.#values.get(name);
    if (typeof v !== type) throw new ValidationError(name, 'is required');
    return v;
  }
}
