/**
 * Renders a replay as a video, frame by frame, deterministically: the replay's one-page player (the same page,
 * sanitizer and Content-Security-Policy as `--format html`) is opened in headless Chromium with no network, rrweb's
 * Replayer is paused at each frame's time (`pause(timeOffset)`) and that state is captured (CDP
 * `Page.captureScreenshot` of the replay's frame), then encoded (encoder.ts). What a frame shows depends on its time
 * only, never on the machine's load, and rendering runs as fast as the browser can draw.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { ReplayAssets } from '../../sinks/assets.js';
import { createLocalSink } from '../../sinks/local.js';
import type { Sink } from '../../sinks/sink.js';
import { InterruptedError } from '../errors.js';
import { launchBrowser } from './browser.js';
import { formatOf, type VideoFormat } from './defaults.js';
import { FrameCapture, trackCanvasDecodes } from './capture.js';
import type { PlayerPageGlobals } from './player-page.js';
import { loadEncoder, type EncoderPage, type FrameEncoder } from './encoder.js';
import { VideoError } from './errors.js';
import { offsetOf, type VideoTime } from './range.js';
import { frameCount, frameOffsets, type Segment, segments, type Timeline, videoLength } from './schedule.js';
import { FirstViewport, fitted, type ViewportSize } from './viewport.js';
import type { CapturedAssets, OpenedSource } from './source.js';

export type VideoSize = ViewportSize;

export interface VideoProgress {
  /** Frames done, of `frames`. */
  frame: number;
  frames: number;
  /** The replay time (ms from its start) of the last frame done. */
  offset: number;
}

export interface RenderOptions {
  /** The video file to write: `.mp4` (H.264) or `.webm` (VP9); written to a temporary name, then renamed. */
  out: string;
  /** Frames per second of the video (default 10). */
  fps?: number | undefined;
  /** The video's size (default: the recording's first viewport, fitted into `maxSize`); rounded down to even numbers. */
  size?: VideoSize | undefined;
  /** The largest default size (default 1280×800). */
  maxSize?: VideoSize | undefined;
  /** Replay ms per video ms (default 1). */
  speed?: number | undefined;
  /** Idle stretches played fast, as the player does (default true). */
  skipInactivity?: boolean | undefined;
  /** The range: ms from the replay's start, or absolute times (`parseVideoTime` reads the CLI's forms). */
  from?: VideoTime | undefined;
  to?: VideoTime | undefined;
  /** A Chromium executable (else `REPLAY_EXPORT_BROWSER`, else `@sparticuz/chromium`). */
  browser?: string | undefined;
  /** Where `REPLAY_EXPORT_BROWSER` is read (default: the process's environment). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /**
   * A started playwright-core `Browser` to use (not closed); `browser` is then ignored. Typed loosely so that the
   * package's types do not need playwright-core.
   */
  browserInstance?: object | undefined;
  /**
   * The longest video made, in ms of video (default 1 hour): a longer one is refused before any frame
   * (`VIDEO_TOO_LONG`), so that a recording's timestamps cannot ask for days of rendering.
   */
  maxLengthMs?: number | undefined;
  /**
   * The largest event rendered, in bytes (default 16 MiB, far below an export's 256 MiB: Chromium crashed at
   * 6.85 GB on a 200 MiB text node); a larger one fails the render (`VIDEO_EVENT_TOO_LARGE`, naming its index).
   */
  maxEventBytes?: number | undefined;
  /** How long the player pages may take to load the replay (default 2 minutes; then `VIDEO_LOAD_TIMEOUT`). */
  loadTimeoutMs?: number | undefined;
  /** Shown in the player page's title (the replay id). */
  title?: string | undefined;
  onProgress?: ((progress: VideoProgress) => void) | undefined;
  signal?: AbortSignal | undefined;
}

