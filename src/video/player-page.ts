/**
 * The player page as the render's page functions see it (capture.ts, render.ts: run in the page by the driver, so
 * compiled here without the DOM lib): the globals they use, typed as far as they use them. Only a page function's own
 * body is sent to the page, so each casts `globalThis` to `PlayerPageGlobals` itself (a type, erased).
 */

/** A recorded event as the player holds it, sanitized (rrweb: 2 full snapshot, 3 incremental, 4 meta). */
interface PageEvent {
  type: number;
  timestamp: number;
  data?: { source?: unknown; id?: unknown; width?: unknown; height?: unknown } | null;
}

/** An element's box, as far as the render measures it. */
interface PageElement {
  getBoundingClientRect(): { x: number; y: number; width: number; height: number };
  offsetWidth: number;
  clientLeft: number;
  clientTop: number;
  clientWidth: number;
  clientHeight: number;
}

/** rrweb's Replayer, what the render calls of it. */
interface PageReplayer {
  pause(timeOffset: number): void;
  getMetaData(): { startTime: number; endTime: number };
  /** rrweb 2.2's own (not in its typings): applies a scroll event's data; `true`: at once. */
  applyScroll(data: unknown, isSync: boolean): void;
  iframe: PageElement;
}

/** The document, what the render reads and adds. */
interface PageDocument {
  body: { getAttribute(name: string): string | null };
  head: { appendChild(node: unknown): unknown };
  createElement(tag: 'style'): { textContent: string | null };
}

/** The last scroll of each element up to the time seeked, kept between seeks (capture.ts). */
interface ScrollState {
  next: number;
  last: Map<number, unknown>;
}

export interface PlayerPageGlobals {
  document: PageDocument;
  /** The player's Replayer, once the page is ready. */
  replayer: PageReplayer;
  /** Every event the player took, sanitized. */
  replayEvents: PageEvent[];
  MutationObserver: new (
    callback: () => void,
  ) => {
    observe(target: unknown, options: { attributes: boolean; attributeFilter: string[] }): void;
    disconnect(): void;
  };
  Event: new (type: string) => unknown;
  dispatchEvent(event: unknown): boolean;
  createImageBitmap?: (...args: unknown[]) => Promise<unknown>;
  /** Set by trackCanvasDecodes: the canvas decodes not yet settled. */
  __videoDecodes?: () => number;
  /** Kept by a page's seeks. */
  __videoScroll?: ScrollState;
}
