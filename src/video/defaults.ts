/** What the video export's public types and its CLI need without loading the browser's packages. */
import { VideoError } from './errors.js';

/** The environment variable naming a Chromium executable. */
export const BROWSER_ENV = 'REPLAY_EXPORT_BROWSER';

export type VideoFormat = 'mp4' | 'webm';

/** The format an output path asks for, by its extension. */
export function formatOf(out: string): VideoFormat {
  const ext = /\.[^./\\]*$/.exec(out)?.[0].toLowerCase();
  if (ext === '.mp4') return 'mp4';
  if (ext === '.webm') return 'webm';
  throw new VideoError('VIDEO_BAD_OPTION', `--out must end in .mp4 or .webm: ${out}`);
}
