/** What the video tests share: reading a video back (container parser), a frame's pixels, comparing two images. */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ALL_FORMATS, EncodedPacketSink, FilePathSource, Input } from 'mediabunny';
import type { Browser } from 'playwright-core';

export interface VideoFacts {
  width: number;
  height: number;
  /** Seconds, from the container. */
  duration: number;
  packets: number;
  keyPackets: number;
  codec: string | null;
}

/** Reads a video file back with mediabunny's demuxer: size, duration, every packet counted. */
export async function readVideo(file: string): Promise<VideoFacts> {
  const input = new Input({ source: new FilePathSource(file), formats: ALL_FORMATS });
  try {
    const track = await input.getPrimaryVideoTrack();
    if (!track) throw new Error(`${file}: no video track`);
    let packets = 0;
    let keyPackets = 0;
    for await (const p of new EncodedPacketSink(track).packets()) {
      packets++;
      if (p.type === 'key') keyPackets++;
    }
    return {
      width: track.displayWidth,
      height: track.displayHeight,
      duration: await input.computeDuration(),
      packets,
      keyPackets,
      codec: await track.getCodecParameterString(),
    };
  } finally {
    input.dispose();
  }
}

/**
 * The frame shown at `seconds` of a video, decoded by Chromium's <video> in a page of `dir` (the file is read
 * locally), as a PNG.
 */
export async function videoFrame(browser: Browser, dir: string, file: string, seconds: number): Promise<Buffer> {
  const html = join(dir, 'frame.html');
  await writeFile(
    html,
    `<!doctype html><body style="margin:0;background:#000"><video id="v" muted src="${pathToFileURL(file).href}"></video>`,
  );
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(pathToFileURL(html).href);
    const size = await page.evaluate(async (t) => {
      const v = document.getElementById('v') as HTMLVideoElement;
      if (v.readyState < 1) await new Promise((r) => v.addEventListener('loadedmetadata', r, { once: true }));
      v.currentTime = t;
      await new Promise((r) => v.addEventListener('seeked', r, { once: true }));
      return { width: v.videoWidth, height: v.videoHeight };
    }, seconds);
    await page.setViewportSize(size);
    return await page.locator('#v').screenshot();
  } finally {
    await context.close();
  }
}

/** Pixel difference of two PNGs (drawn at the first one's size): mean absolute difference per channel (0–255) and the share of pixels off by more than 64 in any channel. */
export async function imageDifference(
  browser: Browser,
  a: Buffer,
  b: Buffer,
): Promise<{ mean: number; off: number; width: number; height: number }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    return await page.evaluate(
      async ([x, y]) => {
        const load = async (b64: string): Promise<ImageBitmap> =>
          createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
        const [ia, ib] = [await load(x), await load(y)];
        const w = ia.width;
        const h = ia.height;
        const pixels = (img: ImageBitmap): Uint8ClampedArray => {
          const c = new OffscreenCanvas(w, h);
          const ctx = c.getContext('2d')!;
          ctx.drawImage(img, 0, 0, w, h);
          return ctx.getImageData(0, 0, w, h).data;
        };
        const [pa, pb] = [pixels(ia), pixels(ib)];
        let sum = 0;
        let off = 0;
        for (let i = 0; i < pa.length; i += 4) {
          let worst = 0;
          for (let c = 0; c < 3; c++) {
            const d = Math.abs(pa[i + c]! - pb[i + c]!);
            sum += d;
            worst = Math.max(worst, d);
          }
          if (worst > 64) off++;
        }
        return { mean: sum / ((pa.length / 4) * 3), off: off / (pa.length / 4), width: w, height: h };
      },
      [a.toString('base64'), b.toString('base64')] as const,
    );
  } finally {
    await context.close();
  }
}

/** A sample's events file and its replay id. */
export async function sampleFile(name: string): Promise<{ file: string; id: string }> {
  const dir = join(import.meta.dirname, '..', '..', 'samples');
  const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8')) as {
    replays: { name: string; replay_id: string; expected: string }[];
  };
  const entry = index.replays.find((r) => r.name === name);
  if (!entry) throw new Error(`sample ${name} not in samples/index.json`);
  return { file: join(dir, entry.expected), id: entry.replay_id };
}

/** The colour (r, g, b) of the pixel at `x`, `y` of a PNG. */
export async function pixelAt(browser: Browser, png: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    return await page.evaluate(
      async ([b64, px, py]) => {
        const img = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
        const ctx = new OffscreenCanvas(img.width, img.height).getContext('2d')!;
        ctx.drawImage(img, 0, 0);
        const d = ctx.getImageData(px, py, 1, 1).data;
        return [d[0]!, d[1]!, d[2]!] as [number, number, number];
      },
      [png.toString('base64'), x, y] as const,
    );
  } finally {
    await context.close();
  }
}
