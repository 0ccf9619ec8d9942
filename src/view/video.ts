/**
 * `/replays/<id>/video.mp4`: the replay rendered as an MP4 and sent as a download. The view cannot render (the video
 * export sits a floor above it and needs a browser): whoever starts the server gives it a renderer, or the reason
 * there is none (bin/cli/view-video.ts detects a browser once, at start). One render at a time (another request meanwhile:
 * 429); each into a fresh folder of the OS temp dir (never the archive), removed once sent; a client that goes away
 * stops its render, and so does closing the server.
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
export function videoFileName(id: string): string {
  return `${id.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || 'replay'}.mp4`;
}

/** An error's HTTP status: a bad recording 422, a missing browser or encoder 503, anything else 500. */
function renderStatus(err: unknown): number {
  if (!(err instanceof ReplayExportError)) return 500;
  return err.category === 'data' ? 422 : err.category === 'usage' ? 503 : 500;
}

export function videoRoute(video: ViewVideo | undefined): VideoRoute {
  const stop = new AbortController();
  let busy: Promise<void> | undefined;
  return {
    available: video?.available === true,
    async answer(id, req, res) {
      if (video === undefined) return send(res, 404, 'this server renders no videos\n');
      if (!video.available) return send(res, 503, `no video: ${video.reason}\n`);
      if (busy !== undefined) {
        res.setHeader('retry-after', '30');
        return send(res, 429, 'another video is being rendered (one at a time); try again when it is done\n');
      }
      const head = {
        'content-type': 'video/mp4',
        'content-disposition': `attachment; filename="${videoFileName(id)}"`,
        ...securityHeaders(INDEX_CSP),
      };
      if (req.method === 'HEAD') {
        res.writeHead(200, head);
        res.end();
        return;
      }
      let done!: () => void;
      busy = new Promise((resolve) => (done = resolve));
      const gone = new AbortController();
      const onClose = (): void => gone.abort(new Error('the client went away'));
      res.on('close', onClose);
      let dir: string | undefined;
      try {
        dir = await mkdtemp(join(tmpdir(), 'replay-export-view-video-'));
        const out = join(dir, videoFileName(id));
        try {
          await video.render(id, out, AbortSignal.any([stop.signal, gone.signal]));
        } catch (err) {
          if (gone.signal.aborted || res.destroyed) return;
          return send(
            res,
            renderStatus(err),
            `could not render the video of ${id}: ${err instanceof Error ? err.message : String(err)}\n`,
          );
        }
        const { size } = await stat(out);
        res.writeHead(200, { ...head, 'content-length': size });
        await pipeline(createReadStream(out), res);
      } finally {
        res.off('close', onClose);
        if (dir !== undefined) await rm(dir, { recursive: true, force: true });
        busy = undefined;
        done();
      }
    },
    async close() {
      stop.abort(new Error('the view server is closing'));
      await busy;
    },
  };
}
