/**
 * Frames captured from the player pages of a render: a page is moved to a frame's time (rrweb's `pause(timeOffset)`)
 * and its replay's frame captured (CDP `Page.captureScreenshot`, JPEG). The pages are sized so that the player draws
 * the replay's frame at the video's size filling the window: the screenshot is then the whole window, taken as drawn
 * (a clip costs the browser a re-emulated frame: ~30% dearer). A frame that does not fill it (the recording's viewport
 * changed shape) is clipped and scaled to the video's size. Frames go to the pages in turn, each page's seeks only
 * forward: with two pages, two frames are captured at once (a capture is mostly waiting on the browser's processes,
 * one after the other). A page can join while frames are being captured.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import type { PlayerPageGlobals } from './player-page.js';

interface Player {
  page: Page;
  cdp: CDPSession;
  /** Its last capture (settled or not): the next one starts after it. */
  last: Promise<unknown>;
}

/** Moves the Replayer to `t` (ms from the start) and returns where its frame is drawn, once the player re-fitted it. */
async function seekTo(t: number): Promise<[number, number, number, number]> {
  const w = globalThis as unknown as PlayerPageGlobals;
  const r0 = w.replayer;
  r0.pause(t);
  // rrweb 2.2 re-applies a stale scroll position (kept from an earlier rebuild) after a forward paused seek: the last
  // scroll of each element up to `t` is applied again, as a seek from the start would leave it.
  const events = w.replayEvents;
  const state = (w.__videoScroll ??= { next: 0, last: new Map<number, unknown>() });
  const until = r0.getMetaData().startTime + t;
  for (; state.next < events.length && events[state.next]!.timestamp <= until; state.next++) {
    const e = events[state.next]!;
    if (e?.type === 2) state.last.clear();
    else if (e?.type === 3 && e.data?.source === 3 && typeof e.data.id === 'number') state.last.set(e.data.id, e.data);
  }
  for (const d of state.last.values()) r0.applyScroll(d, true);
  // The player fits the replay to the page in a task after a resize: let it run first. rrweb draws a canvas frame once
  // its image is decoded (createImageBitmap, counted by trackCanvasDecodes): the frame is taken once none is pending,
  // so that it shows the canvas of time t whatever the machine's speed (a decode that never ends is waited 10 s).
  await new Promise((r) => setTimeout(r, 0));
  const pending = w.__videoDecodes;
  if (pending !== undefined && pending() > 0) {
    for (let waited = 0; pending() > 0 && waited < 10_000; waited += 2) await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setTimeout(r, 0));
  }
  // The frame's content box (its border left out), as scaled by the player.
  const frame = w.replayer.iframe;
  const r = frame.getBoundingClientRect();
  const k = frame.offsetWidth ? r.width / frame.offsetWidth : 1;
  return [r.x + frame.clientLeft * k, r.y + frame.clientTop * k, frame.clientWidth * k, frame.clientHeight * k];
}

/**
 * Run in every page of a render before its scripts (an init script): counts the `createImageBitmap` calls not yet
 * settled, the decodes rrweb's canvas replay awaits before it draws a frame.
 */
export function trackCanvasDecodes(): void {
  const w = globalThis as unknown as PlayerPageGlobals;
  const original = w.createImageBitmap;
  if (typeof original !== 'function') return;
  let pending = 0;
  const settled = (): void => {
    pending--;
  };
  w.createImageBitmap = function (this: unknown, ...args: unknown[]) {
    pending++;
    const decoding = original.apply(this, args);
    decoding.then(settled, settled);
    return decoding;
  };
  w.__videoDecodes = () => pending;
}

export class FrameCapture {
  private turn = 0;

  /**
   * `size`: the video's; `window`: the pages' viewport (every page of a render has the same), where the player fits
   * the replay's frame.
   */
  private constructor(
    private readonly players: Player[],
    private readonly size: { width: number; height: number },
    private readonly window: { width: number; height: number },
  ) {}

  static async open(
    context: BrowserContext,
    pages: readonly Page[],
    size: { width: number; height: number },
    window: { width: number; height: number },
  ): Promise<FrameCapture> {
    const players = await Promise.all(
      pages.map(async (page) => ({
        page,
        cdp: await context.newCDPSession(page),
        last: Promise.resolve() as Promise<unknown>,
      })),
    );
    return new FrameCapture(players, size, window);
  }

  /** Adds a page, loaded and sized as the others, to take its turns from the next frame on. */
  async join(context: BrowserContext, page: Page): Promise<void> {
    this.players.push({ page, cdp: await context.newCDPSession(page), last: Promise.resolve() });
  }

  /** The frame at replay time `t` (ms from the start), as base64 JPEG; call with `t` ascending. */
  take(t: number): Promise<string> {
    const player = this.players[this.turn++ % this.players.length]!;
    const shot = player.last.then(async () => {
      const [x, y, width, height] = await player.page.evaluate(seekTo, t);
      // The frame fills the window (to a fraction of a pixel, the player's scale being exact in one direction only).
      const fills =
        Math.abs(x) < 0.5 &&
        Math.abs(y) < 0.5 &&
        Math.abs(width - this.window.width) < 1 &&
        Math.abs(height - this.window.height) < 1;
      const scale = Math.min(this.size.width / width, this.size.height / height);
      const clip = fills ? {} : { clip: { x, y, width, height, scale } };
      const { data } = (await player.cdp.send('Page.captureScreenshot', {
        format: 'jpeg',
        quality: 92,
        ...clip,
        optimizeForSpeed: true,
      })) as { data: string };
      return data;
    });
    // A failure is the caller's to see when it awaits the frame; the next capture of the page is not held up by it.
    player.last = shot.catch(() => undefined);
    return shot;
  }
}
