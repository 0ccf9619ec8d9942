/**
 * The browser a video is rendered in: a Chromium the user names (`browser`, or the `REPLAY_EXPORT_BROWSER`
 * environment variable), else the one shipped in the npm package `@sparticuz/chromium`, driven by `playwright-core`.
 * Both packages are optional: when they are missing, `VideoError('VIDEO_NO_BROWSER')` says what to install or name.
 */
import { environmentOf } from '../pipeline/settings.js';
import type { Browser } from 'playwright-core';
import { BROWSER_ENV } from './defaults.js';
import { VideoError } from './errors.js';
import { missingPackages, missingPackagesMessage, videoPackages } from '../util/peer-packages.js';

const HOW = `install playwright-core and @sparticuz/chromium, or name a Chromium with --browser <path> or ${BROWSER_ENV}`;
/** Flags of @sparticuz/chromium that weaken a page's security or suit only AWS Lambda. */
const DROPPED_FLAGS = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process']);
/**
 * Its GPU emulation (SwiftShader): a screenshot costs ~5× the CPU it costs with no GPU at all (measured: 50 frames
 * at 1024×768 in 26 s against 7 s), so rendering runs with `--disable-gpu` (WebCodecs encodes in software either way).
 */
const SOFTWARE_GL = /^--(use-gl|use-angle|enable-unsafe-swiftshader|in-process-gpu|ignore-gpu-blocklist)\b/;
/** No GPU; frames drawn when asked, not at the display's rate (a screenshot waited for a vsync tick: ~25% slower). */
const RENDER_FLAGS = ['--disable-gpu', '--disable-gpu-vsync', '--disable-frame-rate-limit'];

async function importOptional<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    const why = (err as Error).message.split('\n')[0];
    throw new VideoError('VIDEO_NO_BROWSER', `no browser to render the video: ${name} did not load (${why}); ${HOW}`, {
      cause: err,
    });
  }
}

/** Starts headless Chromium: `path` (or the environment variable), else @sparticuz/chromium's. */
export async function launchBrowser(
  path?: string,
  env: Readonly<Record<string, string | undefined>> = environmentOf({}),
): Promise<Browser> {
  const named = path ?? (env[BROWSER_ENV] || undefined);
  // Every package a video needs, checked before any starts: one message names all that are missing.
  const missing = missingPackages(videoPackages(named !== undefined));
  if (missing.length > 0) throw new VideoError('VIDEO_NO_BROWSER', missingPackagesMessage(missing));
  const { chromium } = await importOptional<typeof import('playwright-core')>('playwright-core');
  let executablePath = named;
  let args: string[] = [];
  if (executablePath === undefined) {
    const sparticuz = (
      await importOptional<{ default: typeof import('@sparticuz/chromium').default }>('@sparticuz/chromium')
    ).default;
    try {
      executablePath = await sparticuz.executablePath();
    } catch (err) {
      throw new VideoError(
        'VIDEO_NO_BROWSER',
        `Chromium from @sparticuz/chromium could not be unpacked (${(err as Error).message}); ${HOW}`,
        { cause: err },
      );
    }
    args = sparticuz.args.filter((arg) => !DROPPED_FLAGS.has(arg) && !SOFTWARE_GL.test(arg));
  }
  try {
    return await chromium.launch({ executablePath, args: [...args, ...RENDER_FLAGS], headless: true });
  } catch (err) {
    const which =
      named !== undefined
        ? `the browser named by ${path !== undefined ? '--browser' : BROWSER_ENV} (${named})`
        : `Chromium (${executablePath})`;
    throw new VideoError(
      'VIDEO_NO_BROWSER',
      `${which} did not start: ${(err as Error).message.split('\n')[0]}; ${HOW}`,
      { cause: err },
    );
  }
}
