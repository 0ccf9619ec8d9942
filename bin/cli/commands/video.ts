/**
 * `replay-export video <replay_id | file> --out <file.mp4|file.webm>`: a replay as a video file, from an exported
 * events file, a replay of an archive (`--archive`, a folder or s3:// with the `--s3-*` flags), or the platform
 * (through the command's run). A progress line on a terminal, the written file's path on stdout.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { missingPackages, missingPackagesMessage, videoPackages } from '../../../src/util/peer-packages.js';
import {
  BROWSER_ENV,
  isEventsFile,
  parseVideoTime,
  renderVideo,
  VIDEO_DEFAULTS,
  VideoError,
  type VideoOptions,
  type VideoProgress,
  type VideoSource,
} from '../../../src/video/index.js';
import { ByteSizeError, formatByteSize, parseByteSize } from '../../../src/pipeline/byte-size.js';
import { flagsOf, type CliContext, type CliRun, type Invocation } from '../context.js';
import { addS3AccessFlags, archiveOf, durationFlag, type S3ReadFlags } from '../flags.js';
import { fileArgError, looksLikeFile } from '../replay-ids.js';

interface VideoFlags extends S3ReadFlags {
  out: string;
  archive?: string;
  fps?: number;
  size?: { width: number; height: number };
  speed?: number;
  skipInactivity: boolean;
  from?: string;
  to?: string;
  browser?: string;
  maxLength?: string;
  maxEventSize?: string;
}

function positiveNumber(name: string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!/^\d+(\.\d+)?$/.test(v) || !(n > 0)) throw new InvalidArgumentError(`${name} must be a positive number`);
    return n;
  };
}

function sizeFlag(v: string): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/i.exec(v);
  if (!m) throw new InvalidArgumentError('--size must be WIDTHxHEIGHT, e.g. 1280x800');
  return { width: Number(m[1]), height: Number(m[2]) };
}

const clock = (ms: number): string =>
  `${Math.floor(ms / 60_000)}:${((ms % 60_000) / 1000).toFixed(1).padStart(4, '0')}`;

export function register(program: Command): Command {
  return addS3AccessFlags(
    program
      .command('video')
      .description(
        'render a replay as a video file (MP4/H.264 or WebM/VP9), frame by frame in headless Chromium, offline',
      )
      .argument(
        '<replay>',
        'a replay id (on the platform, or in --archive) or an exported events file (.json, .ndjson, optionally .gz)',
      )
      .requiredOption('-o, --out <file>', 'the video file: .mp4 (H.264) or .webm (VP9)')
      .option(
        '--archive <archive>',
        'read the replay from this archive (a folder or s3://bucket/prefix) instead of the platform',
      )
      .option('--fps <n>', `frames per second (default ${VIDEO_DEFAULTS.fps})`, positiveNumber('--fps'))
      .option(
        '--size <WxH>',
        `the video's size (default: the recording's viewport, fitted into ${VIDEO_DEFAULTS.maxSize.width}x${VIDEO_DEFAULTS.maxSize.height})`,
        sizeFlag,
      )
      .option('--speed <x>', 'replay time per video time (default 1)', positiveNumber('--speed'))
      .addOption(
        new Option(
          '--no-skip-inactivity',
          'play idle stretches (over 10 s without input) at the normal speed, not fast as the player does',
        ),
      )
      .option(
        '--from <time>',
        "start here: an offset from the replay's start (90, 90s, 1:30, 1500ms) or an ISO 8601 time",
      )
      .option('--to <time>', 'end here (same forms as --from)')
      .option(
        '--browser <path>',
        `the Chromium executable to render with (default: ${BROWSER_ENV}, else the npm package @sparticuz/chromium)`,
      )
      .option(
        '--max-length <duration>',
        `the longest video to make, e.g. 2h (default ${VIDEO_DEFAULTS.maxLengthMs / 3_600_000}h)`,
      )
      .option(
        '--max-event-size <size>',
        `the largest event to render, e.g. 64MiB (default ${formatByteSize(VIDEO_DEFAULTS.maxEventBytes)}: a browser plays less than an export writes)`,
      ),
  );
}

/** `--max-event-size` of `video`, in bytes. */
function eventSizeOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  try {
    return parseByteSize(value);
  } catch (err) {
    if (err instanceof ByteSizeError) throw new VideoError('VIDEO_BAD_OPTION', `--max-event-size: ${err.message}`);
    throw err;
  }
}

