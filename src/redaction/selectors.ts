/**
 * CSS selectors over rrweb's serialised nodes, matched as nodes stream past with no DOM kept.
 *
 * Parsing is css-what's (the parser under cheerio and css-select); matching is ours, because a matcher over a tree
 * (css-select's adapter) walks parents and so needs the whole DOM in memory, while a redacting export sees a node
 * once — in a full snapshot, or in a mutation that adds it under a parent id — and keeps per node id one integer.
 *
 * The subset: type (`input`), universal (`*`), `#id`, `.class`, attribute tests (`[a]`, `[a=v]`, `[a~=v]`, `[a|=v]`,
 * `[a^=v]`, `[a$=v]`, `[a*=v]`, `[a!=v]`, with ` i` for case-insensitive values), the descendant (` `) and child (`>`)
 * combinators, and lists (`a, b`). Anything else (pseudo-classes, sibling combinators, namespaces) is refused when the
 * policy is loaded: a selector that cannot hold at the moment a node is added (`:hover`, `:nth-child`, `+`) would
 * leave text unmasked without saying so.
 *
 * Matching is the subset construction of the selectors' automaton: a state is the set of (selector, position) pairs
 * still open below a node — open for every descendant (` `) or for its children only (`>`) — interned to a small
 * number, so a node's state is one integer whatever the number of selectors. This is exact for these combinators.
 */
import { AttributeAction, parse, SelectorType, type Selector } from 'css-what';
import { RedactionPolicyError } from './errors.js';
import { ReplayExportError } from '../errors.js';

/** One attribute test of a compound selector (`#id` and `.class` are attribute tests on `id` and `class`). */
interface AttributeTest {
  readonly name: string;
  readonly action: AttributeAction;
  readonly value: string;
  readonly ignoreCase: boolean;
}

/** A compound selector: an optional type and attribute tests, all of which must hold. */
interface Compound {
  readonly tag: string | undefined;
  readonly tests: readonly AttributeTest[];
}

/** A complex selector: compounds from left to right, `child[i]` telling whether compound i+1 is a child of i. */
interface Complex {
  readonly compounds: readonly Compound[];
  readonly child: readonly boolean[];
  /** What a node matched by it gets (a bit set the caller defines). */
  readonly action: number;
}

/** What a selector is matched against: an rrweb element node's tag and attributes. */
export interface ElementLike {
  readonly tagName: unknown;
  readonly attributes: unknown;
}

const SUPPORTED_ACTIONS = new Set<string>(Object.values(AttributeAction));

function compoundOf(tokens: readonly Selector[], source: string): Compound {
  let tag: string | undefined;
  const tests: AttributeTest[] = [];
  for (const t of tokens) {
    if (t.type === SelectorType.Tag) {
      if (t.namespace !== null) throw unsupported(source, 'namespaces');
      tag = t.name.toLowerCase();
    } else if (t.type === SelectorType.Universal) {
      if (t.namespace !== null) throw unsupported(source, 'namespaces');
    } else if (t.type === SelectorType.Attribute) {
      if (t.namespace !== null) throw unsupported(source, 'namespaces');
      if (!SUPPORTED_ACTIONS.has(t.action)) throw unsupported(source, `the attribute operator ${t.action}`);
      tests.push({
        name: t.name.toLowerCase(),
        action: t.action,
        value: t.ignoreCase === true ? t.value.toLowerCase() : t.value,
        ignoreCase: t.ignoreCase === true,
      });
    } else if (t.type === SelectorType.Pseudo || t.type === SelectorType.PseudoElement) {
      throw unsupported(source, `:${t.name}`);
    } else {
      throw unsupported(source, `the ${t.type} combinator`);
    }
  }
  return { tag, tests };
}

function unsupported(source: string, what: string): RedactionPolicyError {
  return new RedactionPolicyError(
    `selector ${JSON.stringify(source)}: ${what} is not supported (supported: type, *, #id, .class, [attribute] tests, descendant and > combinators, lists)`,
  );
}

