/**
 * The events as the player reads them. A recording is hostile input: nothing in an event's `data` is trusted to have
 * the shape rrweb gives it, so `data` is loose JSON and every field is checked where it is used.
 */

/** Parsed JSON of unknown shape (a recording's content): each use checks what it reads. */
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
