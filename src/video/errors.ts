/** Errors of the video export (`replay-export video`, `renderVideo`). */
import { ReplayExportError, type ErrorCategory, type ErrorContext } from '../errors.js';

export type VideoErrorCode =
  /** No browser to render with: `@sparticuz/chromium` + `playwright-core` not installed, or `--browser` did not start. */
  | 'VIDEO_NO_BROWSER'
  /** The muxer (`mediabunny`) is not installed, or the browser cannot encode the format asked for. */
  | 'VIDEO_NO_ENCODER'
  /** A bad option (`--out` extension, `--fps`, `--size`, `--from/--to`) or a source that cannot be read. */
  | 'VIDEO_BAD_OPTION'
  /** The replay has nothing to render (fewer than two events, no full snapshot, an empty range). */
  | 'VIDEO_EMPTY'
  /** The player or the encoder failed in the browser. */
  | 'VIDEO_RENDER_FAILED'
  /** The video would be longer than `--max-length` (default 1 hour). */
  | 'VIDEO_TOO_LONG'
  /** An event is larger than the video's `--max-event-size` (default 16 MiB). */
  | 'VIDEO_EVENT_TOO_LARGE'
  /** The player page did not load the replay in time (a recording too heavy to play). */
  | 'VIDEO_LOAD_TIMEOUT';

const CATEGORY: Record<VideoErrorCode, ErrorCategory> = {
  VIDEO_NO_BROWSER: 'usage',
  VIDEO_NO_ENCODER: 'usage',
  VIDEO_BAD_OPTION: 'usage',
  VIDEO_EMPTY: 'data',
  VIDEO_RENDER_FAILED: 'internal',
  VIDEO_TOO_LONG: 'data',
  VIDEO_EVENT_TOO_LARGE: 'data',
  VIDEO_LOAD_TIMEOUT: 'data',
};

export class VideoError extends ReplayExportError {
  declare readonly code: VideoErrorCode;
  constructor(code: VideoErrorCode, message: string, context: ErrorContext = {}) {
    super(message, { ...context, code, category: CATEGORY[code] });
  }
}
