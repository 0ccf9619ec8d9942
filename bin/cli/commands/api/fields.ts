/**
 * `api -f/--raw-field` and `-F/--field`, read as `gh api` reads them: `-f key=value` is a string; `-F key=value` is
 * typed (`true`, `false`, `null`, numbers, `@file` for a file's text, `@-` for stdin's); a key may name a place in a
 * structure (`key[]=v` appends to an array, `key[sub]=v` sets a member, `a[b][]=v` both). Then each field goes where
 * the operation takes it: a parameter of the operation (checked as `--param`), else the query of a GET (or of a call
 * with `--input`), else the body (building it, or beside one given).
 */
import { knownNames, type Operation } from '../../../../src/clients/index.js';
import { ConfigError } from '../../../../src/index.js';

type FieldValue = string | number | boolean | null | FieldValue[] | { [k: string]: FieldValue };

/** One field as given: its top-level name and its value (a structure for a bracketed key). */
export interface Field {
  readonly name: string;
  readonly value: FieldValue;
  /** The flag it came from, for messages (`-f name`, `-F name[]`). */
  readonly flag: string;
}

/** Reads the text of `@path` (`@-`: stdin). */
export type ReadText = (path: string) => Promise<string>;

const KEY = /^([^[\]=]+)((?:\[[^[\]]*\])*)$/;

function typed(text: string): FieldValue {
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'null') return null;
  if (/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(text) && Number.isFinite(Number(text))) return Number(text);
  return text;
}

