/**
 * Videos in `view` (issue #32 item 6): whether a browser is there to render them, checked once when the server starts
 * and cheaply — the packages resolve (none is loaded, no browser launched) and a named browser is an executable
 * file — and the renderer the server calls: `renderVideo` of the replay's archive entry, MP4 at the defaults.
 */
import { access, constants } from 'node:fs/promises';
import type { EntryOptions } from '../../src/pipeline/run.js';
import { missingPackages, missingPackagesMessage, videoPackages } from '../../src/util/peer-packages.js';
import { BROWSER_ENV, renderVideo } from '../../src/video/index.js';
import type { ViewVideo } from '../../src/view/index.js';

const HOW = `install playwright-core and @sparticuz/chromium, or name a Chromium with --browser <path> or ${BROWSER_ENV}`;

/** The renderer for `view` of `archive` (a run's options, or an open `run`), or why there is none. */
export async function viewVideo(
  archive: EntryOptions,
  opts: {
    browser?: string | undefined;
    env: Readonly<Record<string, string | undefined>>;
    /** The longest one render may take (default: the server's, 10 minutes). */
    renderTimeLimitMs?: number | undefined;
  },
): Promise<ViewVideo> {
  const named = opts.browser ?? (opts.env[BROWSER_ENV] || undefined);
  // Resolved, not loaded (loading the three took ~0.3 s and ~90 MB at start).
  const missing = missingPackages(videoPackages(named !== undefined));
  if (missing.length > 0) return { available: false, reason: missingPackagesMessage(missing) };
  if (named !== undefined) {
    const usable = await access(named, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (!usable)
      return {
        available: false,
        reason: `the browser ${named} (${opts.browser !== undefined ? '--browser' : BROWSER_ENV}) is not an executable file; ${HOW}`,
      };
  }
  return {
    available: true,
    renderTimeLimitMs: opts.renderTimeLimitMs,
    render: async (replayId, out, signal) => {
      await renderVideo({ archive, replayId }, { out, browser: named, env: opts.env, signal });
    },
  };
}
