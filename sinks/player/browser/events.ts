/**
 * The events as the player reads them. A recording is hostile input: nothing in an event's `data` is trusted to have
 * the shape rrweb gives it, so `data` is loose JSON and every field is checked where it is used.
 */

/** Parsed JSON of unknown shape (a recording's content): each use checks what it reads. */
// biome-ignore lint/suspicious/noExplicitAny: a recording's JSON, hostile and of any shape: every use checks what it reads (a typed shape would be a claim the data does not keep).
export type Json = any;

/** An event of the replay (an element of a recording's array may still be anything: the code checks before it reads). */
export interface ReplayEvent {
  type: number;
  timestamp: number;
  data: Json;
}

/** rrweb's event types (EventType) and incremental sources (IncrementalSource) the player looks at. */
export const FULL_SNAPSHOT = 2;
export const INCREMENTAL = 3;
export const META = 4;
export const CUSTOM = 5;
export const PLUGIN = 6;
export const SOURCE_MUTATION = 0;
export const SOURCE_MOUSE_INTERACTION = 2;
export const SOURCE_INPUT = 5;
export const SOURCE_STYLE_SHEET_RULE = 8;
export const SOURCE_CANVAS = 9;
export const SOURCE_FONT = 10;
export const SOURCE_STYLE_DECLARATION = 13;
export const SOURCE_ADOPTED_STYLE_SHEET = 15;

/** A canvas event (its drawing commands), which the canvas window holds back. */
export function isCanvasEvent(e: Json): boolean {
  return e && e.type === INCREMENTAL && e.data && e.data.source === SOURCE_CANVAS;
}

/**
 * Whether an event builds a `<canvas>` element: a full snapshot holding one, or a mutation adding one (the nodes walked
 * with a stack of their own: a recording's depth is not trusted).
 */
export function buildsCanvas(e: Json): boolean {
  const roots: Json[] = [];
  if (e && e.type === FULL_SNAPSHOT && e.data) roots.push(e.data.node);
  else if (e && e.type === INCREMENTAL && e.data && e.data.source === SOURCE_MUTATION && Array.isArray(e.data.adds)) {
    for (let i = 0; i < e.data.adds.length; i++) roots.push(e.data.adds[i]?.node);
  }
  const stack = roots;
  while (stack.length) {
    const n = stack.pop();
    if (!n || typeof n !== 'object') continue;
    if (typeof n.tagName === 'string' && n.tagName.toLowerCase() === 'canvas') return true;
    if (Array.isArray(n.childNodes)) for (let i = 0; i < n.childNodes.length; i++) stack.push(n.childNodes[i]);
  }
  return false;
}