export interface VideoResult {
  file: string;
  format: VideoFormat;
  width: number;
  height: number;
  fps: number;
  frames: number;
  /** The video's length in ms (frames / fps). */
  durationMs: number;
  /** The replay's range rendered, in ms from its start. */
  from: number;
  to: number;
  /** Requests the page tried to make (each refused); empty for a safe replay. */
  refusedRequests: string[];
  /** Events rrweb could not apply (skipped by the player, the render going on); 0 for a sound recording. */
  skippedEvents: number;
}

export const VIDEO_DEFAULTS = Object.freeze({
  fps: 10,
  speed: 1,
  skipInactivity: true,
  maxSize: Object.freeze({ width: 1280, height: 800 }),
  maxLengthMs: 3_600_000,
  maxEventBytes: 16 * 1024 * 1024,
  loadTimeoutMs: 120_000,
});

/** The options' numbers, checked, with their defaults. */
type Limits = Record<'fps' | 'speed' | 'maxLengthMs' | 'maxEventBytes' | 'loadTimeoutMs', number>;

function positive(name: string, value: number, max = Number.POSITIVE_INFINITY): number {
  if (!Number.isFinite(value) || value <= 0 || value > max)
    throw new VideoError(
      'VIDEO_BAD_OPTION',
      `${name} must be a number above 0${Number.isFinite(max) ? `, at most ${max}` : ''}: ${value}`,
    );
  return value;
}

function checkOptions(options: RenderOptions): Limits {
  const side = (n: number): boolean => Number.isInteger(n) && n >= 16 && n <= 4096;
  for (const s of [options.size, options.maxSize]) {
    if (s && !(side(s.width) && side(s.height)))
      throw new VideoError('VIDEO_BAD_OPTION', `--size must be WIDTHxHEIGHT, 16 to 4096 each: ${s.width}x${s.height}`);
  }
  return {
    fps: positive('--fps', options.fps ?? VIDEO_DEFAULTS.fps, 60),
    speed: positive('--speed', options.speed ?? VIDEO_DEFAULTS.speed, 360),
    maxLengthMs: positive('--max-length', options.maxLengthMs ?? VIDEO_DEFAULTS.maxLengthMs),
    maxEventBytes: positive('--max-event-size', options.maxEventBytes ?? VIDEO_DEFAULTS.maxEventBytes),
    loadTimeoutMs: positive('the load time limit', options.loadTimeoutMs ?? VIDEO_DEFAULTS.loadTimeoutMs),
  };
}

const even = (n: number): number => Math.max(16, Math.floor(n / 2) * 2);

/** `size`, or `viewport` fitted into `max` (never scaled up), in even numbers. */
export function videoSize(viewport: VideoSize, size: VideoSize | undefined, max: VideoSize): VideoSize {
  if (size) return { width: even(size.width), height: even(size.height) };
  const scale = Math.min(1, max.width / viewport.width, max.height / viewport.height);
  return { width: even(viewport.width * scale), height: even(viewport.height * scale) };
}

/** What the page tells of the replay: its times and interactions, the first recorded viewport. */
interface PageFacts extends Timeline {
  ready: boolean;
  /** Every event's time, ms from the start, ascending. */
  times: number[];
  first: VideoSize;
}

/** Read in the player page from its events (rrweb: incremental sources 1–5 are user interactions; Meta has the size). */
function readFacts(): PageFacts {
  const w = globalThis as unknown as PlayerPageGlobals;
  const events = w.replayEvents;
  const ready = w.document.body.getAttribute('data-ready') === 'true';
  const meta = ready ? w.replayer.getMetaData() : { startTime: 0, endTime: 0 };
  const interactions: number[] = [];
  const times: number[] = [];
  const first = { width: 0, height: 0 };
  for (const e of events) {
    if (!e) continue;
    if (typeof e.timestamp === 'number') times.push(e.timestamp - meta.startTime);
    if (!e.data) continue;
    const source = e.data.source;
    if (e.type === 3 && typeof source === 'number' && source > 0 && source <= 5) interactions.push(e.timestamp);
    if (!first.width && e.type === 4 && Number(e.data.width) > 0 && Number(e.data.height) > 0) {
      Object.assign(first, { width: Number(e.data.width), height: Number(e.data.height) });
    }
  }
  interactions.sort((a, b) => a - b);
  times.sort((a, b) => a - b);
  return { ready, times, start: meta.startTime, end: meta.endTime, interactions, first };
}

