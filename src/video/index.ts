/**
 * `replay-export/video`: a replay as a video file (MP4/H.264 or WebM/VP9), rendered frame by frame in headless
 * Chromium from the offline player, deterministically and faster than real time. Needs the optional packages
 * `playwright-core` with `@sparticuz/chromium` (or a Chromium named by `browser` / `REPLAY_EXPORT_BROWSER`) and
 * `mediabunny`.
 */
import { renderReplay, type RenderOptions, type VideoResult } from './render.js';
import { openVideoSource, titleOf, type VideoSource } from './source.js';

export type VideoOptions = RenderOptions;

/** Renders the replay of `source` as the video file `options.out`. */
export async function renderVideo(source: VideoSource, options: VideoOptions): Promise<VideoResult> {
  const opened = await openVideoSource(source);
  try {
    return await renderReplay(opened, { title: titleOf(source), ...options });
  } finally {
    await opened.close();
  }
}

export {
  renderEvents,
  videoSize,
  VIDEO_DEFAULTS,
  type RenderOptions,
  type VideoProgress,
  type VideoResult,
  type VideoSize,
} from './render.js';
export { fileFormat, isFile as isEventsFile, type VideoSource } from './source.js';
export { BROWSER_ENV, formatOf, type VideoFormat } from './defaults.js';
export { VideoError, type VideoErrorCode } from './errors.js';
export {
  segments,
  frameCount,
  frameOffsets,
  videoLength,
  IDLE_THRESHOLD_MS,
  type Segment,
  type Timeline,
  type ScheduleOptions,
} from './schedule.js';
export { parseVideoTime, type VideoTime } from './range.js';
