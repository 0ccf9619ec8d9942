/**
 * What the policy says about each rrweb node id of one replay, one 32-bit integer per id: its flags (below) and its
 * selector state (`SelectorMachine`) above them. Ids are rrweb's mirror ids, small positive integers counted up from
 * 1: those below `DIRECT_IDS` are kept in a typed array indexed by id (4 bytes each, grown by doubling), others in a
 * map. A full snapshot describes the whole document again and clears the table.
 */

/** Text and input values below this node are masked. */
export const MASK = 1;
/** This element was replaced by a block. */
export const BLOCK = 2;
/** This node is inside a block: it is not in the output, and neither is anything about it. */
export const DROP = 4;
/** A `style` or `script` element: its text is code, not content (not masked by selectors; patterns still apply). */
export const RAW = 8;
/** The id is known (seen in a snapshot or an added node). */
export const KNOWN = 16;
const FLAG_BITS = 5;
const FLAG_MASK = (1 << FLAG_BITS) - 1;
/** Ids below this live in the typed array (16 MiB at most). */
const DIRECT_IDS = 1 << 22;

export class NodeTable {
  #direct = new Int32Array(1024);
  readonly #other = new Map<number, number>();

  clear(): void {
    this.#direct.fill(0);
    this.#other.clear();
  }

  /** The value of `id` (flags | state << FLAG_BITS), 0 when the id is unknown or not an id. */
  get(id: unknown): number {
    if (typeof id !== 'number' || !Number.isInteger(id)) return 0;
    if (id >= 0 && id < this.#direct.length) return this.#direct[id]!;
    if (id >= 0 && id < DIRECT_IDS) return 0;
    return this.#other.get(id) ?? 0;
  }

  set(id: unknown, flags: number, state: number): void {
    if (typeof id !== 'number' || !Number.isInteger(id)) return;
    const value = (flags & FLAG_MASK) | KNOWN | (state << FLAG_BITS);
    if (id >= 0 && id < DIRECT_IDS) {
      if (id >= this.#direct.length) {
        let size = this.#direct.length;
        while (size <= id) size *= 2;
        const grown = new Int32Array(Math.min(size, DIRECT_IDS));
        grown.set(this.#direct);
        this.#direct = grown;
      }
      this.#direct[id] = value;
    } else this.#other.set(id, value);
  }
}

export function flagsOf(value: number): number {
  return value & FLAG_MASK;
}

export function stateOf(value: number): number {
  return value >>> FLAG_BITS;
}