/** The recorded viewport assumed when the events give none. */
const DEFAULT_VIEWPORT: VideoSize = { width: 1280, height: 800 };

/** Player pages capturing frames at once (see capture.ts). */
const PAGES = 2;
/** Frames captured or encoded at once, at most. */
const IN_FLIGHT = 8;

/**
 * Player page styles for rendering: no transition or animation of the player's own elements (the mouse); the stage
 * (the replay's area) at the window's top left corner, the replay's frame without its border, so that the player
 * (opened with no controls, its area the window's size) fits the frame to the whole window.
 */
const RENDER_STYLE =
  '.replayer-mouse,.replayer-mouse::after{transition:none!important;animation:none!important}' +
  '#stage{margin:0!important;max-width:none!important}#stage iframe{border:0!important}';

/** Waits until the player has taken every event (it says so on its body), then gives the page `css`. */
async function loadedWith(css: string): Promise<void> {
  const w = globalThis as unknown as PlayerPageGlobals;
  const body = w.document.body;
  if (body.getAttribute('data-loaded') !== 'true') {
    await new Promise<void>((resolve) => {
      const observer = new w.MutationObserver(() => {
        if (body.getAttribute('data-loaded') !== 'true') return;
        observer.disconnect();
        resolve();
      });
      observer.observe(body, { attributes: true, attributeFilter: ['data-loaded'] });
    });
  }
  const style = w.document.createElement('style');
  style.textContent = css;
  w.document.head.appendChild(style);
  // The player fits the replay again on a resize: at once, with these styles.
  w.dispatchEvent(new w.Event('resize'));
}

/**
 * The player page at `url`, paused, every canvas frame given to the Replayer, the replay's area `window`'s size.
 * (Waited for with `evaluate`, not `waitForSelector`, which first loads playwright's own script into the page.)
 */
async function preparePage(page: Page, url: string, window: VideoSize, loadTimeoutMs: number): Promise<PageFacts> {
  const load = async (): Promise<PageFacts> => {
    await page.goto(`${url}?paused&canvas=all&controls=0&width=${window.width}&height=${window.height}`, {
      timeout: 0,
    });
    await page.evaluate(loadedWith, RENDER_STYLE);
    return page.evaluate(readFacts);
  };
  const facts = await withinTime(load(), loadTimeoutMs);
  if (!facts.ready) throw new VideoError('VIDEO_EMPTY', 'the replay has nothing to play (fewer than two events)');
  return facts;
}

/** `work`, or `VIDEO_LOAD_TIMEOUT` once `ms` have passed (the page goes on loading until its context closes). */
async function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new VideoError(
            'VIDEO_LOAD_TIMEOUT',
            `the player page did not load the replay within ${Math.round(ms / 1000)} s: the recording is too heavy to play`,
          ),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}