/** Parses a selector list into complex selectors taking `action`; refuses what the subset does not hold. */
export function parseSelectors(source: string, action: number): Complex[] {
  let lists: Selector[][];
  try {
    lists = parse(source);
  } catch (err) {
    throw new RedactionPolicyError(
      `selector ${JSON.stringify(source)} does not parse: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const out: Complex[] = [];
  for (const tokens of lists) {
    const compounds: Compound[] = [];
    const child: boolean[] = [];
    let current: Selector[] = [];
    for (const t of tokens) {
      if (t.type === SelectorType.Descendant || t.type === SelectorType.Child) {
        if (current.length === 0) throw unsupported(source, 'a combinator without a selector before it');
        compounds.push(compoundOf(current, source));
        child.push(t.type === SelectorType.Child);
        current = [];
      } else current.push(t);
    }
    if (current.length === 0)
      throw new RedactionPolicyError(`selector ${JSON.stringify(source)} ends without a selector`);
    compounds.push(compoundOf(current, source));
    out.push({ compounds, child, action });
  }
  return out;
}

function attributeValue(attributes: unknown, name: string): string | undefined {
  if (attributes === null || typeof attributes !== 'object') return undefined;
  const value = (attributes as Record<string, unknown>)[name];
  if (value === undefined || value === null || value === false) return undefined;
  if (value === true) return '';
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

function testHolds(test: AttributeTest, attributes: unknown): boolean {
  const raw = attributeValue(attributes, test.name);
  if (test.action === AttributeAction.Exists) return raw !== undefined;
  if (raw === undefined) return test.action === AttributeAction.Not;
  const v = test.ignoreCase ? raw.toLowerCase() : raw;
  const want = test.value;
  switch (test.action) {
    case AttributeAction.Equals:
      return v === want;
    case AttributeAction.Not:
      return v !== want;
    case AttributeAction.Element:
      return want !== '' && !/\s/.test(want) && v.split(/[ \t\n\f\r]+/).includes(want);
    case AttributeAction.Hyphen:
      return v === want || v.startsWith(`${want}-`);
    case AttributeAction.Start:
      return want !== '' && v.startsWith(want);
    case AttributeAction.End:
      return want !== '' && v.endsWith(want);
    case AttributeAction.Any:
      return want !== '' && v.includes(want);
    default:
      return false;
  }
}

function compoundHolds(c: Compound, el: ElementLike): boolean {
  if (c.tag !== undefined && (typeof el.tagName !== 'string' || el.tagName.toLowerCase() !== c.tag)) return false;
  for (const t of c.tests) if (!testHolds(t, el.attributes)) return false;
  return true;
}

/**
 * The selectors of a policy as one automaton. State 0 is the root's (nothing open). `step` gives an element's state
 * (what its children inherit) and the actions of the selectors that match it.
 */
export class SelectorMachine {
  readonly #selectors: readonly Complex[];
  /** Per state: its pairs, each `(selector * 65536 + position) * 2 + childOnly`, ascending. */
  readonly #states: Int32Array[] = [new Int32Array(0)];
  readonly #index = new Map<string, number>([['', 0]]);
  #scratch: number[] = [];

  constructor(selectors: readonly Complex[]) {
    if (selectors.length >= 16384) throw new RedactionPolicyError('a policy holds at most 16383 selectors');
    for (const s of selectors)
      if (s.compounds.length >= 65536) throw new RedactionPolicyError('a selector holds at most 65535 compounds');
    this.#selectors = selectors;
  }

  get empty(): boolean {
    return this.#selectors.length === 0;
  }

  /** Number of states made so far (each a few integers). */
  get stateCount(): number {
    return this.#states.length;
  }

  /** The element's state and the OR of the actions of the selectors it matches, from its parent's state. */
  step(parentState: number, el: ElementLike): { state: number; actions: number } {
    const parent = this.#states[parentState] ?? this.#states[0]!;
    const next = this.#scratch;
    next.length = 0;
    let actions = 0;
    const advance = (sel: number, pos: number): void => {
      const s = this.#selectors[sel]!;
      if (!compoundHolds(s.compounds[pos]!, el)) return;
      if (pos === s.compounds.length - 1) actions |= s.action;
      else next.push((sel * 65536 + pos + 1) * 2 + (s.child[pos] ? 1 : 0));
    };
    for (const pair of parent) {
      const childOnly = pair & 1;
      // Open for every descendant: stays open below this element too.
      if (childOnly === 0) next.push(pair);
      const code = pair >>> 1;
      advance(code >>> 16, code & 0xffff);
    }
    for (let sel = 0; sel < this.#selectors.length; sel++) advance(sel, 0);
    return { state: this.#intern(next), actions };
  }

  #intern(pairs: number[]): number {
    if (pairs.length === 0) return 0;
    pairs.sort((a, b) => a - b);
    let w = 1;
    for (let r = 1; r < pairs.length; r++) if (pairs[r] !== pairs[w - 1]) pairs[w++] = pairs[r]!;
    pairs.length = w;
    const key = pairs.join(',');
    const known = this.#index.get(key);
    if (known !== undefined) return known;
    const id = this.#states.length;
    // A node's state shares its 32-bit slot with its flags (node-table.ts).
    if (id >= 1 << 26)
      throw new ReplayExportError('the selectors reached 2^26 distinct states in one replay', {
        code: 'REDACTION_TOO_COMPLEX',
        category: 'data',
      });
    this.#states.push(Int32Array.from(pairs));
    this.#index.set(key, id);
    return id;
  }
}
