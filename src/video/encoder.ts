/**
 * Encoding and muxing: the frames (JPEG screenshots) are encoded by WebCodecs' `VideoEncoder` in a blank page of the
 * same browser (H.264 for MP4, VP9 for WebM), and the encoded packets muxed into the file by `mediabunny` (pure
 * TypeScript, an optional dependency) in Node, written as they come: nothing holds the whole video.
 */
import type { BrowserContext, JSHandle, Page } from 'playwright-core';
import type {
  EncoderConfig,
  EncoderPageApi,
  EncoderPageGlobal,
  Packet,
  PacketConfig,
  Taken,
} from './browser/encoder-api.js';
import type { VideoFormat } from './defaults.js';
import { ENCODER_SCRIPT } from './encoder-script.js';
import { VideoError } from './errors.js';
import { missingPackagesMessage } from '../util/peer-packages.js';

type Mediabunny = typeof import('mediabunny');

async function loadMediabunny(): Promise<Mediabunny> {
  try {
    return await import('mediabunny');
  } catch (err) {
    throw new VideoError('VIDEO_NO_ENCODER', missingPackagesMessage(['mediabunny']), { cause: err });
  }
}

/** The WebCodecs codec string for a format and size (H.264 High at level 4.0 up to 1080p, 5.1 above). */
function codecOf(format: VideoFormat, width: number, height: number): string {
  if (format === 'webm') return 'vp09.00.10.08';
  return width * height <= 1920 * 1088 ? 'avc1.640028' : 'avc1.640033';
}

/**
 * Frames are given by index, each once (0, 1, 2, …), in any order and several at once: they are encoded in index order.
 * A call settles once its frame is encoded and what the encoder gave back so far is written.
 */
export interface FrameEncoder {
  /** Encodes a frame (a JPEG, base64) shown from `index / fps` for `1 / fps` and writes what the encoder gave back. */
  add(jpeg: string, index: number): Promise<void>;
  /** Encodes the frame before `index` again, shown from `index / fps` (nothing is sent to the browser but the call). */
  again(index: number): Promise<void>;
  /** Flushes the encoder and finishes the file. */
  finish(): Promise<void>;
  /** Stops without finishing (the file is left incomplete for the caller to remove). */
  cancel(): Promise<void>;
}

/** The encoder's page, loaded (while the player page loads; closed with its context); `open` starts encoding once the size is known. */
export interface EncoderPage {
  open(options: {
    format: VideoFormat;
    width: number;
    height: number;
    fps: number;
    path: string;
  }): Promise<FrameEncoder>;
}

/** Loads the encoder page at `pageUrl` in `context`, and the muxer. */
export async function loadEncoder(context: BrowserContext, pageUrl: string): Promise<EncoderPage> {
  const [mb, page] = await Promise.all([
    loadMediabunny(),
    (async () => {
      const page = await context.newPage();
      await page.goto(pageUrl);
      await page.evaluate(ENCODER_SCRIPT);
      return page;
    })(),
  ]);
  const api = await page.evaluateHandle(() => (globalThis as unknown as EncoderPageGlobal).__video);
  return { open: (options) => openEncoder(mb, { page, api }, options) };
}

/** The encoder page and its interface (browser/encoder-page.ts). */
interface EncoderTab {
  page: Page;
  api: JSHandle<EncoderPageApi>;
}

/** The page encoder's configuration for a format, size and rate. */
function encoderConfig(format: VideoFormat, width: number, height: number, fps: number): EncoderConfig {
  return {
    codec: codecOf(format, width, height),
    width,
    height,
    framerate: fps,
    // Half a bit per pixel per frame: at a quarter, dense text rang visibly around every glyph.
    bitrate: Math.max(500_000, Math.round(width * height * fps * 0.5)),
    latencyMode: 'quality',
    ...(format === 'mp4' ? { avc: { format: 'avc' } } : {}),
  };
}

type DecoderConfig = NonNullable<
  NonNullable<Parameters<InstanceType<Mediabunny['EncodedVideoPacketSource']>['add']>[1]>['decoderConfig']
>;

/** The muxer's decoder configuration for a packet's (its description's bytes decoded). */
function decoderConfigOf(c: PacketConfig): DecoderConfig {
  const { description, ...rest } = c;
  return description === undefined ? rest : { ...rest, description: Buffer.from(description, 'base64') };
}

