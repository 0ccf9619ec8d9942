/**
 * `renderVideo` from an archive on S3 (a real s3rver) whose entry has captured assets (`--capture-assets`): the video
 * shows the captured image and stylesheet, served from the archive (the site is gone and the browser has no network);
 * the same events without their assets show neither.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StaticServer } from '../../samples/lib/static-server.js';
import { exportReplay } from '../../src/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { launchBrowser } from '../../src/video/browser.js';
import { renderVideo } from '../../src/video/index.js';
import { capturedPageRecording } from '../assets/captured-page.js';
import { startCapturedS3, type CapturedS3 } from '../assets/captured-s3.js';
import type { recordingSamplesDir } from '../redaction/recording.js';
import { BUCKET, type S3Server } from '../s3-cli/s3-helpers.js';
import { pixelAt, readVideo, videoFrame } from './helpers.js';

let work: { dir: string; cleanup: () => Promise<void> };
let site: StaticServer;
let s3: S3Server;
let sandbox: Sandbox;
let samples: ReturnType<typeof recordingSamplesDir>;
let browser: Browser;
let fixture: CapturedS3;

beforeAll(async () => {
  fixture = await startCapturedS3('video-archive');
  ({ work, site, samples, sandbox, s3 } = fixture);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await fixture?.close(); // the test stops the site itself: close allows that
});

const near = (got: [number, number, number], want: [number, number, number]): boolean =>
  got.every((c, i) => Math.abs(c - want[i]!) <= 24);

describe('renderVideo from an archive on S3', () => {
  it('plays the entry captured assets from the archive; the same events without them show none', async () => {
    const s3Options = {
      endpoint: s3.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      checksums: 'when-required' as const,
    };
    const archive = `s3://${BUCKET}/videos`;
    const entry = await exportReplay(samples.replayId, {
      endpoint: sandbox.url,
      apiKey: sandbox.credentials.apiKey,
      secretKey: sandbox.credentials.secretKey,
      out: archive,
      format: 'ndjson',
      gzip: true,
      captureAssets: [site.origin],
      sinkOptions: { s3: s3Options },
    });
    expect(entry.status).toBe('ok');
    expect(Object.keys((entry as { assets?: object }).assets ?? {})).toHaveLength(3);
    await site.close();

    const before = s3.requests.length;
    const out = join(work.dir, 'captured.mp4');
    const result = await renderVideo(
      { archive: { out: archive, sinkOptions: { s3: s3Options } }, replayId: samples.replayId },
      { out, browserInstance: browser },
    );
    expect(result.refusedRequests).toEqual([]);
    expect({ width: result.width, height: result.height }).toEqual({ width: 400, height: 300 });
    // Read from the bucket: the output and each asset.
    expect(
      s3.requests.slice(before).filter((r) => r.startsWith('GET ') && r.includes('/videos/_assets/')),
    ).toHaveLength(3);
    expect((await readVideo(out)).packets).toBe(result.frames);
    const frame = await videoFrame(browser, work.dir, out, (result.frames - 0.5) / result.fps);
    expect(await pixelAt(browser, frame, 25, 15), 'the captured image').toSatisfy((p: [number, number, number]) =>
      near(p, [0x33, 0x66, 0xcc]),
    );
    expect(await pixelAt(browser, frame, 25, 45), "the captured stylesheet's background image").toSatisfy(
      (p: [number, number, number]) => near(p, [0xcc, 0x33, 0x33]),
    );

    // The same events with no assets: neither shows (a white page where they were).
    async function* given(): AsyncGenerator<Buffer[]> {
      yield capturedPageRecording(site.origin, Date.UTC(2026, 10, 20, 9, 0, 0)).map((e) =>
        Buffer.from(JSON.stringify(e)),
      );
    }
    const bare = join(work.dir, 'bare.mp4');
    const plain = await renderVideo({ events: given() }, { out: bare, browserInstance: browser });
    expect(plain.refusedRequests).toEqual([]);
    const blank = await videoFrame(browser, work.dir, bare, (plain.frames - 0.5) / plain.fps);
    for (const y of [15, 45])
      expect(
        near(await pixelAt(browser, blank, 25, y), [0xcc, 0x33, 0x33]) ||
          near(await pixelAt(browser, blank, 25, y), [0x33, 0x66, 0xcc]),
      ).toBe(false);
  }, 180_000);
});
