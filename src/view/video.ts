/**
 * `/replays/<id>/video.mp4`: the replay rendered as an MP4 and sent as a download. The view cannot render (the video
 * export sits a floor above it and needs a browser): whoever starts the server gives it a renderer, or the reason
 * there is none (bin/cli/view-video.ts detects a browser once, at start). One render at a time (another request meanwhile:
 * 429), for at most a time limit (10 minutes: then it is stopped, 503); the slot is freed once the file is rendered,
 * not once it is sent (a client holding its download open keeps nobody waiting). Each into a fresh folder of the OS
 * temp dir (never the archive), removed once sent; a client that goes away stops its render, and so does closing the
 * server.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ReplayExportError } from '../errors.js';
import { INDEX_CSP, securityHeaders, send } from './answer.js';

/** What the server is given for videos: a renderer, or why there is none (shown in the route's answer). */
export type ViewVideo =
  | {
      available: true;
      /** Renders replay `replayId` of the archive as the MP4 file `out`; rejects when it cannot (or `signal` aborts). */
      render(replayId: string, out: string, signal: AbortSignal): Promise<void>;
      /** The longest one render may take (default 10 minutes): then it is stopped, and the request answered 503. */
      renderTimeLimitMs?: number | undefined;
      /** A signal aborted once `ms` have passed (default `AbortSignal.timeout`): the route's clock. */
      deadline?: ((ms: number) => AbortSignal) | undefined;
    }
  | { available: false; reason: string };

export interface VideoRoute {
  /** Whether the index offers a video link. */
  readonly available: boolean;
  /** Answers a request for the video of replay `id` (known to have stored events). */
  answer(id: string, req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Stops a render under way and waits for its folder to be removed. */
  close(): Promise<void>;
}

/** A download name from a replay id (its `/` and anything unusual as `_`). */
function videoFileName(id: string): string {
  return `${id.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || 'replay'}.mp4`;
}

/** An error's HTTP status: a bad recording 422, a missing browser or encoder 503, anything else 500. */
function renderStatus(err: unknown): number {
  if (!(err instanceof ReplayExportError)) return 500;
  return err.category === 'data' ? 422 : err.category === 'usage' ? 503 : 500;
}

/** The longest one render may take, unless the renderer says otherwise. */
const RENDER_TIME_LIMIT_MS = 10 * 60_000;

type Renderer = Extract<ViewVideo, { available: true }>;

/** The MP4 answer's headers. */
function videoHeaders(id: string): Record<string, string> {
  return {
    'content-type': 'video/mp4',
    'content-disposition': `attachment; filename="${videoFileName(id)}"`,
    ...securityHeaders(INDEX_CSP),
  };
}

export function videoRoute(video: ViewVideo | undefined): VideoRoute {
  const stop = new AbortController();
  let busy: Promise<void> | undefined;
  /** Holds the one render slot while `work` runs: a request meanwhile is answered 429. */
  const inSlot = async <T>(work: () => Promise<T>): Promise<T> => {
    let done!: () => void;
    busy = new Promise((resolve) => (done = resolve));
    try {
      return await work();
    } finally {
      busy = undefined;
      done();
    }
  };
  return {
    available: video?.available === true,
    async answer(id, req, res) {
      if (video === undefined) return send(res, 404, 'this server renders no videos\n');
      if (!video.available) return send(res, 503, `no video: ${video.reason}\n`);
      if (busy !== undefined) {
        res.setHeader('retry-after', '30');
        return send(res, 429, 'another video is being rendered (one at a time); try again when it is done\n');
      }
      if (req.method === 'HEAD') {
        res.writeHead(200, videoHeaders(id));
        res.end();
        return;
      }
      const gone = new AbortController();
      const onClose = (): void => gone.abort(new Error('the client went away'));
      res.on('close', onClose);
      let dir: string | undefined;
      const out = (): string => join(dir!, videoFileName(id));
      try {
        // The slot is the render's only: a client slow to take its download does not keep others waiting.
        const rendered = await inSlot(async () => {
          dir = await mkdtemp(join(tmpdir(), 'replay-export-view-video-'));
          return renderWithin(video, id, out(), [stop.signal, gone.signal]);
        });
        if (rendered !== true) {
          if (gone.signal.aborted || res.destroyed) return;
          return send(res, rendered.status, rendered.message);
        }
        const { size } = await stat(out());
        res.writeHead(200, { ...videoHeaders(id), 'content-length': size });
        await pipeline(createReadStream(out()), res);
      } finally {
        res.off('close', onClose);
        if (dir !== undefined) await rm(dir, { recursive: true, force: true });
      }
    },
    async close() {
      stop.abort(new Error('the view server is closing'));
      await busy;
    },
  };
}

/** Renders `id` into `out`, stopped by `signals` or the render time limit: true, or the answer to give instead. */
async function renderWithin(
  video: Renderer,
  id: string,
  out: string,
  signals: AbortSignal[],
): Promise<true | { status: number; message: string }> {
  const limit = video.renderTimeLimitMs ?? RENDER_TIME_LIMIT_MS;
  const late = (video.deadline ?? ((ms: number) => AbortSignal.timeout(ms)))(limit);
  try {
    await video.render(id, out, AbortSignal.any([...signals, late]));
    return true;
  } catch (err) {
    if (late.aborted)
      return {
        status: 503,
        message: `the video of ${id} took longer than ${Math.round(limit / 1000)} s to render (the server's limit): its render was stopped\n`,
      };
    return {
      status: renderStatus(err),
      message: `could not render the video of ${id}: ${err instanceof Error ? err.message : String(err)}\n`,
    };
  }
}
