import { InternalError } from '../src/errors.js';

/** Size of the byte chunks ids are stored in (an id longer than this gets a chunk of its own). */
const CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * A set of replay ids with one small number per id, in compact memory: the ids' characters live in byte chunks
 * (one byte per character when every character is below U+0100, as listed ids are; two otherwise, so any string —
 * lone surrogates included — is kept exactly), found through an open-addressing hash table of indexes. About the
 * ids' length plus 14–30 bytes per id, against ~110 bytes per id for a `Map<string, number>` — what lets a run resume
 * an archive of a million replays in bounded memory. Chunks are never copied or grown: memory rises in steps.
 */
export class IdTable {
  #chunks: Buffer[] = [];
  /** Free bytes left in the last chunk. */
  #free = 0;
  /** Per id: its chunk, start in the chunk, length in bytes with the two-byte flag in the top bit, value. */
  #chunk = new Uint16Array(1024);
  #start = new Uint32Array(1024);
  #length = new Uint32Array(1024);
  #value = new Uint8Array(1024);
  #count = 0;
  /** Slots hold index + 1 (0: empty); the table is at most half full. */
  #slots = new Int32Array(2048);
  #scratch = Buffer.allocUnsafe(256);

  get size(): number {
    return this.#count;
  }

  has(id: string): boolean {
    return this.#find(id) >= 0;
  }

  /** The value stored for `id`, or `undefined`. */
  get(id: string): number | undefined {
    const i = this.#find(id);
    return i >= 0 ? this.#value[i] : undefined;
  }

  /** Stores `value` (0–255) for `id`; returns the id's index (stable for the table's life). */
  set(id: string, value: number): number {
    const n = this.#encode(id);
    const mask = this.#slots.length - 1;
    let slot = hash(this.#scratch, n) & mask;
    for (;;) {
      const at = this.#slots[slot]!;
      if (at === 0) break;
      if (this.#equals(at - 1, n)) {
        this.#value[at - 1] = value;
        return at - 1;
      }
      slot = (slot + 1) & mask;
    }
    const index = this.#append(n, value);
    this.#slots[slot] = index + 1;
    if (this.#count * 2 > this.#slots.length) this.#rehash();
    return index;
  }

  /** The index of `id` (as `set` returned it), or -1. */
  indexOf(id: string): number {
    return this.#find(id);
  }

  #find(id: string): number {
    const n = this.#encode(id);
    const mask = this.#slots.length - 1;
    let slot = hash(this.#scratch, n) & mask;
    for (;;) {
      const at = this.#slots[slot]!;
      if (at === 0) return -1;
      if (this.#equals(at - 1, n)) return at - 1;
      slot = (slot + 1) & mask;
    }
  }

  /** Writes `id` into the scratch buffer; returns its byte length with the two-byte flag in the top bit. */
  #encode(id: string): number {
    let wide = false;
    for (let i = 0; i < id.length; i++) {
      if (id.charCodeAt(i) > 0xff) {
        wide = true;
        break;
      }
    }
    const bytes = wide ? id.length * 2 : id.length;
    if (bytes > this.#scratch.length) this.#scratch = Buffer.allocUnsafe(Math.max(bytes, this.#scratch.length * 2));
    this.#scratch.write(id, 0, bytes, wide ? 'utf16le' : 'latin1');
    return wide ? (bytes | 0x80000000) >>> 0 : bytes;
  }

  #equals(index: number, n: number): boolean {
    if (this.#length[index] !== n) return false;
    const len = n & 0x7fffffff;
    const start = this.#start[index]!;
    return this.#chunks[this.#chunk[index]!]!.compare(this.#scratch, 0, len, start, start + len) === 0;
  }

  #append(n: number, value: number): number {
    const len = n & 0x7fffffff;
    if (len > this.#free || this.#chunks.length === 0) {
      if (this.#chunks.length === 0xffff) throw new InternalError('IdTable: too many ids');
      this.#chunks.push(Buffer.allocUnsafe(Math.max(CHUNK_BYTES, len)));
      this.#free = this.#chunks.at(-1)!.length;
    }
    const chunk = this.#chunks.length - 1;
    const at = this.#chunks[chunk]!.length - this.#free;
    this.#scratch.copy(this.#chunks[chunk]!, at, 0, len);
    this.#free -= len;
    if (this.#count === this.#start.length) {
      this.#start = grow(this.#start, new Uint32Array(this.#start.length * 2));
      this.#length = grow(this.#length, new Uint32Array(this.#length.length * 2));
      this.#chunk = grow(this.#chunk, new Uint16Array(this.#chunk.length * 2));
      this.#value = grow(this.#value, new Uint8Array(this.#value.length * 2));
    }
    const index = this.#count++;
    this.#chunk[index] = chunk;
    this.#start[index] = at;
    this.#length[index] = n;
    this.#value[index] = value;
    return index;
  }

  #rehash(): void {
    const slots = new Int32Array(this.#slots.length * 2);
    const mask = slots.length - 1;
    for (let index = 0; index < this.#count; index++) {
      const start = this.#start[index]!;
      const bytes = this.#chunks[this.#chunk[index]!]!.subarray(start, start + (this.#length[index]! & 0x7fffffff));
      let slot = hash(bytes, this.#length[index]!) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = index + 1;
    }
    this.#slots = slots;
  }
}

function grow<T extends Uint8Array | Uint16Array | Uint32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** FNV-1a over the id's bytes, seeded with its length and width flag. */
function hash(bytes: Uint8Array, n: number): number {
  const len = n & 0x7fffffff;
  let h = (0x811c9dc5 ^ n) >>> 0;
  for (let i = 0; i < len; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}
