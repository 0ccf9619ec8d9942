import { pack as amplitudePack } from '@amplitude/rrweb-packer/pack';
import { pack as rrwebPack } from '@rrweb/packer/pack';

type PackFn = (event: never) => string;

/**
 * The element shapes found in real version 2 files:
 * 1. `json-packed`: `JSON.stringify(pack(event))`, a JSON string literal of the latin1 zlib string (what the
 *    platform's browser SDK sent; the file's JSON array then encodes it a second time);
 * 2. `event-json`: the event's own JSON text as a string (newer SDKs, no packing);
 * 3. `packed`: the bare latin1 zlib string `pack(event)`;
 * 4. `object`: the event object itself.
 */
type ElementShape = 'json-packed' | 'event-json' | 'packed' | 'object';

/** Deterministic mix by the element's index in the replay; most elements are `json-packed`. */
const PATTERN: readonly ElementShape[] = [
  'json-packed',
  'json-packed',
  'json-packed',
  'event-json',
  'json-packed',
  'json-packed',
  'packed',
  'json-packed',
  'json-packed',
  'object',
  'json-packed',
  'json-packed',
  'json-packed',
  'packed',
  'json-packed',
  'event-json',
];

function shapeFor(index: number): ElementShape {
  return PATTERN[index % PATTERN.length]!;
}

/** Alternates the two packer packages in runs of three elements. */
function packerFor(index: number): PackFn {
  return Math.floor(index / 3) % 2 === 0 ? (amplitudePack as PackFn) : (rrwebPack as PackFn);
}

/** The version 2 file element for the event at `index` (its position in the whole replay). */
export function v2Element(event: unknown, index: number): unknown {
  const pack = packerFor(index);
  switch (shapeFor(index)) {
    case 'json-packed':
      return JSON.stringify(pack(event as never));
    case 'event-json':
      return JSON.stringify(event);
    case 'packed':
      return pack(event as never);
    case 'object':
      return event;
  }
}