/** Adds the page's packets to the muxer's track `source` (a packet without a duration lasts a frame, `frameUs`). */
function packetWriter(
  mb: Mediabunny,
  source: InstanceType<Mediabunny['EncodedVideoPacketSource']>,
  frameUs: number,
): (packets: Packet[]) => Promise<void> {
  return async (packets) => {
    for (const p of packets) {
      const packet = new mb.EncodedPacket(
        Buffer.from(p.data, 'base64'),
        p.key ? 'key' : 'delta',
        p.timestamp / 1e6,
        (p.duration || frameUs) / 1e6,
      );
      await source.add(packet, p.config === undefined ? undefined : { decoderConfig: decoderConfigOf(p.config) });
    }
  };
}

/** The packets the encoder page gave back; its failure (the encoder's error callback, or the call's) as a VideoError. */
async function packetsOf(run: () => Promise<Taken>): Promise<Packet[]> {
  let taken: Taken;
  try {
    taken = await run();
  } catch (err) {
    throw new VideoError(
      'VIDEO_RENDER_FAILED',
      `the browser's video encoder failed: ${(err as Error).message.split('\n')[0]}`,
      { cause: err },
    );
  }
  if (taken.failure)
    throw new VideoError('VIDEO_RENDER_FAILED', `the browser's video encoder failed: ${taken.failure}`);
  return taken.packets;
}

/**
 * `written(k, packets)` writes what frame k's call gave back once frame k − 1's is written: the page takes the
 * packets in frame order, and the calls' answers may come back in another.
 */
function inFrameOrder(
  write: (packets: Packet[]) => Promise<void>,
): (index: number, packets: Packet[]) => Promise<void> {
  const turns = new Map<number, { done: Promise<void>; pass: () => void }>();
  const turn = (index: number): { done: Promise<void>; pass: () => void } => {
    let t = turns.get(index);
    if (!t) {
      let pass = (): void => undefined;
      const done = new Promise<void>((resolve) => (pass = resolve));
      t = { done, pass };
      turns.set(index, t);
    }
    return t;
  };
  turn(-1).pass();
  return async (index, packets) => {
    await turn(index - 1).done;
    turns.delete(index - 1);
    await write(packets);
    turn(index).pass();
  };
}

/** Starts the encoder of `page` writing `format` at `width`×`height`, `fps`, into the file at `path`. */
async function openEncoder(
  mb: Mediabunny,
  { page, api }: EncoderTab,
  options: { format: VideoFormat; width: number; height: number; fps: number; path: string },
): Promise<FrameEncoder> {
  const { format, width, height, fps } = options;
  const config = encoderConfig(format, width, height, fps);
  const refused = await api.evaluate((video, [w, h, c]) => video.start(w, h, c), [width, height, config] as const);
  if (refused)
    throw new VideoError(
      'VIDEO_NO_ENCODER',
      `${refused} (${format}); try --out with ${format === 'mp4' ? '.webm' : '.mp4'}`,
    );
  const output = new mb.Output({
    format: format === 'mp4' ? new mb.Mp4OutputFormat() : new mb.WebMOutputFormat(),
    target: new mb.FilePathTarget(options.path),
  });
  const source = new mb.EncodedVideoPacketSource(format === 'mp4' ? 'avc' : 'vp9');
  output.addVideoTrack(source, { frameRate: fps });
  await output.start();
  const keyEvery = Math.max(1, Math.round(fps * 5));
  const frameUs = 1e6 / fps;
  const write = packetWriter(mb, source, frameUs);
  const written = inFrameOrder(write);
  return {
    async add(jpeg, index) {
      const args = [index, jpeg, Math.round(index * frameUs), Math.round(frameUs), index % keyEvery === 0] as const;
      await written(index, await packetsOf(() => api.evaluate((v, [i, j, t, d, k]) => v.frame(i, j, t, d, k), args)));
    },
    async again(index) {
      const args = [index, Math.round(index * frameUs), Math.round(frameUs), index % keyEvery === 0] as const;
      await written(index, await packetsOf(() => api.evaluate((v, [i, t, d, k]) => v.again(i, t, d, k), args)));
    },
    async finish() {
      // Called once every frame's call has settled: all written.
      await write(await packetsOf(() => api.evaluate((v) => v.finish())));
      source.close();
      await output.finalize();
      await page.close();
    },
    async cancel() {
      await output.cancel().catch(() => undefined);
      await page.close().catch(() => undefined);
    },
  };
}
