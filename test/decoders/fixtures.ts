import { gzipSync } from 'node:zlib';
import { pack as amplitudePack } from '@amplitude/rrweb-packer/pack';
import { pack as rrwebPack } from '@rrweb/packer/pack';

export type Packer = 'rrweb' | 'amplitude';
export type Shape = 'json-packed' | 'event-json' | 'packed' | 'object';
export const SHAPES: readonly Shape[] = ['json-packed', 'event-json', 'packed', 'object'];

type Event = Record<string, unknown>;

export function pack(event: unknown, packer: Packer): string {
  const fn = (packer === 'rrweb' ? rrwebPack : amplitudePack) as unknown as (e: unknown) => string;
  return fn(event);
}

function node(id: number, depth: number, rnd: () => number): Event {
  if (depth === 0) return { type: 3, textContent: `text ${id} 漢字 😀 \u0001\t"q"\\`, id };
  return {
    type: 2,
    tagName: depth % 2 === 0 ? 'div' : 'span',
    attributes: { class: `c${id}`, 'data-x': depth, style: 'color: red;\nmargin: 0' },
    childNodes: [node(id * 2, depth - 1, rnd), node(id * 2 + 1, depth - 1, rnd)],
    id,
  };
}

/** Deterministic rrweb-like events: meta, full snapshot, mutations, mouse moves, custom events, odd values. */
export function makeEvents(count: number, seed = 1): Event[] {
  let s = seed;
  const rnd = (): number => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
  const events: Event[] = [];
  let t = 1763629200000;
  for (let i = 0; i < count; i++) {
    t += Math.floor(rnd() * 500);
    switch (i === 0 ? 0 : i === 1 ? 1 : i % 6) {
      case 0:
        events.push({
          type: 4,
          data: { href: 'https://example.test/päge?q=1&r=☃', width: 1280, height: 720 },
          timestamp: t,
        });
        break;
      case 1:
        events.push({
          type: 2,
          data: { node: { type: 0, childNodes: [node(1, 5, rnd)], id: 0 }, initialOffset: { left: 0, top: -12.5 } },
          timestamp: t,
        });
        break;
      case 2:
        events.push({
          type: 3,
          data: {
            source: 0,
            texts: [{ id: i, value: 'emoji 👩‍👩‍👧 cjk 中文 한국어 lone \ud83d and \udc00 end' }],
            attributes: [],
            removes: [],
            adds: [
              {
                parentId: 4,
                nextId: null,
                node: { type: 3, textContent: '\u0000\u001f\u007f\u0080\u00ff', id: 10 + i },
              },
            ],
          },
          timestamp: t,
        });
        break;
      case 3:
        events.push({
          type: 3,
          data: {
            source: 1,
            positions: [{ x: Math.floor(rnd() * 1000), y: -Math.floor(rnd() * 100), id: 3, timeOffset: -50 }],
          },
          timestamp: t,
        });
        break;
      case 4:
        events.push({
          type: 5,
          data: {
            tag: 'custom',
            payload: {
              big: 12345678901234567890,
              tiny: 5e-324,
              neg: -0.000123,
              exp: 1.5e300,
              bool: true,
              nil: null,
              empty: {},
              list: [],
            },
          },
          timestamp: t,
        });
        break;
      default:
        events.push({ timestamp: t, type: 3, data: { source: 3, id: 1, x: 0, y: rnd() * 1000 } }); // odd key order
    }
  }
  return events;
}

/** The events as they come out of a JSON round trip (what any decoder must give back). */
export function roundTrip<T>(events: T): T {
  return JSON.parse(JSON.stringify(events)) as T;
}

export function v3Text(events: unknown[], style: 'compact' | 'pretty' | 'crlf' = 'compact'): string {
  if (style === 'compact') return JSON.stringify(events);
  const pretty = JSON.stringify(events, null, 2);
  return style === 'pretty' ? `\n ${pretty.replace(/\n/g, '\n\t ')}\n\n` : pretty.replace(/\n/g, '\r\n');
}

export function v2Element(event: unknown, shape: Shape, packer: Packer): unknown {
  switch (shape) {
    case 'json-packed':
      return JSON.stringify(pack(event, packer));
    case 'event-json':
      return JSON.stringify(event);
    case 'packed':
      return pack(event, packer);
    case 'object':
      return event;
  }
}

export function v2Text(
  events: unknown[],
  shapeOf: (i: number) => Shape,
  packerOf: (i: number) => Packer = () => 'rrweb',
): string {
  return JSON.stringify(events.map((e, i) => v2Element(e, shapeOf(i), packerOf(i))));
}

export function gz(text: string | Buffer): Buffer {
  return gzipSync(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
}

export async function* chunked(buf: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < buf.length; i += size) {
    yield buf.subarray(i, Math.min(buf.length, i + size));
    if (i % (size * 64) === 0) await Promise.resolve();
  }
}

export async function* once(buf: Uint8Array): AsyncGenerator<Uint8Array> {
  yield buf;
}

/** A deterministic pseudo-random integer source: `rnd(k)` is in [0, k). */
export function seededRandom(seed: number): (k: number) => number {
  let s = seed;
  return (k: number): number => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s % k;
  };
}

/** `text` with `edits` random one-character insertions, deletions or replacements drawn from `alphabet`. */
export function mutateText(text: string, edits: number, alphabet: string, rnd: (k: number) => number): string {
  for (let e = 0; e < edits; e++) {
    const at = rnd(text.length + 1);
    const ch = alphabet[rnd(alphabet.length)]!;
    const op = rnd(3);
    text =
      op === 0
        ? text.slice(0, at) + ch + text.slice(at)
        : op === 1
          ? text.slice(0, at) + text.slice(at + 1)
          : text.slice(0, at) + ch + text.slice(at + 1);
  }
  return text;
}
