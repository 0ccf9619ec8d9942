import { Transport } from '../http/transport.js';
import type { TransportOptions } from '../http/options.js';
import type { Logger } from '../http/logger.js';
import type { Region } from '../http/regions.js';
import { SessionReplayClient } from '../replay/client.js';
import type { ReplayListApi } from './archive.js';
import type { Downloader, ReplayFilesApi } from './types.js';

/** How to reach the platform. Give credentials (and region/endpoint), or your own transport, or your own client. */
export interface ConnectionOptions {
  apiKey?: string;
  secretKey?: string;
  /** Data-residency region (default `us`). */
  region?: Region;
  /** Base URL replacing the region's host (sandbox, proxy). */
  endpoint?: string;
  /** Further transport settings (retries, timeouts, per-family concurrency caps). */
  transportOptions?: Omit<TransportOptions, 'region' | 'endpoint' | 'credentials' | 'logger'>;
  /** A transport to share (it is not closed by the pipeline). */
  transport?: Transport;
  /** A replay client to use instead of one built on the transport. */
  client?: ReplayListApi & ReplayFilesApi;
  /** A downloader for presigned URLs instead of the transport's. */
  download?: Downloader;
  /**
   * A listing (replays, or a replay's files) returning this many pages in a row with no new replay id or file key
   * is stopped with ListingStalledError (default 3). Applies to the client built here, not to `client`.
   */
  listingStallPages?: number;
  logger?: Logger;
}

export interface Connection {
  client: ReplayListApi & ReplayFilesApi;
  download: Downloader;
  /** Resolves once no replay API request waits for a slot (see ArchiveIo.room); absent without a transport. */
  room?: (signal: AbortSignal) => Promise<void>;
  /** Closes what this connection created (never a caller's transport). */
  close(): Promise<void>;
}

function contentLength(headers: Record<string, string | string[] | undefined>): number | undefined {
  const raw = headers['content-length'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

/** Streams a presigned URL through the transport (no auth header; storage concurrency cap). */
export function transportDownloader(transport: Transport): Downloader {
  return async (url, { signal }) => {
    const res = await transport.download(url, { signal });
    return { chunks: res.body, size: contentLength(res.headers) };
  };
}

export function connect(o: ConnectionOptions): Connection {
  let owned: Transport | undefined;
  const transport = (): Transport => {
    if (o.transport) return o.transport;
    owned ??= new Transport({
      ...(o.transportOptions ?? {}),
      ...(o.region !== undefined ? { region: o.region } : {}),
      ...(o.endpoint !== undefined ? { endpoint: o.endpoint } : {}),
      credentials: {
        ...(o.apiKey !== undefined ? { apiKey: o.apiKey } : {}),
        ...(o.secretKey !== undefined ? { secretKey: o.secretKey } : {}),
      },
      ...(o.logger ? { logger: o.logger } : {}),
    });
    return owned;
  };
  const client =
    o.client ?? new SessionReplayClient(transport(), o.listingStallPages !== undefined ? { stallPages: o.listingStallPages } : {});
  const download = o.download ?? transportDownloader(transport());
  const used = o.transport ?? owned;
  return {
    client,
    download,
    ...(used ? { room: (signal: AbortSignal) => used.room('replay', signal) } : {}),
    close: async () => {
      await owned?.close();
    },
  };
}
