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
  | 'VIDEO_RENDER_FAILED';

const CATEGORY: Record<VideoErrorCode, ErrorCategory> = {
  VIDEO_NO_BROWSER: 'usage',
  VIDEO_NO_ENCODER: 'usage',
  VIDEO_BAD_OPTION: 'usage',
  VIDEO_EMPTY: 'data',
  VIDEO_RENDER_FAILED: 'internal',
};

export class VideoError extends ReplayExportError {
  declare readonly code: VideoErrorCode;
  constructor(code: VideoErrorCode, message: string, context: ErrorContext = {}) {
    super(message, { ...context, code, category: CATEGORY[code] });
  }
}
