/**
 * `view`: a web server (on 127.0.0.1 unless told otherwise) that browses one archive. Routes (GET and HEAD only):
 * - `/` the index (filters and paging in the query),
 * - `/replays/<id>` the replay page: the shared player's small shell (sinks/player-page.ts `playerShell`),
 * - `/replays/<id>/events.ndjson` the replay's events, one a line, streamed from the stored object,
 * - `/player/<version>/<file>` the shared player's files, once for every replay (cached for good: the version is a
 *   hash of their content),
 * - `/assets/<sha256>` a captured asset (`--capture-assets`), fetched by the player of a replay that references it,
 * - `/replays/<id>/video.mp4` the replay rendered as a video, when the server was given a renderer (video.ts).
 * Ids are looked up in the manifest, never joined into paths; the Host header must name this server (DNS rebinding:
 * host-names.ts);
 * every answer carries a Content-Security-Policy. node:http alone: five routes need no router.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIPv6, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type { ReplayStatus } from '../../sinks/sink.js';
import {
  type CatalogueOptions,
  type CatalogueQuery,
  CatalogueError,
  DEFAULT_SORT,
  parseSort,
} from '../catalogue/index.js';
import { DECODE_LIMITS } from '../../decoders/limits.js';
import type { EntryOptions } from '../pipeline/run.js';
import { SinkError } from '../../sinks/errors.js';
import { ViewError } from './errors.js';
import { INDEX_CSP, securityHeaders, send } from './answer.js';
import { allowedHosts, checkHostNames, hostOf, isLoopback } from './host-names.js';
import { renderIndex } from './index-page.js';
import { videoRoute, type VideoRoute, type ViewVideo } from './video.js';
import { type CataloguedSource, openArchiveSource } from './archive-source.js';
import { SHELL_CSP, sharedPlayer } from './shared-player.js';
import { storedNdjson } from './stored-events.js';

export const VIEW_DEFAULTS = Object.freeze({
  port: 0,
  pageSize: 100,
  maxPageSize: 1000,
  maxEventBytes: DECODE_LIMITS.maxEventBytes,
  maxReplayBytes: DECODE_LIMITS.maxReplayBytes,
});

/**
 * The archive to serve and how: a run's options — the archive `out` (a local folder, path or `file://` URL, or
 * `s3://bucket/prefix` with `sinkOptions.s3`), `maxEventBytes` (largest event of a stored replay, counted as it
 * streams) and `maxReplayBytes` (the most bytes a stored replay may hold once inflated: a gzip bomb is cut there, 413
 * or a cut response) — or an open `run`; and the server's own options.
 */
export interface ViewServerOptions extends EntryOptions {
  /** Port (0: any free port). */
  port?: number | undefined;
  /**
   * The address to listen on (default 127.0.0.1). The server has no authentication: anyone who can reach another
   * address reads the archive. `0.0.0.0` / `::`: every interface.
   */
  host?: string | undefined;
  /** More names the Host header may give (a container's service name, a DNS name), with or without a port. */
  allowHosts?: readonly string[] | undefined;
  /** Videos of the replays (video.ts): a renderer (a link in each row of the index), or why there is none. */
  video?: ViewVideo | undefined;
  /** Where the archive's catalogue is cached (default: the run's `catalogueDir`), a hook told when it is built. */
  catalogue?: CatalogueOptions | undefined;
}

export interface ViewServer {
  /** `http://<address>:<port>/` (bound to every interface: `http://127.0.0.1:<port>/`) */
  readonly url: string;
  readonly port: number;
  /** The bound address. */
  readonly address: string;
  /** Whether it is a loopback address (else anyone who can reach it reads the archive). */
  readonly loopback: boolean;
  /** The hosts the Host header may name, sorted. */
  readonly hosts: readonly string[];
  /** Replays in the archive's manifest. */
  readonly replays: number;
  close(): Promise<void>;
}

const STATUSES: readonly string[] = ['ok', 'failed', 'quarantined', 'empty', 'skipped', 'forgotten'];
const DAY_MS = 86_400_000;

class BadRequest extends Error {}

function dateParam(value: string, name: string, endOfDay: boolean): number {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const ms = Date.parse(day ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(ms)) throw new BadRequest(`${name} is not a date`);
  return day && endOfDay ? ms + DAY_MS : ms;
}

function numberParam(value: string, name: string): number {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new BadRequest(`${name} is not a non-negative number`);
  return Number(value);
}

