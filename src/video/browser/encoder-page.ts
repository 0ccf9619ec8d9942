/**
 * The encoder page's code (built into ../encoder-script.ts by `npm run build:inlined`, evaluated by the driver, so
 * the page's CSP, which allows no script, does not apply): WebCodecs' VideoEncoder fed from an OffscreenCanvas, its
 * packets handed over base64 (encoder-api.ts).
 */
import type { EncoderConfig, EncoderPageApi, EncoderPageGlobal, Packet, PacketConfig, Taken } from './encoder-api.js';

/** One frame's work, run in index order, and the resolution of its call. */
interface Job {
  run: () => Promise<void>;
  resolve: (taken: Taken) => void;
}

/** The canvas frames are drawn on, its context, and the encoder. */
interface Surface {
  canvas: OffscreenCanvas;
  ctx: OffscreenCanvasRenderingContext2D;
  encoder: VideoEncoder;
}

const packetsOut: Packet[] = [];
const jobs = new Map<number, Job>();
let failure: string | null = null;
let surface: Surface | undefined;
let nextIndex = 0;
let pumping = false;

/** Base64 of bytes (in slices: `String.fromCharCode` takes its arguments on the stack). */
function base64Of(source: AllowSharedBufferSource): string {
  const u = ArrayBuffer.isView(source)
    ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength)
    : new Uint8Array(source);
  let s = '';
  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode(...u.subarray(i, i + 0x8000));
  return btoa(s);
}

/** The packets made since the last call, and the failure if any. */
function takePackets(): Taken {
  return { failure, packets: packetsOut.splice(0) };
}

/** Runs the jobs in index order, as far as they have arrived. */
async function pump(): Promise<void> {
  if (pumping) return;
  pumping = true;
  for (let job = jobs.get(nextIndex); job !== undefined; job = jobs.get(nextIndex)) {
    jobs.delete(nextIndex);
    try {
      if (failure === null) await job.run();
    } catch (e) {
      failure = String(e);
    }
    nextIndex++;
    job.resolve(takePackets());
  }
  pumping = false;
}

function enqueue(index: number, run: () => Promise<void>): Promise<Taken> {
  return new Promise((resolve) => {
    jobs.set(index, { run, resolve });
    void pump();
  });
}

/** The surface once started; before, undefined and the call's failure said. */
function started(): Surface | undefined {
  if (surface === undefined) failure ??= 'the encoder is not started';
  return surface;
}

/** Encodes the canvas as it is; waits while the encoder holds more than 2 frames. */
async function encodeCanvas(timestamp: number, duration: number, keyFrame: boolean): Promise<void> {
  const s = started();
  if (s === undefined) return;
  const { canvas, encoder } = s;
  const videoFrame = new VideoFrame(canvas, { timestamp, duration });
  encoder.encode(videoFrame, { keyFrame });
  videoFrame.close();
  while (encoder.encodeQueueSize > 2) await new Promise((r) => encoder.addEventListener('dequeue', r, { once: true }));
}

/** The packet of an encoded chunk, with its decoder configuration when the encoder gave one. */
function packetOf(chunk: EncodedVideoChunk, meta: EncodedVideoChunkMetadata | undefined): Packet {
  const data = new Uint8Array(chunk.byteLength);
  chunk.copyTo(data);
  const packet: Packet = {
    data: base64Of(data),
    key: chunk.type === 'key',
    timestamp: chunk.timestamp,
    duration: chunk.duration ?? 0,
  };
  const d = meta?.decoderConfig;
  if (d !== undefined) {
    const config: PacketConfig = { codec: d.codec, codedWidth: d.codedWidth, codedHeight: d.codedHeight };
    if (d.description !== undefined) config.description = base64Of(d.description);
    const c = d.colorSpace;
    if (c !== undefined)
      config.colorSpace = { primaries: c.primaries, transfer: c.transfer, matrix: c.matrix, fullRange: c.fullRange };
    packet.config = config;
  }
  return packet;
}

async function start(width: number, height: number, config: EncoderConfig): Promise<string> {
  if (typeof VideoEncoder !== 'function') return 'no WebCodecs VideoEncoder';
  const support = await VideoEncoder.isConfigSupported(config);
  if (!support.supported) return `this browser cannot encode ${config.codec}`;
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d', { alpha: false });
  if (ctx === null) return 'no 2D canvas';
  const encoder = new VideoEncoder({
    output: (chunk, meta) => packetsOut.push(packetOf(chunk, meta)),
    error: (e) => {
      failure = String(e);
    },
  });
  encoder.configure(config);
  surface = { canvas, ctx, encoder };
  return '';
}

/** Draws `image` scaled to fit the canvas, centred on black. */
function draw(image: ImageBitmap): void {
  const s = started();
  if (s === undefined) return;
  const { canvas, ctx } = s;
  const W = canvas.width;
  const H = canvas.height;
  const scale = Math.min(W / image.width, H / image.height);
  const w = image.width * scale;
  const h = image.height * scale;
  ctx.fillStyle = '#000';
  ctx.fillRect(0, 0, W, H);
  ctx.drawImage(image, (W - w) / 2, (H - h) / 2, w, h);
}

function addFrame(index: number, jpeg: string, timestamp: number, duration: number, keyFrame: boolean): Promise<Taken> {
  const bin = atob(jpeg);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const decoding = createImageBitmap(new Blob([bytes], { type: 'image/jpeg' }));
  decoding.catch(() => undefined); // seen when its turn comes
  return enqueue(index, async () => {
    const image = await decoding;
    draw(image);
    image.close();
    await encodeCanvas(timestamp, duration, keyFrame);
  });
}

async function finish(): Promise<Taken> {
  const s = started();
  if (s === undefined) return takePackets();
  await s.encoder.flush();
  s.encoder.close();
  return takePackets();
}

const api: EncoderPageApi = {
  start,
  frame: addFrame,
  again: (index, timestamp, duration, keyFrame) => enqueue(index, () => encodeCanvas(timestamp, duration, keyFrame)),
  finish,
};
const pageGlobal: EncoderPageGlobal = { __video: api };
Object.assign(globalThis, pageGlobal);
