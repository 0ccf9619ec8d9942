/**
 * Which replay time each video frame shows. The video plays the replay at `speed`; with `skipInactivity` an idle
 * stretch is played fast exactly as rrweb's Replayer does it in the player (`skipInactive`): from an event whose
 * next user interaction is more than 10 s × speed away, up to that interaction, at round(gap / 5 s)× (at most 360×),
 * so it lasts about 5 s; and a stretch with no event at all lasts 5 s whatever the interactions and however long.
 * Frame k shows the replay at the video time k / fps; the last frame shows the range's end.
 */

/** What the schedule needs of a replay: times in ms since the epoch. */
export interface Timeline {
  start: number;
  end: number;
  /** The user interactions' timestamps (rrweb's incremental sources MouseMove through Input), ascending. */
  interactions: readonly number[];
  /** Every event's timestamp, ascending: a stretch with none is played fast whatever the interactions. */
  events?: readonly number[] | undefined;
}

export interface ScheduleOptions {
  fps: number;
  speed: number;
  skipInactivity: boolean;
  /** The range, in ms from the replay's start (default: all of it). */
  from?: number | undefined;
  to?: number | undefined;
}

/** A stretch of the replay (ms from its start) played at `rate` replay ms per video ms. */
export interface Segment {
  from: number;
  to: number;
  rate: number;
}

/** rrweb's Replayer: idle when the next interaction is this far (× speed) ahead; a skip lasts about this long. */
export const IDLE_THRESHOLD_MS = 10_000;
const SKIP_TIME_MS = 5_000;
const MAX_SKIP_SPEED = 360;

/**
 * rrweb's skips: from the start or an interaction whose next interaction is more than the threshold (× speed) ahead,
 * up to it, at round(gap / 5 s)× (at most 360×). Ascending, disjoint; one pass over the interactions.
 */
function interactionSkips(timeline: Timeline, speed: number): Segment[] {
  const out: Segment[] = [];
  const xs = timeline.interactions;
  let next = 0;
  for (let k = 0; k <= xs.length; k++) {
    const anchor = k === 0 ? timeline.start : xs[k - 1]!;
    if (k > 1 && anchor === xs[k - 2]) continue;
    while (next < xs.length && xs[next]! <= anchor) next++;
    if (next >= xs.length) break;
    const gap = xs[next]! - anchor;
    if (gap > IDLE_THRESHOLD_MS * speed) {
      out.push({
        from: anchor - timeline.start,
        to: xs[next]! - timeline.start,
        rate: Math.min(Math.round(gap / SKIP_TIME_MS), MAX_SKIP_SPEED),
      });
    }
  }
  return out;
}

/**
 * The stretches with no event at all (what a frame shows cannot change in them) longer than the threshold (× speed):
 * each lasts 5 s of video however long it is (two events 30 days apart are 5 s, not 25.9 M frames).
 */
function quietSkips(timeline: Timeline, speed: number): Segment[] {
  const out: Segment[] = [];
  const times = timeline.events ?? [];
  for (let k = 1; k < times.length; k++) {
    const gap = times[k]! - times[k - 1]!;
    if (gap > IDLE_THRESHOLD_MS * speed)
      out.push({ from: times[k - 1]! - timeline.start, to: times[k]! - timeline.start, rate: gap / SKIP_TIME_MS });
  }
  return out;
}

/** Two ascending lists of disjoint skips as one: each stretch at the faster of the two rates covering it. */
function fastest(a: readonly Segment[], b: readonly Segment[]): Segment[] {
  const points = [...a.flatMap((s) => [s.from, s.to]), ...b.flatMap((s) => [s.from, s.to])].sort((x, y) => x - y);
  const out: Segment[] = [];
  let ia = 0;
  let ib = 0;
  const rateIn = (list: readonly Segment[], i: number, p: number, q: number): number =>
    i < list.length && list[i]!.from <= p && list[i]!.to >= q ? list[i]!.rate : 0;
  for (let k = 1; k < points.length; k++) {
    const p = points[k - 1]!;
    const q = points[k]!;
    if (q <= p) continue;
    while (ia < a.length && a[ia]!.to <= p) ia++;
    while (ib < b.length && b[ib]!.to <= p) ib++;
    const rate = Math.max(rateIn(a, ia, p, q), rateIn(b, ib, p, q));
    if (rate === 0) continue;
    const last = out[out.length - 1];
    if (last !== undefined && last.to === p && last.rate === rate) last.to = q;
    else out.push({ from: p, to: q, rate });
  }
  return out;
}

/** The replay's stretches and their rates, from `from` to `to`. */
export function segments(timeline: Timeline, options: ScheduleOptions): Segment[] {
  const total = Math.max(0, timeline.end - timeline.start);
  const from = Math.max(0, Math.min(options.from ?? 0, total));
  const to = Math.max(from, Math.min(options.to ?? total, total));
  const cuts = options.skipInactivity
    ? fastest(interactionSkips(timeline, options.speed), quietSkips(timeline, options.speed))
    : [];
  const out: Segment[] = [];
  let at = from;
  const push = (a: number, b: number, rate: number): void => {
    if (b > a) out.push({ from: a, to: b, rate });
  };
  for (const cut of cuts) {
    if (cut.to <= at || cut.from >= to) continue;
    push(at, Math.max(at, cut.from), options.speed);
    push(Math.max(at, cut.from), Math.min(cut.to, to), Math.max(cut.rate, options.speed));
    at = Math.min(cut.to, to);
  }
  push(at, to, options.speed);
  if (out.length === 0) out.push({ from, to: from, rate: options.speed });
  return out;
}

/** The video's length in ms. */
export function videoLength(parts: readonly Segment[]): number {
  return parts.reduce((sum, s) => sum + (s.to - s.from) / s.rate, 0);
}

/** The number of frames: one per 1/fps of the video, the last at its end. */
export function frameCount(parts: readonly Segment[], fps: number): number {
  return Math.floor((videoLength(parts) * fps) / 1000 + 1e-9) + 1;
}

/** The replay offset (ms from its start) each frame shows, in order. */
export function* frameOffsets(parts: readonly Segment[], fps: number): Generator<number> {
  const count = frameCount(parts, fps);
  const length = videoLength(parts);
  let segment = 0;
  let segmentStart = 0; // video ms where `parts[segment]` starts
  for (let k = 0; k < count; k++) {
    const v = k === count - 1 ? length : (k * 1000) / fps;
    while (
      segment < parts.length - 1 &&
      v >= segmentStart + (parts[segment]!.to - parts[segment]!.from) / parts[segment]!.rate
    ) {
      segmentStart += (parts[segment]!.to - parts[segment]!.from) / parts[segment]!.rate;
      segment++;
    }
    const s = parts[segment]!;
    yield Math.min(s.to, s.from + (v - segmentStart) * s.rate);
  }
}