function split(flag: string, given: string): { name: string; path: string[]; text: string } {
  const eq = given.indexOf('=');
  const m = eq > 0 ? KEY.exec(given.slice(0, eq)) : null;
  if (!m)
    throw new ConfigError(
      `${flag} must be key=value, key[]=value or key[sub]=value (got ${JSON.stringify(given.slice(0, 80))})`,
    );
  const path = [...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((p) => p[1]!);
  return { name: m[1]!, path, text: given.slice(eq + 1) };
}

/** Sets `value` at `path` below `into` (`''`: a new array element); refuses a place of another shape. */
function place(into: FieldValue | undefined, path: readonly string[], value: FieldValue, where: string): FieldValue {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (head === '') {
    const list = into === undefined ? [] : into;
    if (!Array.isArray(list)) throw new ConfigError(`${where}: this field is an object elsewhere, not an array`);
    return [...list, place(undefined, rest, value, where)];
  }
  const obj = into === undefined ? {} : into;
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
    throw new ConfigError(
      `${where}: this field is ${Array.isArray(obj) ? 'an array' : 'a value'} elsewhere, not an object`,
    );
  return { ...obj, [head]: place(obj[head], rest, value, where) };
}

/**
 * The fields of `-f` (`raw`) and `-F` (`typed`) flags, in the order given: a plain key each time it is given (a key
 * twice is two fields), the bracketed keys of one name merged into one structure.
 */
export async function readFields(
  given: ReadonlyArray<{ flag: '-f' | '-F'; text: string }>,
  readText: ReadText,
): Promise<Field[]> {
  const out: Field[] = [];
  const structured = new Map<string, number>();
  for (const { flag, text } of given) {
    const { name, path, text: raw } = split(flag, text);
    const value = flag === '-f' ? raw : raw.startsWith('@') ? await readText(raw.slice(1)) : typed(raw);
    const where = `${flag} ${name}`;
    if (path.length === 0) {
      if (structured.has(name)) throw new ConfigError(`${where}: given both as a value and as ${name}[…]`);
      out.push({ name, value, flag: where });
      continue;
    }
    const at = structured.get(name);
    if (at === undefined && out.some((f) => f.name === name))
      throw new ConfigError(`${where}: given both as a value and as ${name}[…]`);
    if (at === undefined) {
      structured.set(name, out.length);
      out.push({ name, value: place(undefined, path, value, where), flag: where });
    } else out[at] = { ...out[at]!, value: place(out[at]!.value, path, value, where) };
  }
  return out;
}

/** A field's value as a parameter's text (what `--param name=text` would say). */
function paramText(f: Field): string {
  if (typeof f.value === 'string') return f.value;
  if (f.value === null) throw new ConfigError(`${f.flag}: null is not a value of a parameter`);
  return typeof f.value === 'object' ? JSON.stringify(f.value) : String(f.value);
}

/** A field's value as query values: an array is the name repeated, an object its JSON, null an empty value. */
function queryTexts(v: FieldValue): string[] {
  if (Array.isArray(v)) return v.flatMap((e) => (Array.isArray(e) ? [JSON.stringify(e)] : queryTexts(e)));
  if (v === null) return [''];
  return [typeof v === 'object' ? JSON.stringify(v) : String(v)];
}

/** Where the fields of one call go. */
export interface RoutedFields {
  /** Parameters of the operation, as `--param` pairs (checked with them). */
  params: Array<[string, string]>;
  query: Array<[string, string]>;
  /** A JSON body built from the fields (the operation takes an object body and none was given). */
  body?: Record<string, FieldValue>;
  /** Fields beside a body of the client's making (a form, a given JSON body), unchecked. */
  extraFields: Array<[string, unknown]>;
  /** Names neither the operation's parameters nor its body schema list (warned about: sent as given). */
  unchecked: string[];
}

function bodyOf(fields: readonly Field[]): Record<string, FieldValue> {
  const body: Record<string, FieldValue> = {};
  for (const f of fields) {
    if (Object.hasOwn(body, f.name))
      throw new ConfigError(`${f.flag}: given twice for one JSON body; for an array give ${f.name}[]=value`);
    body[f.name] = f.value;
  }
  return body;
}

/**
 * Routes the fields of a call to `op`: its parameters first; then the query for a GET, or with `--input` (the body
 * is the bytes given); else the body: an object body built from them when the operation takes one and no `--body` was
 * given, else fields beside the client's body.
 */
export function routeFields(
  op: Operation,
  fields: readonly Field[],
  o: { bodyGiven: boolean; input: boolean },
): RoutedFields {
  const names = knownNames(op.params);
  const schemaFields = new Set(op.bodySchema?.shape === 'object' ? op.bodySchema.fields.map((b) => b.name) : []);
  const out: RoutedFields = { params: [], query: [], extraFields: [], unchecked: [] };
  const rest = fields.filter((f) => {
    if (!names.has(f.name)) return true;
    out.params.push([f.name, paramText(f)]);
    return false;
  });
  if (rest.length === 0) return out;
  if (op.method === 'GET' || o.input) {
    for (const f of rest) for (const t of queryTexts(f.value)) out.query.push([f.name, t]);
    out.unchecked.push(...rest.map((f) => f.flag));
    return out;
  }
  out.unchecked.push(...rest.filter((f) => !schemaFields.has(f.name)).map((f) => f.flag));
  if (op.bodySchema?.shape === 'object' && !o.bodyGiven) out.body = bodyOf(rest);
  else out.extraFields.push(...rest.map((f): [string, unknown] => [f.name, f.value]));
  return out;
}

/** The names a call's `--query k=v` flags give (strings, in order; a name twice is sent twice). */
export function queryPairs(given: readonly string[]): Array<[string, string]> {
  return given.map((p) => {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--query must be name=value (got ${JSON.stringify(p.slice(0, 80))})`);
    return [p.slice(0, eq), p.slice(eq + 1)];
  });
}

/** `-H 'Name: value'` flags as headers; a name given twice is refused (a header is sent once). */
export function headersOf(given: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of given) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new ConfigError(`-H must be 'Name: value' (got ${JSON.stringify(h.slice(0, 80))})`);
    const name = h.slice(0, colon).trim();
    if (Object.keys(out).some((k) => k.toLowerCase() === name.toLowerCase()))
      throw new ConfigError(`-H ${name}: given twice`);
    out[name] = h.slice(colon + 1).trim();
  }
  return out;
}
