/**
 * A redaction policy: what an export masks, blocks and drops (docs/REDACTION.md). Given as JSON (the CLI's
 * `--redact <policy.json>`) or as an object (the library's `redact` option), checked and compiled once per run.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { RedactionPolicyError } from './errors.js';
import { PatternSet, type PatternSpec } from './patterns.js';
import { parseSelectors, SelectorMachine } from './selectors.js';
import { BLOCK, MASK } from './node-table.js';

/** The policy as written (JSON). Every field is optional; an empty policy changes nothing but still re-serialises. */
export interface RedactionPolicySpec {
  /** Selectors whose elements' text (and their descendants') and input values are masked. */
  mask?: string[];
  /** Selectors whose elements are replaced by a same-size block (their content and descendants dropped). */
  block?: string[];
  /** Attribute names removed from every element (`title`, `data-user-*`: a trailing `*` matches any rest). */
  dropAttributes?: string[];
  /** Masked wherever they occur, plain, URL-encoded or base64: `email`, `card`, `phone`, `{ "regex": "…", "flags": "i" }`. */
  patterns?: PatternSpec[];
}

/** Raised when the built-ins or the meaning of a policy change: part of the digest, so archives notice. */
export const REDACTION_VERSION = 2;

/** A checked, compiled policy. Share it between runs freely: the per-replay state lives in each `ReplayRedactor`. */
export interface RedactionPolicy {
  /** Hex SHA-256 of the policy's canonical JSON with `REDACTION_VERSION` (what the manifest records as `redaction`). */
  readonly digest: string;
  readonly spec: Readonly<Required<RedactionPolicySpec>>;
  /** Compiled parts (used by `ReplayRedactor`). */
  readonly compiled: {
    readonly selectors: ReturnType<typeof parseSelectors>;
    readonly patterns: PatternSet;
    readonly dropExact: ReadonlySet<string>;
    readonly dropPrefixes: readonly string[];
  };
}

const FIELDS = ['mask', 'block', 'dropAttributes', 'patterns'] as const;

function stringList(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new RedactionPolicyError(`${field} must be an array of strings`);
  return value.map((v, i) => {
    if (typeof v !== 'string' || v.trim() === '')
      throw new RedactionPolicyError(`${field}[${i}] must be a non-empty string`);
    return v;
  });
}

/** JSON with object keys sorted, no white space: the form the digest is taken of. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Checks and compiles a policy; `RedactionPolicyError` (a `ConfigError`, CLI exit 2) says what is wrong. */
export function compileRedactionPolicy(input: RedactionPolicySpec | RedactionPolicy): RedactionPolicy {
  if (isCompiled(input)) return input;
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw new RedactionPolicyError('must be a JSON object');
  const unknown = Object.keys(input).find((k) => !(FIELDS as readonly string[]).includes(k));
  if (unknown !== undefined)
    throw new RedactionPolicyError(`unknown field ${JSON.stringify(unknown)} (fields: ${FIELDS.join(', ')})`);
  const raw = input as Record<string, unknown>;
  const mask = stringList(raw.mask, 'mask');
  const block = stringList(raw.block, 'block');
  const dropAttributes = stringList(raw.dropAttributes, 'dropAttributes').map((a) => a.trim().toLowerCase());
  if (raw.patterns !== undefined && !Array.isArray(raw.patterns))
    throw new RedactionPolicyError('patterns must be an array');
  const patternSpecs = (raw.patterns ?? []) as unknown[];
  const patterns = new PatternSet(patternSpecs);
  const selectors = [
    ...mask.flatMap((s) => parseSelectors(s, MASK)),
    ...block.flatMap((s) => parseSelectors(s, BLOCK)),
  ];
  // A throw-away machine checks the limits now rather than at the first replay.
  void new SelectorMachine(selectors);
  const spec = { mask, block, dropAttributes, patterns: patternSpecs as PatternSpec[] };
  const digest = createHash('sha256')
    .update(canonical({ version: REDACTION_VERSION, ...spec }))
    .digest('hex');
  return Object.freeze({
    digest,
    spec: Object.freeze(spec),
    compiled: Object.freeze({
      selectors,
      patterns,
      dropExact: new Set(dropAttributes.filter((a) => !a.endsWith('*'))),
      dropPrefixes: dropAttributes.filter((a) => a.endsWith('*')).map((a) => a.slice(0, -1)),
    }),
  });
}

function isCompiled(input: unknown): input is RedactionPolicy {
  return (
    input !== null &&
    typeof input === 'object' &&
    typeof (input as RedactionPolicy).digest === 'string' &&
    (input as RedactionPolicy).compiled !== undefined
  );
}

/** Reads and compiles a policy file (JSON). */
export async function loadRedactionPolicy(path: string): Promise<RedactionPolicy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new RedactionPolicyError(`cannot read ${JSON.stringify(path)}${code ? ` (${code})` : ''}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new RedactionPolicyError(
      `${JSON.stringify(path)} is not JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return compileRedactionPolicy(parsed as RedactionPolicySpec);
}
