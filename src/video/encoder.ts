/**
 * Encoding and muxing: the frames (JPEG screenshots) are encoded by WebCodecs' `VideoEncoder` in a blank page of the
 * same browser (H.264 for MP4, VP9 for WebM), and the encoded packets muxed into the file by `mediabunny` (pure
 * TypeScript, an optional dependency) in Node, written as they come: nothing holds the whole video.
 */
import type { BrowserContext, Page } from 'playwright-core';
import type { VideoFormat } from './defaults.js';
import { VideoError } from './errors.js';
import { missingPackagesMessage } from '../util/peer-packages.js';

/** One encoded packet, as the encoder page hands it over. */
interface Packet {
  data: string;
  key: boolean;
  timestamp: number;
  duration: number;
  config?: {
    codec: string;
    codedWidth: number;
    codedHeight: number;
    description?: string;
    colorSpace?: Record<string, unknown>;
  };
}

/** What the encoder page hands back: the packets made so far, or the encoder's failure. */
interface Taken {
  failure: string | null;
  packets: Packet[];
}

/**
 * The encoder page's code (run by the driver, so the page's CSP, which allows no script, does not apply). Frames may
 * arrive out of order (each is sent once captured, while earlier ones are still being captured or sent): each JPEG is
 * decoded as it arrives, and the frames are drawn and encoded in index order. A call returns once its frame is given
 * to the encoder, with the packets made so far.
 */
const ENCODER_SCRIPT = `(() => {
  const out = [];
  const jobs = new Map();
  let failure = null, canvas, ctx, encoder, W, H, next = 0, running = false;
  const b64 = (view) => {
    const u = new Uint8Array(view.buffer || view, view.byteOffset || 0, view.byteLength);
    let s = '';
    for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
    return btoa(s);
  };
  const take = () => ({ failure, packets: out.splice(0) });
  const pump = async () => {
    if (running) return;
    running = true;
    while (jobs.has(next)) {
      const job = jobs.get(next);
      jobs.delete(next);
      try {
        if (!failure) await job.run();
      } catch (e) {
        failure = String(e);
      }
      next++;
      job.resolve(take());
    }
    running = false;
  };
  const enqueue = (index, run) => new Promise((resolve) => {
    jobs.set(index, { run, resolve });
    pump();
  });
  const encode = async (timestamp, duration, keyFrame) => {
    const frame = new VideoFrame(canvas, { timestamp, duration });
    encoder.encode(frame, { keyFrame });
    frame.close();
    while (encoder.encodeQueueSize > 2) await new Promise((r) => encoder.addEventListener('dequeue', r, { once: true }));
  };
  globalThis.__video = {
    async start(width, height, config) {
      if (typeof VideoEncoder !== 'function') return 'no WebCodecs VideoEncoder';
      const support = await VideoEncoder.isConfigSupported(config);
      if (!support.supported) return 'this browser cannot encode ' + config.codec;
      W = width; H = height;
      canvas = new OffscreenCanvas(W, H);
      ctx = canvas.getContext('2d', { alpha: false });
      encoder = new VideoEncoder({
        output(chunk, meta) {
          const data = new Uint8Array(chunk.byteLength);
          chunk.copyTo(data);
          const p = { data: b64(data), key: chunk.type === 'key', timestamp: chunk.timestamp, duration: chunk.duration || 0 };
          const d = meta && meta.decoderConfig;
          if (d) {
            p.config = { codec: d.codec, codedWidth: d.codedWidth, codedHeight: d.codedHeight };
            if (d.description) p.config.description = b64(d.description);
            if (d.colorSpace) p.config.colorSpace = { primaries: d.colorSpace.primaries, transfer: d.colorSpace.transfer, matrix: d.colorSpace.matrix, fullRange: d.colorSpace.fullRange };
          }
          out.push(p);
        },
        error(e) { failure = String(e); },
      });
      encoder.configure(config);
      return '';
    },
    frame(index, jpeg, timestamp, duration, keyFrame) {
      const bin = atob(jpeg), bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      const decoding = createImageBitmap(new Blob([bytes], { type: 'image/jpeg' }));
      decoding.catch(() => {});
      return enqueue(index, async () => {
        const image = await decoding;
        const scale = Math.min(W / image.width, H / image.height), w = image.width * scale, h = image.height * scale;
        ctx.fillStyle = '#000';
        ctx.fillRect(0, 0, W, H);
        ctx.drawImage(image, (W - w) / 2, (H - h) / 2, w, h);
        image.close();
        await encode(timestamp, duration, keyFrame);
      });
    },
    again(index, timestamp, duration, keyFrame) {
      return enqueue(index, () => encode(timestamp, duration, keyFrame));
    },
    async finish() {
      await encoder.flush();
      encoder.close();
      return take();
    },
  };
})()`;

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
  return { open: (options) => openEncoder(mb, page, options) };
}

