/**
 * Reading the events back out of an `html` output (sinks/player-page.ts): the page holds them as JSON arrays in a row
 * of `<script type="application/json" class="replay-events">` blocks (`<` escaped inside strings as `\u003c`, which
 * JSON reads as the same character). `pageEventsArray` streams the bytes of those blocks as one JSON array: memory
 * holds a chunk and a marker's length, whatever the page's size. What `verify` checks and `view` plays.
 */

const COMMA = Buffer.from(',');
const CLOSE_ARRAY = Buffer.from(']');
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
/** How sinks/player-page.ts opens and closes each block of events in a page. */
const BLOCK_OPEN = Buffer.from('<script type="application/json" class="replay-events">');
const BLOCK_CLOSE = Buffer.from('</script>');

const BLOCK_END = Symbol('block end');

/** The bytes inside each events block of a page (`BLOCK_OPEN` … `BLOCK_CLOSE`) in order, `BLOCK_END` after each. */
async function* blockPieces(
  page: AsyncIterable<Buffer>,
  malformed: (message: string) => Error,
): AsyncGenerator<Buffer | typeof BLOCK_END> {
  let inside = false;
  let blocks = 0;
  let carry: Buffer | undefined;
  for await (const chunk of page) {
    let buf = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
    carry = undefined;
    for (;;) {
      const marker = inside ? BLOCK_CLOSE : BLOCK_OPEN;
      const at = buf.indexOf(marker);
      if (at === -1) {
        // The marker may start in the last bytes: they wait for the next chunk.
        const keep = Math.min(buf.length, marker.length - 1);
        if (inside && buf.length > keep) yield buf.subarray(0, buf.length - keep);
        if (keep > 0) carry = Buffer.from(buf.subarray(buf.length - keep));
        break;
      }
      if (inside) {
        if (at > 0) yield buf.subarray(0, at);
        yield BLOCK_END;
        blocks++;
      }
      inside = !inside;
      buf = buf.subarray(at + marker.length);
    }
  }
  if (inside) throw malformed('the page ends inside a block of events');
  if (blocks === 0) throw malformed('the page holds no block of events');
}

/**
 * The events of a page's blocks as one JSON array: each block is an array (`[e1,e2]`), the first block's `[` opens
 * it, the `][` between two blocks becomes `,`, the last block's `]` closes it. A page that is not one of ours (no
 * block, a block cut short or not an array) fails with `malformed(message)`.
 */
export async function* pageEventsArray(
  page: AsyncIterable<Buffer>,
  malformed: (message: string) => Error,
): AsyncGenerator<Buffer> {
  let blocks = 0;
  let atBlockStart = true;
  /** The last byte of the current block seen so far, held back: if the block ends there, it is the block's `]`. */
  let held = -1;
  for await (const piece of blockPieces(page, malformed)) {
    if (piece === BLOCK_END) {
      if (held !== RBRACKET) throw malformed(`block ${blocks + 1} of the page is not a JSON array`);
      blocks++;
      atBlockStart = true;
      held = -1;
      continue;
    }
    let bytes = piece;
    if (atBlockStart) {
      if (bytes[0] !== LBRACKET) throw malformed(`block ${blocks + 1} of the page is not a JSON array`);
      if (blocks > 0) {
        yield COMMA;
        bytes = bytes.subarray(1);
      }
      atBlockStart = false;
    }
    if (bytes.length === 0) continue;
    if (held !== -1) yield Buffer.of(held);
    held = bytes[bytes.length - 1]!;
    if (bytes.length > 1) yield bytes.subarray(0, bytes.length - 1);
  }
  yield CLOSE_ARRAY;
}
