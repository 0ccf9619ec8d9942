/**
 * The events the library yields, as the project's own structural types: rrweb's event shapes (`eventWithTime` of
 * `@rrweb/types`) without its DOM-typed parts, so that a consumer type-checks with no DOM library and
 * `skipLibCheck: false`. The decoders check each event is a JSON object; its fields are rrweb's, as the platform
 * stored them — nothing more is verified, so these types describe, they do not guarantee.
 *
 * For rrweb's `Replayer` (in a browser), cast: `events as eventWithTime[]` (`import type { eventWithTime } from
 * '@rrweb/types'`); every rrweb event is one of these, so the cast needs no `unknown`.
 */

/**
 * rrweb's `EventType`, by number: 0 DomContentLoaded, 1 Load, 2 FullSnapshot, 3 IncrementalSnapshot, 4 Meta,
 * 5 Custom, 6 Plugin.
 */
export type ReplayEventType = ReplayEvent['type'];

/** What every event has: its kind, when it happened (ms since the epoch), and rrweb's optional `delay`. */
interface EventTime {
  timestamp: number;
  delay?: number;
}

export interface DomContentLoadedEvent extends EventTime {
  type: 0;
  data: unknown;
}

export interface LoadEvent extends EventTime {
  type: 1;
  data: unknown;
}

/** The page's serialised DOM (`node`: rrweb's `serializedNodeWithId`, here as plain JSON) and scroll offset. */
export interface FullSnapshotEvent extends EventTime {
  type: 2;
  data: { node: { [field: string]: unknown }; initialOffset: { top: number; left: number } };
}

/** A change since the snapshot: `source` is rrweb's `IncrementalSource` (0 mutation, 1 mouse move, 2 mouse
 * interaction, 3 scroll, 4 viewport resize, 5 input, …); the other fields depend on it. */
export interface IncrementalSnapshotEvent extends EventTime {
  type: 3;
  data: { source: number; [field: string]: unknown };
}

/** The page's URL and viewport size. */
export interface MetaEvent extends EventTime {
  type: 4;
  data: { href: string; width: number; height: number };
}

/** A custom event the page recorded (named so, not `CustomEvent`, to leave the global of that name alone). */
export interface CustomReplayEvent<T = unknown> extends EventTime {
  type: 5;
  data: { tag: string; payload: T };
}

export interface PluginReplayEvent<T = unknown> extends EventTime {
  type: 6;
  data: { plugin: string; payload: T };
}

/** One rrweb event as recorded: a union discriminated by `type` (`ReplayEventType`). */
export type ReplayEvent =
  | DomContentLoadedEvent
  | LoadEvent
  | FullSnapshotEvent
  | IncrementalSnapshotEvent
  | MetaEvent
  | CustomReplayEvent
  | PluginReplayEvent;
