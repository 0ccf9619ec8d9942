/**
 * The recording's first viewport, read from its events as they are written into the player page, so that the player
 * pages can be opened at the video frame's size before they load (the page's own reading, `readFacts` in render.ts,
 * stays the authority). Only small events holding `"width"` are parsed, until the first Meta event with a size.
 */
export interface ViewportSize {
  width: number;
  height: number;
}

/** rrweb's Meta event: `{ type: 4, data: { href, width, height } }`. */
const META = 4;
/** A Meta event is a few hundred bytes; a larger event (a snapshot) is not parsed to look for one. */
const LARGEST_META = 64 * 1024;
const WIDTH = Buffer.from('"width"');

export class FirstViewport {
  size: ViewportSize | undefined;

  /** Looks at one event (compact JSON), until a Meta event with a size has been seen. */
  see(event: Buffer): void {
    if (this.size !== undefined || event.length > LARGEST_META || !event.includes(WIDTH)) return;
    let e: { type?: unknown; data?: { width?: unknown; height?: unknown } } | null;
    try {
      e = JSON.parse(event.toString('utf8')) as typeof e;
    } catch {
      return;
    }
    if (!e || e.type !== META || !e.data) return;
    const width = Number(e.data.width);
    const height = Number(e.data.height);
    if (width > 0 && height > 0) this.size = { width, height };
  }
}

/** The size, in whole CSS px, of a `viewport` fitted into `box` (scaled up or down, its shape kept). */
export function fitted(viewport: ViewportSize, box: ViewportSize): ViewportSize {
  const scale = Math.min(box.width / viewport.width, box.height / viewport.height);
  return {
    width: Math.max(1, Math.round(viewport.width * scale)),
    height: Math.max(1, Math.round(viewport.height * scale)),
  };
}
