/**
 * A video is bounded whatever the recording says (issue #40, item 3), in Chromium: two events 30 days apart make a
 * video of seconds (25.9 M frames were planned), a video over `maxLengthMs` is refused before any frame
 * (`VIDEO_TOO_LONG`), an event over the video's `maxEventBytes` fails with `VIDEO_EVENT_TOO_LARGE` naming it, a page
 * that does not load in its time is `VIDEO_LOAD_TIMEOUT`, not a hang, and an event rrweb cannot apply (a
 * StyleSheetRule event naming the document, node 1) is skipped and counted: the video is made.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../src/video/browser.js';
import { renderVideo, VideoError } from '../../src/video/index.js';
import { sample } from '../player/helpers.js';
import { readVideo } from './helpers.js';

type Ev = { type: number; data: Record<string, unknown>; timestamp: number };

let browser: Browser;
let dir: string;
let base: Ev[];

beforeAll(async () => {
  browser = await launchBrowser();
  dir = await mkdtemp(join(tmpdir(), 'replay-export-video-bounds-'));
  base = (await sample('form-typing')).events as Ev[];
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function* given(events: readonly Ev[]): AsyncGenerator<Buffer> {
  for (const e of events) yield Buffer.from(JSON.stringify(e));
}

/** The sample's first events (Meta and the full snapshot): a page to show. */
const opening = (): Ev[] => base.filter((e) => e.type === 4 || e.type === 2).slice(0, 2);

const failure = async (work: Promise<unknown>): Promise<VideoError> => {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VideoError);
  return err as VideoError;
};

describe('video bounds', () => {
  it('two events 30 days apart: the stretch with no event lasts 5 s of video', async () => {
    const [meta, full] = opening();
    const later: Ev = {
      type: 3,
      data: { source: 1, positions: [{ x: 5, y: 5, id: 1, timeOffset: 0 }] },
      timestamp: full!.timestamp + 30 * 86_400_000,
    };
    const out = join(dir, 'thirty-days.mp4');
    const result = await renderVideo({ events: given([meta!, full!, later]) }, { out, browserInstance: browser });
    expect(result.to - result.from).toBe(later.timestamp - meta!.timestamp);
    expect(result.frames).toBeLessThanOrEqual(52);
    expect((await readVideo(out)).packets).toBe(result.frames);
  }, 120_000);

  it('a video longer than maxLengthMs is refused before any frame, naming --max-length', async () => {
    const events = base.slice();
    const err = await failure(
      renderVideo(
        { events: given(events) },
        { out: join(dir, 'long.mp4'), browserInstance: browser, maxLengthMs: 1000 },
      ),
    );
    expect(err.code).toBe('VIDEO_TOO_LONG');
    expect(err.message).toMatch(/--max-length/);
    expect(err.category).toBe('data');
  }, 120_000);

  it('an event over maxEventBytes fails the render with VIDEO_EVENT_TOO_LARGE and its index', async () => {
    const [meta, full] = opening();
    const big: Ev = {
      type: 3,
      data: {
        source: 0,
        adds: [],
        removes: [],
        attributes: [],
        texts: [{ id: 5, value: 'x'.repeat(2 * 1024 * 1024) }],
      },
      timestamp: full!.timestamp + 100,
    };
    const err = await failure(
      renderVideo(
        { events: given([meta!, full!, big]) },
        { out: join(dir, 'big.mp4'), browserInstance: browser, maxEventBytes: 1024 * 1024 },
      ),
    );
    expect(err.code).toBe('VIDEO_EVENT_TOO_LARGE');
    expect(err.index).toBe(2);
  }, 120_000);

  it('a page that does not load in its time is VIDEO_LOAD_TIMEOUT', async () => {
    const err = await failure(
      renderVideo({ events: given(base) }, { out: join(dir, 'slow.mp4'), browserInstance: browser, loadTimeoutMs: 1 }),
    );
    expect(err.code).toBe('VIDEO_LOAD_TIMEOUT');
  }, 120_000);

  it('an event rrweb cannot apply (a StyleSheetRule naming node 1) is skipped and counted; the video is made', async () => {
    const [meta, full] = opening();
    const t = full!.timestamp;
    // A mutation first, in the same frame (10 fps): rrweb applies what a seek passes to its virtual DOM once a mutation
    // is among it, and there the document has no rules to push to.
    const mutation: Ev = {
      type: 3,
      data: { source: 0, adds: [], removes: [], texts: [], attributes: [{ id: 15, attributes: { 'data-x': '1' } }] },
      timestamp: t + 510,
    };
    const rule: Ev = {
      type: 3,
      data: { source: 8, id: 1, adds: [{ rule: 'body{color:red}', index: 0 }] },
      timestamp: t + 520,
    };
    const after: Ev = {
      type: 3,
      data: { source: 1, positions: [{ x: 9, y: 9, id: 1, timeOffset: 0 }] },
      timestamp: t + 1500,
    };
    const out = join(dir, 'skipped.mp4');
    const result = await renderVideo(
      { events: given([meta!, full!, mutation, rule, after]) },
      { out, browserInstance: browser },
    );
    expect(result.skippedEvents).toBeGreaterThanOrEqual(1);
    expect((await readVideo(out)).packets).toBe(result.frames);
  }, 120_000);
});