/** Starts the encoder of `page` writing `format` at `width`×`height`, `fps`, into the file at `path`. */
async function openEncoder(
  mb: Mediabunny,
  page: Page,
  options: { format: VideoFormat; width: number; height: number; fps: number; path: string },
): Promise<FrameEncoder> {
  const { format, width, height, fps } = options;
  const config = {
    codec: codecOf(format, width, height),
    width,
    height,
    framerate: fps,
    // Half a bit per pixel per frame: at a quarter, dense text rang visibly around every glyph.
    bitrate: Math.max(500_000, Math.round(width * height * fps * 0.5)),
    latencyMode: 'quality',
    ...(format === 'mp4' ? { avc: { format: 'avc' } } : {}),
  };
  const refused = await page.evaluate(([w, h, c]) => (globalThis as any).__video.start(w, h, c) as Promise<string>, [
    width,
    height,
    config,
  ] as const);
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

  const write = async (packets: Packet[]): Promise<void> => {
    for (const p of packets) {
      const packet = new mb.EncodedPacket(
        Buffer.from(p.data, 'base64'),
        p.key ? 'key' : 'delta',
        p.timestamp / 1e6,
        (p.duration || frameUs) / 1e6,
      );
      const c = p.config;
      const meta = c
        ? {
            decoderConfig: {
              codec: c.codec,
              codedWidth: c.codedWidth,
              codedHeight: c.codedHeight,
              ...(c.description !== undefined ? { description: Buffer.from(c.description, 'base64') } : {}),
              ...(c.colorSpace !== undefined ? { colorSpace: c.colorSpace } : {}),
            },
          }
        : undefined;
      await source.add(packet, meta as never);
    }
  };
  /** The packets the encoder page gave back; its failure (the encoder's error callback, or the call's) as a VideoError. */
  const call = async (run: () => Promise<Taken>): Promise<Packet[]> => {
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
  };
  // What frame k's call gave back is written once frame k − 1's is: the page takes the packets in frame order, and
  // the calls' answers may come back in another.
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
  const written = async (index: number, packets: Packet[]): Promise<void> => {
    await turn(index - 1).done;
    turns.delete(index - 1);
    await write(packets);
    turn(index).pass();
  };
  return {
    async add(jpeg, index) {
      const args = [index, jpeg, Math.round(index * frameUs), Math.round(frameUs), index % keyEvery === 0] as const;
      await written(
        index,
        await call(() =>
          page.evaluate(([i, j, t, d, k]) => (globalThis as any).__video.frame(i, j, t, d, k) as Promise<Taken>, args),
        ),
      );
    },
    async again(index) {
      const args = [index, Math.round(index * frameUs), Math.round(frameUs), index % keyEvery === 0] as const;
      await written(
        index,
        await call(() =>
          page.evaluate(([i, t, d, k]) => (globalThis as any).__video.again(i, t, d, k) as Promise<Taken>, args),
        ),
      );
    },
    async finish() {
      // Called once every frame's call has settled: all written.
      await write(await call(() => page.evaluate(() => (globalThis as any).__video.finish() as Promise<Taken>)));
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
