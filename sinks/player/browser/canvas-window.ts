/**
 * The canvas window: only the canvas frames near the position reach the Replayer. With rrweb's canvas replay, every
 * full-snapshot rebuild decodes ahead every canvas frame the Replayer holds (an image decode each): a 30 MB page of
 * canvas frames kept the tab busy for ~18 s before it answered. So the Replayer is given every other event, but of
 * each canvas only the frames it needs: from the last whole frame at or before the position, up to a short way
 * ahead; the rest are added as playback nears them. A seek builds a fresh Replayer from the same rule.
 */
import type { Replayer } from 'rrweb';
import { ui } from './dom.js';
import { isCanvasEvent, type Json, type ReplayEvent } from './events.js';

/**
 * rrweb's sampled canvas recording sends whole frames: clear the canvas, then draw one image over it. Frames before
 * the last whole one change nothing that is shown.
 */
function isWholeFrame(e: ReplayEvent): boolean {
  const c: Json = e.data.commands;
  return (
    Array.isArray(c) && c.length === 2 && c[0] && c[0].property === 'clearRect' && c[1] && c[1].property === 'drawImage'
  );
}

let windowed = false;
/** Indexes (in all events) of the canvas frames held back, in order; the next one to add. */
let canvasAt: number[] = [],
  canvasNext = 0,
  canvasFedUntil = -Infinity;

/** Whether canvas frames are held back (a replay with canvas frames, unless `?canvas=all`). */
export function isWindowed(): boolean {
  return windowed;
}

export function setWindowed(on: boolean): void {
  windowed = on;
}

function aheadMs(): number {
  return 5000 + 2000 * Number(ui.speed.value || 1);
}

/**
 * The events of a Replayer positioned at t (ms from the start); canvas events more than `ahead` ms past it (the window)
 * are left out. A replay opened paused takes none ahead (`ahead` 0): rrweb decodes every frame it is given before it
 * draws the first, and the frame shown at the position needs none after it; `feedCanvas` adds them at its next call.
 */
export function windowAt(all: readonly ReplayEvent[], t: number, ahead: number = aheadMs()): ReplayEvent[] {
  const start = all[0]!.timestamp,
    at = start + t,
    until = at + ahead,
    lastWhole: Record<number, number> = Object.create(null),
    out: ReplayEvent[] = [];
  canvasAt = [];
  for (let i = 0; i < all.length; i++) {
    const e = all[i]!;
    if (isCanvasEvent(e) && e.timestamp <= at && isWholeFrame(e)) lastWhole[e.data.id] = i;
  }
  for (let j = 0; j < all.length; j++) {
    const ev = all[j]!;
    if (!isCanvasEvent(ev)) {
      out.push(ev);
      continue;
    }
    const from = lastWhole[ev.data.id];
    if (ev.timestamp <= at) {
      if (from === undefined || j >= from) out.push(ev);
      continue;
    }
    if (ev.timestamp <= until || j === all.length - 1) out.push(ev);
    else canvasAt.push(j);
  }
  canvasNext = 0;
  canvasFedUntil = until;
  return out;
}

/** Adds the canvas frames that are now within the window ahead of `position` (ms from the start). */
export function feedCanvas(replayer: Replayer, all: readonly ReplayEvent[], position: number): void {
  const until = all[0]!.timestamp + position + aheadMs();
  while (canvasNext < canvasAt.length && all[canvasAt[canvasNext]!]!.timestamp <= until)
    replayer.addEvent(all[canvasAt[canvasNext++]!]! as Json);
  canvasFedUntil = Math.max(canvasFedUntil, until);
}

/**
 * Every event is in (the shared player streamed them): the replay's last event goes to the Replayer now if it was held
 * back, so that its length, the seek range and the end are the replay's (rrweb takes an event out of order).
 */
export function addLast(replayer: Replayer, all: readonly ReplayEvent[]): void {
  if (canvasAt.length > canvasNext && canvasAt[canvasAt.length - 1] === all.length - 1)
    replayer.addEvent(all[canvasAt.pop()!]! as Json);
}

/** An event arriving later (the shared player streams them): canvas frames past the window wait for feedCanvas. */
export function offerLate(replayer: Replayer, e: ReplayEvent, index: number): void {
  if (windowed && isCanvasEvent(e) && e.timestamp > canvasFedUntil) {
    canvasAt.push(index);
    return;
  }
  replayer.addEvent(e as Json);
}
