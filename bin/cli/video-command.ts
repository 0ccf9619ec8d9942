/**
 * `replay-export video <replay_id | file> --out <file.mp4|file.webm>`: a replay as a video file, from an exported
 * events file, a replay of an archive (`--archive`), or the platform (through one run). A progress line on stderr,
 * the written file's path on stdout.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { openRun, type ConnectionOptions } from '../../src/index.js';
import { BROWSER_ENV, parseVideoTime, renderVideo, VIDEO_DEFAULTS, type VideoProgress, type VideoSource } from '../../src/video/index.js';
import { isFile } from '../../src/video/source.js';

/** What the command needs from the program: the platform connection (flags, env or sandbox) and the interrupt signal. */
export interface VideoCommandDeps {
  connect(cmd: Command): Promise<{ conn: ConnectionOptions; close(): Promise<void> }>;
  signal: AbortSignal;
}

interface VideoFlags {
  out: string;
  archive?: string;
  fps?: number;
  size?: { width: number; height: number };
  speed?: number;
  skipInactivity: boolean;
  from?: string;
  to?: string;
  browser?: string;
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

const clock = (ms: number): string => `${Math.floor(ms / 60_000)}:${((ms % 60_000) / 1000).toFixed(1).padStart(4, '0')}`;

export function addVideoCommand(program: Command, deps: VideoCommandDeps): void {
  program
    .command('video')
    .description('render a replay as a video file (MP4/H.264 or WebM/VP9), frame by frame in headless Chromium, offline')
    .argument('<replay>', 'a replay id (on the platform, or in --archive) or an exported events file (.json, .ndjson, optionally .gz)')
    .requiredOption('--out <file>', 'the video file: .mp4 (H.264) or .webm (VP9)')
    .option('--archive <archive>', 'read the replay from this archive (a folder or s3://bucket/prefix) instead of the platform')
    .option('--fps <n>', `frames per second (default ${VIDEO_DEFAULTS.fps})`, positiveNumber('--fps'))
    .option('--size <WxH>', `the video's size (default: the recording's viewport, fitted into ${VIDEO_DEFAULTS.maxSize.width}x${VIDEO_DEFAULTS.maxSize.height})`, sizeFlag)
    .option('--speed <x>', 'replay time per video time (default 1)', positiveNumber('--speed'))
    .addOption(new Option('--no-skip-inactivity', 'play idle stretches (over 10 s without input) at the normal speed, not fast as the player does'))
    .option('--from <time>', "start here: an offset from the replay's start (90, 90s, 1:30, 1500ms) or an ISO 8601 time")
    .option('--to <time>', 'end here (same forms as --from)')
    .option('--browser <path>', `the Chromium executable to render with (default: ${BROWSER_ENV}, else the npm package @sparticuz/chromium)`)
    .action(async (replay: string, flags: VideoFlags, cmd: Command) => {
      const g = cmd.optsWithGlobals<{ quiet?: boolean; progress: boolean }>();
      const from = flags.from !== undefined ? parseVideoTime(flags.from, '--from') : undefined;
      const to = flags.to !== undefined ? parseVideoTime(flags.to, '--to') : undefined;
      let close = async (): Promise<void> => undefined;
      let source: VideoSource;
      if (flags.archive !== undefined) source = { archive: flags.archive, replayId: replay };
      else if (await isFile(replay)) source = { file: replay };
      else {
        const c = await deps.connect(cmd);
        const run = await openRun({ ...c.conn, signal: deps.signal });
        close = async () => {
          await run.close();
          await c.close();
        };
        source = { replayId: replay, platform: { run } };
      }
      const live = g.progress !== false && g.quiet !== true && process.stderr.isTTY === true;
      const onProgress = (p: VideoProgress): void => {
        if (live) process.stderr.write(`\rframe ${p.frame}/${p.frames} · replay ${clock(p.offset)}`);
      };
      try {
        const started = Date.now();
        const result = await renderVideo(source, {
          out: flags.out,
          fps: flags.fps,
          size: flags.size,
          speed: flags.speed,
          skipInactivity: flags.skipInactivity,
          from,
          to,
          browser: flags.browser,
          onProgress,
          signal: deps.signal,
        });
        if (live) process.stderr.write('\n');
        const seconds = (Date.now() - started) / 1000;
        if (g.quiet !== true) {
          process.stderr.write(
            `wrote ${result.file}: ${result.width}x${result.height}, ${result.frames} frames at ${result.fps} fps (${(result.durationMs / 1000).toFixed(1)} s of video for ` +
              `${((result.to - result.from) / 1000).toFixed(1)} s of replay) in ${seconds.toFixed(1)} s\n`,
          );
        }
        process.stdout.write(`${result.file}\n`);
      } finally {
        await close();
      }
    });
}