/** Whether a progress line is drawn: on a terminal, unless `--no-progress` or `--quiet`. */
function live(context: CliContext): boolean {
  return context.globals.progress !== false && context.globals.quiet !== true && context.stderr.isTTY === true;
}

/** The flags of `video` bound into `renderVideo`'s options. */
export function optionsOf(f: Invocation<VideoFlags>, context: CliContext): VideoOptions {
  return {
    out: f.out,
    fps: f.fps,
    size: f.size,
    speed: f.speed,
    skipInactivity: f.skipInactivity,
    from: f.from !== undefined ? parseVideoTime(f.from, '--from') : undefined,
    to: f.to !== undefined ? parseVideoTime(f.to, '--to') : undefined,
    browser: f.browser,
    maxLengthMs: durationFlag('--max-length', f.maxLength),
    maxEventBytes: eventSizeOf(f.maxEventSize),
    env: context.env,
    onProgress: (p: VideoProgress): void => {
      if (live(context)) context.stderr.write(`\rframe ${p.frame}/${p.frames} · replay ${clock(p.offset)}`);
    },
    signal: context.signal,
  };
}

/** Where the replay comes from: an events file, a replay of `--archive` (the run's archive), or the platform. */
async function sourceOf(
  f: Invocation<VideoFlags>,
  file: boolean,
  context: CliContext,
): Promise<{ source: VideoSource; cli?: CliRun }> {
  const replayId = f.args[0]!;
  if (f.archive !== undefined) {
    const cli = await context.openRun(archiveOf(f.archive, f));
    return { source: { replayId, archive: { run: cli.run } }, cli };
  }
  if (file) return { source: { file: replayId } };
  const cli = await context.openRun({}, { api: true });
  return { source: { replayId, platform: { run: cli.connect() } }, cli };
}

export async function run(context: CliContext): Promise<number> {
  const flags = flagsOf<VideoFlags>(context);
  const replay = flags.args[0]!;
  const options = optionsOf(flags, context);
  const file = flags.archive === undefined && (await isEventsFile(replay));
  if (flags.archive === undefined && !file && looksLikeFile(replay)) {
    throw fileArgError(replay, 'video takes an exported events file or a replay id, device_id/session_id');
  }
  // The packages, before the replay is fetched: a missing one is said at once, with the command that installs it.
  const missing = missingPackages(
    videoPackages((flags.browser ?? (context.env[BROWSER_ENV] || undefined)) !== undefined),
  );
  if (missing.length > 0) throw new VideoError('VIDEO_NO_BROWSER', missingPackagesMessage(missing));
  const { source, cli } = await sourceOf(flags, file, context);
  try {
    const started = Date.now();
    const result = await renderVideo(source, options);
    if (live(context)) context.stderr.write('\n');
    if (context.globals.quiet !== true) {
      context.stderr.write(
        `wrote ${result.file}: ${result.width}x${result.height}, ${result.frames} frames at ${result.fps} fps (${(result.durationMs / 1000).toFixed(1)} s of video for ` +
          `${((result.to - result.from) / 1000).toFixed(1)} s of replay) in ${((Date.now() - started) / 1000).toFixed(1)} s` +
          `${result.skippedEvents > 0 ? `; ${result.skippedEvents} events the player could not apply were skipped` : ''}\n`,
      );
    }
    context.stdout.write(`${result.file}\n`);
    return 0;
  } finally {
    await cli?.close();
  }
}
