/**
 * Which replay time each video frame shows. The video plays the replay at `speed`; with `skipInactivity` an idle
 * stretch is played fast exactly as rrweb's Replayer does it in the player (`skipInactive`): from an event whose
 * next user interaction is more than 10 s × speed away, up to that interaction, at round(gap / 5 s)× (at most 360×),
 * so it lasts about 5 s. Frame k shows the replay at the video time k / fps; the last frame shows the range's end.
 */

/** What the schedule needs of a replay: times in ms since the epoch. */
export interface Timeline {
  start: number;
  end: number;
  /** The user interactions' timestamps (rrweb's incremental sources MouseMove through Input), ascending. */
  interactions: readonly number[];
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

/** The replay's stretches and their rates, from `from` to `to`. */
export function segments(timeline: Timeline, options: ScheduleOptions): Segment[] {
  const total = Math.max(0, timeline.end - timeline.start);
  const from = Math.max(0, Math.min(options.from ?? 0, total));
  const to = Math.max(from, Math.min(options.to ?? total, total));
  const cuts: Segment[] = [];
  if (options.skipInactivity) {
    const anchors = [timeline.start, ...timeline.interactions];
    for (let i = 0; i < anchors.length; i++) {
      const a = anchors[i]!;
      const next = timeline.interactions.find((t) => t > a);
      if (next === undefined) break;
      const gap = next - a;
      if (gap > IDLE_THRESHOLD_MS * options.speed) {
        cuts.push({
          from: a - timeline.start,
          to: next - timeline.start,
          rate: Math.min(Math.round(gap / SKIP_TIME_MS), MAX_SKIP_SPEED),
        });
      }
    }
  }
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