/** The index's query and page from a query string; `BadRequest` for a value that is not one. */
export function parseIndexQuery(params: URLSearchParams): { query: CatalogueQuery; page: number; pageSize: number } {
  const query: CatalogueQuery = {};
  const get = (name: string): string | undefined => {
    const v = params.get(name);
    return v === null || v === '' ? undefined : v;
  };
  const q = get('q');
  if (q !== undefined) query.text = q;
  for (const name of ['user', 'device', 'session', 'url'] as const) {
    const v = get(name);
    if (v !== undefined) query[name] = v;
  }
  const flags = { errors: 'errors', rage: 'rageClicks', dead: 'deadClicks', failed: 'failedRequests' } as const;
  for (const [name, field] of Object.entries(flags)) {
    const v = get(name);
    if (v === undefined) continue;
    if (v !== '1' && v !== 'on') throw new BadRequest(`${name} must be 1`);
    query[field] = true;
  }
  const sort = get('sort') ?? DEFAULT_SORT;
  try {
    parseSort(sort);
  } catch (err) {
    if (err instanceof CatalogueError) throw new BadRequest(err.message);
    throw err;
  }
  query.sort = sort;
  const status = get('status');
  if (status !== undefined) {
    if (!STATUSES.includes(status))
      throw new BadRequest('status must be ok, failed, quarantined, empty, skipped or forgotten');
    query.status = status as ReplayStatus;
  }
  const from = get('from');
  if (from !== undefined) query.from = dateParam(from, 'from', false);
  const to = get('to');
  if (to !== undefined) query.to = dateParam(to, 'to', true);
  const min = get('min');
  if (min !== undefined) query.minDurationMs = numberParam(min, 'min') * 1000;
  const max = get('max');
  if (max !== undefined) query.maxDurationMs = numberParam(max, 'max') * 1000;
  const page = get('page') === undefined ? 1 : numberParam(get('page')!, 'page');
  const pageSize = get('pageSize') === undefined ? VIEW_DEFAULTS.pageSize : numberParam(get('pageSize')!, 'pageSize');
  if (!Number.isSafeInteger(page) || page < 1) throw new BadRequest('page must be a positive integer');
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > VIEW_DEFAULTS.maxPageSize) {
    throw new BadRequest(`pageSize must be an integer from 1 to ${VIEW_DEFAULTS.maxPageSize}`);
  }
  return { query, page, pageSize };
}

function errorStatus(err: unknown): number {
  if (err instanceof ViewError && err.code === 'VIEW_TOO_LARGE') return 413;
  return err instanceof ViewError || err instanceof SinkError ? 502 : 500;
}

/** What the routes answer from: the archive, its index, the shared player, videos, the limits of a replay read. */
interface Routes {
  source: CataloguedSource;
  player: ReturnType<typeof sharedPlayer>;
  videos: VideoRoute;
  title: string;
  limits: { maxEventBytes: number; maxReplayBytes: number };
}

/** Answers one request (GET or HEAD, Host checked by the caller). */
async function route(routes: Routes, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rawUrl = req.url ?? '';
  if (!rawUrl.startsWith('/')) return send(res, 400, 'bad request\n');
  const url = new URL(rawUrl, 'http://127.0.0.1');
  const parts = url.pathname.split('/');
  if (parts[1] === 'player') return answerPlayerFile(routes, parts, res);
  if (parts[1] === 'assets') return answerAsset(routes, parts, req, res);
  if (url.pathname === '/') return answerIndex(routes, url, res);
  const sub = parts[3];
  if (
    parts[1] !== 'replays' ||
    parts.length < 3 ||
    parts.length > 4 ||
    (sub !== undefined && sub !== 'events.ndjson' && sub !== 'video.mp4')
  ) {
    return send(res, 404, 'not found\n');
  }
  let id: string;
  try {
    id = decodeURIComponent(parts[2]!);
  } catch {
    return send(res, 400, 'bad replay id\n');
  }
  return answerReplay(routes, id, sub, req, res);
}

/** `/player/<version>/<file>`: the shared player's files, cached for good. */
function answerPlayerFile(routes: Routes, parts: readonly string[], res: ServerResponse): void {
  const { player } = routes;
  const file = parts.length === 4 && parts[2] === player.version ? player.files[parts[3]!] : undefined;
  if (file === undefined) {
    send(res, 404, 'not found\n');
    return;
  }
  res.writeHead(200, {
    'content-type': file.type,
    'content-length': file.body.length,
    ...securityHeaders(INDEX_CSP),
    'cache-control': 'public, max-age=31536000, immutable',
  });
  res.end(res.req.method === 'HEAD' ? undefined : file.body);
}

/** `/assets/<sha256>`: a captured asset, by its digest (never a path): bytes only, the player gives them their type. */
async function answerAsset(
  routes: Routes,
  parts: readonly string[],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = parts.length === 3 ? await routes.source.readAsset(parts[2]!) : undefined;
  if (body === undefined) return send(res, 404, 'not found\n');
  res.writeHead(200, { 'content-type': 'application/octet-stream', ...securityHeaders(INDEX_CSP) });
  if (req.method === 'HEAD') {
    body.destroy();
    res.end();
    return;
  }
  await pipeline(body, res);
}

