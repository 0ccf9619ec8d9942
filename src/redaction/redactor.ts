/**
 * Redaction of one replay's events, in order, one at a time (docs/REDACTION.md). Each event is parsed, changed as the
 * policy says and serialised again; an event keeps its bytes only when nothing changed and its bytes are exactly the
 * serialisation of what was looked at (no duplicated key, no other spelling of the same data). What must be remembered across events —
 * which node ids are masked, blocked or inside a block, and their selector state — is one integer per node id
 * (`NodeTable`), never the DOM.
 */
import { BLOCK, DROP, flagsOf, KNOWN, MASK, NodeTable, RAW, stateOf } from './node-table.js';
import { maskAll } from './patterns.js';
import type { RedactionPolicy } from './policy.js';
import { SelectorMachine, type ElementLike } from './selectors.js';

// rrweb's event types, incremental sources and serialised node types (@rrweb/types).
const FULL_SNAPSHOT = 2;
const INCREMENTAL = 3;
const CUSTOM = 5;
const PLUGIN = 6;
const MUTATION = 0;
const MOUSE_MOVE = 1;
const VIEWPORT_RESIZE = 4;
const INPUT = 5;
const MEDIA_INTERACTION = 7;
const CANVAS_MUTATION = 9;
const NODE_ELEMENT = 2;
const NODE_TEXT = 3;
const NODE_CDATA = 4;
const NODE_COMMENT = 5;

/** Attributes a block keeps: what sizes it (rrweb's own blocks carry `class`, `rr_width` and `rr_height`). */
const BLOCK_KEEPS = ['class', 'style', 'width', 'height', 'rr_width', 'rr_height', 'type'];
/** Sources whose events on a blocked element say what is inside it: dropped with the block's content. */
const CONTENT_SOURCES = new Set([INPUT, MEDIA_INTERACTION, CANVAS_MUTATION]);
/**
 * String values that are names rrweb reads, not content, in its own snapshot and incremental events: an element's
 * `tagName`, a canvas command's `property` and an argument's `rr_type`, a style declaration's `property`, a console
 * record's `level`. Patterns leave them alone there (and only there: in Meta, Custom and Plugin events they are masked
 * like any other string).
 */
const STRUCTURAL_KEYS = new Set(['tagName', 'property', 'rr_type', 'level']);
/** rrweb's console plugin: its payload's `level` is the console method the player calls. */
const CONSOLE_PLUGIN = 'rrweb/console@1';