/** A context where only the given file URLs load; every other request is refused and recorded. */
async function offlineContext(
  browser: Browser,
  allowed: readonly string[],
  viewport: VideoSize,
): Promise<{ context: BrowserContext; refused: string[] }> {
  const context = await browser.newContext({
    viewport,
    deviceScaleFactor: 1,
    serviceWorkers: 'block',
    acceptDownloads: false,
  });
  const refused: string[] = [];
  await context.route('**', (route) => {
    const url = route
      .request()
      .url()
      .replace(/[?#].*$/, '');
    if (allowed.includes(url)) return route.continue();
    refused.push(route.request().url());
    return route.abort();
  });
  context.on('request', (request) => {
    const url = request.url();
    if (!/^(file|data|blob):/.test(url) && !refused.includes(url)) refused.push(url);
  });
  return { context, refused };
}

/**
 * Renders the events (compact JSON, one Buffer each, in batches or one by one) as a video at `options.out`.
 * Memory: the events are streamed into the page's file, the frames one at a time to the encoder and the file.
 */
export async function renderEvents(
  events: AsyncIterable<Buffer | readonly Buffer[]>,
  options: RenderOptions,
): Promise<VideoResult> {
  return renderReplay({ events }, options);
}

/** A replay to render: its events, and its captured assets when it has some. */
type ReplaySource = Omit<OpenedSource, 'close'>;

/** What a render holds open, closed at its end whatever happened. */
interface Held {
  browser?: Browser | undefined;
  context?: BrowserContext | undefined;
  encoder?: FrameEncoder | undefined;
}

/** The browser side of a render, ready: the first player page loaded, the encoder page, more pages loading. */
interface OpenPages {
  context: BrowserContext;
  page: Page;
  helpers: Promise<Page>[];
  encoderPage: EncoderPage;
  facts: PageFacts;
  /** The player pages' window: the recording's first viewport fitted to the video's size. */
  window: VideoSize;
  refused: string[];
}

/** What to render: the video's size, its stretches and frame count. */
interface Plan {
  size: VideoSize;
  parts: Segment[];
  frames: number;
}

/** `renderEvents`, the replay's captured assets (when given) embedded in its page and played instead of their URLs. */
export async function renderReplay(replay: ReplaySource, options: RenderOptions): Promise<VideoResult> {
  const format = formatOf(options.out);
  const limits = checkOptions(options);
  const out = resolve(options.out);
  const work = await mkdtemp(join(tmpdir(), 'replay-video-'));
  const partial = join(dirname(out), `.${Date.now().toString(36)}-${process.pid}.partial${extname(out)}`);
  const held: Held = {};
  try {
    const pages = await openPages(work, replay, options, limits, held);
    const plan = planFrames(pages.facts, options, limits);
    const encoder = await pages.encoderPage.open({ format, ...plan.size, fps: limits.fps, path: partial });
    held.encoder = encoder;
    await captureFrames(pages, plan, encoder, limits.fps, options);
    const skippedEvents = await pages.page.evaluate(skippedInPage);
    await encoder.finish();
    held.encoder = undefined;
    await rename(partial, out);
    const { fps } = limits;
    return {
      file: out,
      format,
      ...plan.size,
      fps,
      frames: plan.frames,
      durationMs: (plan.frames * 1000) / fps,
      from: plan.parts[0]!.from,
      to: plan.parts[plan.parts.length - 1]!.to,
      refusedRequests: pages.refused,
      skippedEvents,
    };
  } catch (err) {
    await held.encoder?.cancel();
    await rm(partial, { force: true });
    throw err;
  } finally {
    await held.context?.close().catch(() => undefined);
    if (held.browser && !options.browserInstance) await held.browser.close().catch(() => undefined);
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Writes the player page while the browser starts, then opens the offline context, the first player page (loaded,
 * its facts read), the encoder page, and the helper pages (loading; capture.ts). What it opens goes into `held`.
 */
async function openPages(
  work: string,
  replay: ReplaySource,
  options: RenderOptions,
  limits: Limits,
  held: Held,
): Promise<OpenPages> {
  const encoderFile = join(work, 'encoder.html');
  const firstViewport = new FirstViewport();
  const [written, started] = await Promise.allSettled([
    (async () => {
      await writeFile(
        encoderFile,
        `<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>encoder</title>`,
      );
      return writePlayerPage(work, options.title ?? 'replay', replay, firstViewport, limits.maxEventBytes);
    })(),
    options.browserInstance
      ? Promise.resolve(options.browserInstance as Browser)
      : launchBrowser(options.browser, options.env),
  ]);
  if (started.status === 'fulfilled') held.browser = started.value;
  if (written.status === 'rejected') throw written.reason;
  if (started.status === 'rejected') throw started.reason;
  const pageUrl = pathToFileURL(written.value).href;
  const encoderUrl = pathToFileURL(encoderFile).href;
  // Read from the events as they were written; the page's reading (facts) is the authority.
  const seen = firstViewport.size ?? DEFAULT_VIEWPORT;
  const window = fitted(seen, videoSize(seen, options.size, options.maxSize ?? VIDEO_DEFAULTS.maxSize));
  const { context, refused } = await offlineContext(held.browser!, [pageUrl, encoderUrl], window);
  held.context = context;
  await context.addInitScript(trackCanvasDecodes);
  const page = await context.newPage();
  // More pages capture frames with the first once loaded (capture.ts): frames come ~25% faster on two cores. They
  // are helpers only: should one fail to load, the others capture every frame.
  const helpers = Array.from({ length: PAGES - 1 }, async () => {
    const helper = await context.newPage();
    await preparePage(helper, pageUrl, window, limits.loadTimeoutMs);
    return helper;
  });
  for (const helper of helpers) helper.catch(() => undefined);
  const [facts, encoderPage] = await Promise.all([
    preparePage(page, pageUrl, window, limits.loadTimeoutMs),
    loadEncoder(context, encoderUrl),
  ]);
  return { context, page, helpers, encoderPage, facts, window, refused };
}

/** The video's size and stretches from the page's facts; refuses an empty range and a video over the length limit. */
function planFrames(facts: PageFacts, options: RenderOptions, limits: Limits): Plan {
  const viewport = facts.first.width ? facts.first : DEFAULT_VIEWPORT;
  const size = videoSize(viewport, options.size, options.maxSize ?? VIDEO_DEFAULTS.maxSize);
  const from = offsetOf(options.from, facts.start);
  const to = offsetOf(options.to, facts.start);
  if (
    (from !== undefined && to !== undefined && to <= from) ||
    (to !== undefined && to <= 0) ||
    (from !== undefined && from >= facts.end - facts.start)
  ) {
    throw new VideoError(
      'VIDEO_EMPTY',
      `the range asked for (--from ${from ?? 0} ms, --to ${to ?? 'end'} ms) holds none of the replay's ${facts.end - facts.start} ms`,
    );
  }
  const events = facts.times.map((t) => t + facts.start);
  const skipInactivity = options.skipInactivity ?? VIDEO_DEFAULTS.skipInactivity;
  const parts = segments({ ...facts, events }, { fps: limits.fps, speed: limits.speed, skipInactivity, from, to });
  const length = videoLength(parts);
  if (length > limits.maxLengthMs) {
    throw new VideoError(
      'VIDEO_TOO_LONG',
      `the video would last ${formatClock(length)}, over the limit of ${formatClock(limits.maxLengthMs)}: raise --max-length, or render a part with --from/--to`,
    );
  }
  return { size, parts, frames: frameCount(parts, limits.fps) };
}

/** Read in the player page: how many events rrweb could not apply (the player skipped them). */
function skippedInPage(): number {
  const body = (globalThis as unknown as { document: { body: { getAttribute(name: string): string | null } } }).document
    .body;
  return Number(body.getAttribute('data-skipped') ?? 0);
}

/** h:mm:ss of `ms`. */
function formatClock(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * Captures every frame and gives it to the encoder, in order: at most IN_FLIGHT being captured or encoded at once.
 * What a paused Replayer shows depends on the events up to its time only: with no event since the last frame
 * captured, that frame is shown again (neither seek nor capture, nor a JPEG sent to the encoder).
 */
async function captureFrames(
  pages: OpenPages,
  plan: Plan,
  encoder: FrameEncoder,
  fps: number,
  options: RenderOptions,
): Promise<void> {
  const { context, facts } = pages;
  const capture = await FrameCapture.open(context, [pages.page], plan.size, pages.window);
  for (const helper of pages.helpers) void helper.then((h) => capture.join(context, h)).catch(() => undefined);
  let index = 0;
  let encoding: Promise<void> = Promise.resolve();
  const inFlight: Promise<void>[] = [];
  let next = 0;
  let shown = -1;
  for (const t of frameOffsets(plan.parts, fps)) {
    if (options.signal?.aborted) throw new InterruptedError('the video was stopped before its end');
    while (next < facts.times.length && facts.times[next]! <= t) next++;
    const shot = index === 0 || next !== shown ? capture.take(t) : undefined;
    shot?.catch(() => undefined); // seen when its turn to be encoded comes
    shown = next;
    const k = index++;
    // Each frame goes to the encoder once captured (the encoder takes them in index order), while the next ones are
    // captured; progress is told in order.
    const encoded = shot !== undefined ? shot.then((jpeg) => encoder.add(jpeg, k)) : encoder.again(k);
    encoded.catch(() => undefined); // seen through `encoding`
    encoding = Promise.all([encoding, encoded]).then(() => {
      options.onProgress?.({ frame: k + 1, frames: plan.frames, offset: t });
    });
    encoding.catch(() => undefined); // seen below, or by the last `await encoding`
    inFlight.push(encoding);
    if (inFlight.length > IN_FLIGHT) await inFlight.shift();
  }
  await encoding;
}

/**
 * Writes the events as the one-page player (`--format html`) into `dir`, with the captured assets that are stored
 * embedded (copied into `dir`'s own assets folder first, one at a time, each checked against its digest); returns
 * the page's path.
 */
async function writePlayerPage(
  dir: string,
  title: string,
  replay: ReplaySource,
  first: FirstViewport,
  maxEventBytes: number,
): Promise<string> {
  const sink = createLocalSink(dir);
  try {
    const writer = await sink.open(title, { format: 'html', gzip: false });
    let batch: Buffer[] = [];
    let bytes = 0;
    let index = 0;
    for await (const item of replay.events) {
      for (const b of Buffer.isBuffer(item) ? [item] : (item as readonly Buffer[])) {
        if (b.length > maxEventBytes) throw eventTooLarge(index, b.length, maxEventBytes);
        index++;
        first.see(b);
        batch.push(b);
        bytes += b.length;
      }
      if (bytes >= 1 << 20) {
        await writer.write(batch);
        batch = [];
        bytes = 0;
      }
    }
    if (batch.length > 0) await writer.write(batch);
    const assets =
      replay.assets && sink.putAsset && (await copyAssets({ putAsset: sink.putAsset.bind(sink) }, replay.assets));
    const result = await writer.commit(assets ? { assets } : {});
    return join(dir, result.key);
  } finally {
    await sink.close();
  }
}

function eventTooLarge(index: number, bytes: number, max: number): VideoError {
  const mib = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`;
  return new VideoError(
    'VIDEO_EVENT_TOO_LARGE',
    `event ${index} is ${mib(bytes)}, over the video's limit of ${mib(max)} (a browser cannot play it in bounded memory): raise --max-event-size to try`,
    { index },
  );
}

/** Copies the stored assets of `captured` into `sink`; returns the map of those (an asset gone is left out). */
async function copyAssets(
  sink: Required<Pick<Sink, 'putAsset'>>,
  captured: CapturedAssets,
): Promise<ReplayAssets | undefined> {
  const urls: Record<string, string> = {};
  const stored = new Set<string>();
  for (const [url, digest] of Object.entries(captured.map.urls)) {
    if (!stored.has(digest)) {
      const body = await captured.read(digest);
      if (body === undefined) continue;
      const chunks: Buffer[] = [];
      for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
      await sink.putAsset(digest, captured.map.types[digest] ?? 'application/octet-stream', Buffer.concat(chunks));
      stored.add(digest);
    }
    urls[url] = digest;
  }
  return stored.size > 0 ? { urls, types: captured.map.types } : undefined;
}