/** `/`: the index, filtered and paged by the query. */
function answerIndex(routes: Routes, url: URL, res: ServerResponse): void {
  let asked: ReturnType<typeof parseIndexQuery>;
  try {
    asked = parseIndexQuery(url.searchParams);
  } catch (err) {
    if (!(err instanceof BadRequest)) throw err;
    send(res, 400, `${err.message}\n`);
    return;
  }
  const page = routes.source.catalogue.page(asked.query, asked.page, asked.pageSize);
  const shown = { params: url.searchParams, sort: asked.query.sort ?? DEFAULT_SORT, videos: routes.videos.available };
  send(res, 200, renderIndex(routes.title, shown, page), 'text/html; charset=utf-8');
}

/** `/replays/<id>` (the player's shell), `/replays/<id>/events.ndjson` (the events), `/replays/<id>/video.mp4`. */
async function answerReplay(
  routes: Routes,
  id: string,
  sub: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { source } = routes;
  const row = source.catalogue.get(id);
  if (row === undefined) return send(res, 404, 'no such replay in this archive\n');
  if (sub === 'video.mp4') {
    if (row.stored === undefined) return send(res, 404, 'this replay has no stored events\n');
    return routes.videos.answer(id, req, res);
  }
  const object = row.stored === undefined ? undefined : await source.open(row.stored);
  if (object === undefined) return send(res, 404, 'this replay has no stored events\n');
  // The page and HEAD only need to know that it opens: closed at once (a generator never started would not close it).
  if (sub === undefined || req.method === 'HEAD') {
    object.body.destroy();
    await finished(object.body).catch(() => undefined);
  }
  if (sub === undefined) {
    const eventsUrl = `/replays/${encodeURIComponent(id)}/events.ndjson`;
    const assets = row.hasAssets ? await source.assetsOf(id) : undefined;
    const shell = routes.player.shell(`Replay ${id}`, eventsUrl, assets);
    return send(res, 200, shell, 'text/html; charset=utf-8', SHELL_CSP);
  }
  const ndjson = 'application/x-ndjson; charset=utf-8';
  if (req.method === 'HEAD') {
    res.writeHead(200, { 'content-type': ndjson, ...securityHeaders(INDEX_CSP) });
    res.end();
    return;
  }
  // The first chunk before the status: a replay refused at once (not an array, over a limit) gets its error status.
  const chunks = storedNdjson(object.body, object.format, object.gzip, object.key, routes.limits);
  const first = await chunks.next();
  res.writeHead(200, { 'content-type': ndjson, ...securityHeaders(INDEX_CSP) });
  await pipeline(Readable.from(prepend(first, chunks), { objectMode: false }), res);
}

/** Listens on `host`:`port`; rejects (the archive closed) when it cannot. */
async function listen(server: Server, port: number, host: string, source: CataloguedSource): Promise<void> {
  await new Promise<void>((ok, fail) => {
    server.once('error', (err) => {
      void source.close();
      fail(err);
    });
    server.listen(port, host, () => {
      server.off('error', fail);
      ok();
    });
  });
}

/** Starts the server; resolves once it listens. */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  checkHostNames(options.allowHosts ?? []);
  const source = await openArchiveSource(options, options.catalogue ?? {});
  const routes: Routes = {
    source,
    player: sharedPlayer(),
    videos: videoRoute(options.video),
    title: `replay-export view: ${source.label}`,
    limits: { maxEventBytes: source.settings.maxEventBytes, maxReplayBytes: source.settings.maxReplayBytes },
  };
  let hosts = new Set<string>();
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer((req, res) => {
    const answered = async (): Promise<void> => {
      if (!hosts.has(hostOf(req.headers.host) ?? '')) return send(res, 421, 'unknown host\n');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        return send(res, 405, 'method not allowed\n');
      }
      return route(routes, req, res);
    };
    answered().catch((err: unknown) => {
      // Once the answer has begun, an error (a replay found over a limit on the way) cuts it short: the client sees
      // an incomplete answer, never a complete-looking part of a replay.
      if (!res.headersSent) send(res, errorStatus(err), `${err instanceof Error ? err.message : 'error'}\n`);
      else res.destroy(err instanceof Error ? err : undefined);
    });
  });
  await listen(server, options.port ?? VIEW_DEFAULTS.port, host, source);
  const { port, address } = server.address() as AddressInfo;
  hosts = allowedHosts(address, host, options.allowHosts);
  const urlHost = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : isIPv6(address) ? `[${address}]` : address;
  return {
    url: `http://${urlHost}:${port}/`,
    port,
    address,
    loopback: isLoopback(address),
    hosts: [...hosts].sort(),
    replays: source.catalogue.size,
    close: async () => {
      await routes.videos.close();
      await new Promise<void>((ok, fail) => {
        server.closeAllConnections();
        server.close((err) => (err ? fail(err) : ok()));
      });
      await source.close();
    },
  };
}

/** `rest` with its `first` result (already taken) in front. */
async function* prepend(first: IteratorResult<Buffer>, rest: AsyncGenerator<Buffer>): AsyncGenerator<Buffer> {
  if (first.done === true) return;
  yield first.value;
  yield* rest;
}