/** Which values the pattern walk leaves alone: the value `value` under `key` of the object `holder`. */
type Leave = (holder: Json, key: string, value: unknown) => boolean;
const LEAVE_NOTHING: Leave = () => false;
const LEAVE_STRUCTURAL: Leave = (_holder, key, value) => typeof value === 'string' && STRUCTURAL_KEYS.has(key);

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export class ReplayRedactor {
  readonly #policy: RedactionPolicy;
  readonly #machine: SelectorMachine;
  readonly #nodes = new NodeTable();
  #changed = false;

  constructor(policy: RedactionPolicy) {
    this.#policy = policy;
    this.#machine = new SelectorMachine(policy.compiled.selectors);
  }

  /**
   * The event redacted, undefined to drop it: the same Buffer only when nothing changed and the bytes are exactly
   * `JSON.stringify` of what was parsed (so nothing `JSON.parse` let go of — the first value of a duplicated key,
   * another spelling of a string — is kept unseen); otherwise a new one, serialised from the redacted event.
   */
  redact(event: Buffer): Buffer | undefined {
    const parsed: unknown = JSON.parse(event.toString('utf8'));
    this.#changed = false;
    let keep = true;
    if (isObject(parsed)) {
      if (parsed.type === FULL_SNAPSHOT && isObject(parsed.data)) this.#fullSnapshot(parsed.data);
      else if (parsed.type === INCREMENTAL && isObject(parsed.data)) keep = this.#incremental(parsed.data);
    }
    if (!keep) return undefined;
    const out = Buffer.from(JSON.stringify(this.#maskEvent(parsed)), 'utf8');
    return !this.#changed && out.equals(event) ? event : out;
  }

  /** The patterns over an event, leaving alone only the names rrweb reads in it. */
  #maskEvent(parsed: unknown): unknown {
    if (!isObject(parsed)) return this.#patterns(parsed, LEAVE_NOTHING, false);
    const data = parsed.data;
    if ((parsed.type === CUSTOM || parsed.type === PLUGIN) && isObject(data)) {
      // The payload is the app's own data (a plugin's, for plugin events): every string, key and number in it.
      const plugin = parsed.type === PLUGIN;
      const consoleRecord =
        plugin && data.plugin === CONSOLE_PLUGIN && isObject(data.payload) ? data.payload : undefined;
      if (data.payload !== undefined) {
        data.payload = this.#patterns(
          data.payload,
          (holder, key, value) => holder === consoleRecord && key === 'level' && typeof value === 'string',
          true,
        );
      }
      return this.#patterns(
        parsed,
        (holder, key, value) =>
          holder === data && (key === 'payload' || (plugin && key === 'plugin' && typeof value === 'string')),
        false,
      );
    }
    return this.#patterns(
      parsed,
      parsed.type === FULL_SNAPSHOT || parsed.type === INCREMENTAL ? LEAVE_STRUCTURAL : LEAVE_NOTHING,
      false,
    );
  }

  #fullSnapshot(data: Json): void {
    this.#nodes.clear();
    this.#tree(data.node, 0, 0);
  }

  /**
   * Takes a serialised node and its subtree under a parent with `parentFlags` and selector state `parentState`:
   * applies the selectors' masks and blocks and the dropped attributes, and records every id. Iterative: a document
   * can be deep.
   */
  #tree(root: unknown, parentFlags: number, parentState: number): void {
    const stack: Array<{ node: unknown; flags: number; state: number }> = [
      { node: root, flags: parentFlags, state: parentState },
    ];
    while (stack.length > 0) {
      const { node, flags: inherited, state } = stack.pop()!;
      if (!isObject(node)) continue;
      if (inherited & (DROP | BLOCK)) {
        this.#record(node.id, DROP, 0);
        this.#pushChildren(stack, node, DROP, 0);
        continue;
      }
      const mask = inherited & MASK;
      if (node.type === NODE_ELEMENT) {
        const step = this.#machine.empty
          ? { state: 0, actions: 0 }
          : this.#machine.step(state, node as unknown as ElementLike);
        if (step.actions & BLOCK) {
          this.#block(node);
          this.#record(node.id, BLOCK, 0);
          continue;
        }
        const tag = typeof node.tagName === 'string' ? node.tagName.toLowerCase() : '';
        const flags = mask | (step.actions & MASK) | (tag === 'style' || tag === 'script' ? RAW : 0);
        if (isObject(node.attributes)) this.#attributes(node.attributes, flags);
        this.#record(node.id, flags, step.state);
        this.#pushChildren(stack, node, flags, step.state);
      } else if (node.type === NODE_TEXT || node.type === NODE_CDATA || node.type === NODE_COMMENT) {
        const masked = mask !== 0 && (inherited & RAW) === 0 && node.isStyle !== true;
        if (masked && typeof node.textContent === 'string') this.#set(node, 'textContent', maskAll(node.textContent));
        this.#record(node.id, masked ? MASK : 0, 0);
      } else {
        // A document (an iframe's, a shadow root's) or a doctype: passes its parent's state on.
        this.#record(node.id, mask, state);
        this.#pushChildren(stack, node, mask, state);
      }
    }
  }

  #pushChildren(
    stack: Array<{ node: unknown; flags: number; state: number }>,
    node: Json,
    flags: number,
    state: number,
  ): void {
    if (!Array.isArray(node.childNodes)) return;
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push({ node: node.childNodes[i], flags, state });
  }

  /** Replaces an element by a same-size block: its sizing attributes kept (`rr-block` added), its children dropped. */
  #block(node: Json): void {
    const attributes = isObject(node.attributes) ? node.attributes : {};
    const kept: Json = {};
    for (const name of BLOCK_KEEPS) if (attributes[name] !== undefined) kept[name] = attributes[name];
    kept.class = typeof kept.class === 'string' && kept.class.trim() !== '' ? `${kept.class} rr-block` : 'rr-block';
    node.attributes = kept;
    const dropped: unknown[] = Array.isArray(node.childNodes) ? [...node.childNodes] : [];
    node.childNodes = [];
    this.#changed = true;
    // Every id inside the block is remembered, so that later events about them are dropped too.
    while (dropped.length > 0) {
      const n = dropped.pop();
      if (!isObject(n)) continue;
      this.#record(n.id, DROP, 0);
      if (Array.isArray(n.childNodes)) dropped.push(...n.childNodes);
    }
  }

  /** An element's attributes (a snapshot's, an added node's or a mutation's): dropped names, masked values. */
  #attributes(attributes: Json, flags: number): void {
    const { dropExact, dropPrefixes } = this.#policy.compiled;
    for (const name of Object.keys(attributes)) {
      const lower = name.toLowerCase();
      if (dropExact.has(lower) || dropPrefixes.some((p) => lower.startsWith(p))) {
        delete attributes[name];
        this.#changed = true;
      } else if (flags & MASK && lower === 'value' && typeof attributes[name] === 'string') {
        this.#set(attributes, name, maskAll(attributes[name]));
      }
    }
  }

  /** Sets `o[key]` to `value`, noting a change when it is one. */
  #set(o: Json, key: string, value: unknown): void {
    if (o[key] !== value) {
      o[key] = value;
      this.#changed = true;
    }
  }

  /** An incremental snapshot: false when the whole event is about what a block hides. */
  #incremental(data: Json): boolean {
    const source = data.source;
    if (source === MUTATION) {
      this.#mutation(data);
      return true;
    }
    if (source === MOUSE_MOVE || source === VIEWPORT_RESIZE) return true;
    const flags = flagsOf(this.#nodes.get(data.id));
    if (flags & DROP) return false;
    if (flags & BLOCK && CONTENT_SOURCES.has(source as number)) return false;
    if (source === INPUT && flags & MASK && typeof data.text === 'string') this.#set(data, 'text', maskAll(data.text));
    return true;
  }

  #mutation(data: Json): void {
    if (Array.isArray(data.removes)) {
      data.removes = this.#filter(data.removes, (r) => !(flagsOf(this.#nodes.get(r.id)) & DROP));
    }
    if (Array.isArray(data.adds)) this.#adds(data);
    if (Array.isArray(data.texts)) {
      data.texts = this.#filter(data.texts, (t) => {
        const flags = flagsOf(this.#nodes.get(t.id));
        if (flags & DROP) return false;
        if (flags & MASK && typeof t.value === 'string') this.#set(t, 'value', maskAll(t.value));
        return true;
      });
    }
    if (Array.isArray(data.attributes)) {
      data.attributes = this.#filter(data.attributes, (a) => {
        const flags = flagsOf(this.#nodes.get(a.id));
        if (flags & DROP) return false;
        if (!isObject(a.attributes)) return true;
        if (flags & BLOCK) {
          for (const name of Object.keys(a.attributes)) {
            if (!BLOCK_KEEPS.includes(name.toLowerCase())) {
              delete a.attributes[name];
              this.#changed = true;
            }
          }
        } else this.#attributes(a.attributes, flags);
        return true;
      });
    }
  }

  /** Records what the policy says about a node id; adds waiting for this id as their parent become ready. */
  #record(id: unknown, flags: number, state: number): void {
    this.#nodes.set(id, flags, state);
    const waiting = this.#waiting;
    if (waiting !== undefined && waiting.size > 0 && typeof id === 'number') {
      const children = waiting.get(id);
      if (children !== undefined) {
        waiting.delete(id);
        this.#ready.push(...children);
      }
    }
  }

  /** Adds of the mutation being taken whose parent id is not known yet, by parent id. */
  #waiting: Map<unknown, Json[]> | undefined;
  /** Adds whose parent became known while other adds were taken. */
  #ready: Json[] = [];

  /**
   * Added nodes, each under its parent's flags and state. rrweb lists a parent before the nodes added under it, but a
   * list out of that order is taken too, in one pass: an add whose parent is not known yet waits for that id to be
   * recorded; those whose parent never appears are taken as children of the document's root (masked only by
   * patterns).
   */
  #adds(data: Json): void {
    const adds = (data.adds as unknown[]).filter(isObject);
    const dropped = new Set<Json>();
    const waiting = new Map<unknown, Json[]>();
    this.#waiting = waiting;
    this.#ready = [];
    const take = (add: Json, parent: number): void => {
      this.#add(add, parent, dropped);
      for (let k = 0; k < this.#ready.length; k++) {
        const next = this.#ready[k]!;
        this.#add(next, this.#nodes.get(next.parentId), dropped);
      }
      this.#ready.length = 0;
    };
    try {
      for (const add of adds) {
        const parent = this.#nodes.get(add.parentId);
        if (parent !== 0) take(add, parent);
        else {
          const list = waiting.get(add.parentId);
          if (list === undefined) waiting.set(add.parentId, [add]);
          else list.push(add);
        }
      }
      // Parents never seen: their adds go under the root, in the order listed, and their own children follow them.
      for (let first = waiting.entries().next(); !first.done; first = waiting.entries().next()) {
        waiting.delete(first.value[0]);
        for (const add of first.value[1]) take(add, KNOWN);
      }
    } finally {
      this.#waiting = undefined;
    }
    if (dropped.size > 0) data.adds = (data.adds as unknown[]).filter((a) => !dropped.has(a as Json));
  }

  #add(add: Json, parent: number, dropped: Set<Json>): void {
    const flags = flagsOf(parent);
    if (flags & (DROP | BLOCK)) {
      dropped.add(add);
      this.#changed = true;
      this.#tree(add.node, DROP, 0);
      return;
    }
    this.#tree(add.node, flags & (MASK | RAW), stateOf(parent));
  }

  #filter(list: unknown[], keep: (item: Json) => boolean): unknown[] {
    const out = list.filter((item) => !isObject(item) || keep(item));
    if (out.length !== list.length) this.#changed = true;
    return out;
  }

  /**
   * Every string value under `root` through the patterns, in place, but those `leave` names (and what is under
   * them); attribute names are left alone. In a `payload` (a custom or plugin event's), object keys are masked too,
   * and integers a pattern masks (`card`, `phone`) become strings of `*`. Iterative.
   */
  #patterns(root: unknown, leave: Leave, payload: boolean): unknown {
    const patterns = this.#policy.compiled.patterns;
    if (patterns.empty) return root;
    /** The value masked (itself when nothing matched); objects are pushed to be walked. */
    const mask = (item: unknown): unknown => {
      if (typeof item === 'string') {
        const masked = patterns.mask(item);
        if (masked !== item) this.#changed = true;
        return masked;
      }
      if (typeof item === 'number' && payload) {
        const masked = patterns.maskNumber(item);
        if (masked === undefined) return item;
        this.#changed = true;
        return masked;
      }
      if (item !== null && typeof item === 'object') stack.push(item);
      return item;
    };
    const stack: unknown[] = [];
    const top = mask(root);
    while (stack.length > 0) {
      const v = stack.pop();
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const item: unknown = v[i];
          const masked = mask(item);
          if (masked !== item) v[i] = masked;
        }
      } else if (isObject(v)) {
        for (const key of Object.keys(v)) {
          const item = v[key];
          if (leave(v, key, item)) continue;
          let name = key;
          if (payload) {
            const masked = patterns.mask(key);
            if (masked !== key) {
              delete v[key];
              name = masked;
              this.#changed = true;
            }
          }
          const masked = mask(item);
          if (masked !== item || name !== key) v[name] = masked;
        }
      }
    }
    return top;
  }
}
