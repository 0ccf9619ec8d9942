/** Counters of what the sandbox answered, readable in-process (`stats()`) and at `GET /__sandbox/stats`. */
export interface SandboxStats {
  /** Requests to /api/1/... (any outcome). */
  apiRequests: number;
  listRequests: number;
  filesRequests: number;
  /** Requests to /__storage/... (any outcome). */
  storageRequests: number;
  /** Storage downloads whose whole body was sent. */
  filesServed: number;
  bytesServed: number;
  unauthorized: number;
  badRequests: number;
  notFound: number;
  rateLimited: number;
  serverErrors: number;
  resets: number;
  /** Storage downloads answered with a redirect (`redirectEvery`). */
  redirects: number;
  /** 403 answers of the storage route (expired or bad signature). */
  forbidden: number;
  /** The part of `forbidden` that was "Request has expired". */
  expired: number;
  controlRequests: number;
}

export function emptyStats(): SandboxStats {
  return {
    apiRequests: 0,
    listRequests: 0,
    filesRequests: 0,
    storageRequests: 0,
    filesServed: 0,
    bytesServed: 0,
    unauthorized: 0,
    badRequests: 0,
    notFound: 0,
    rateLimited: 0,
    serverErrors: 0,
    resets: 0,
    redirects: 0,
    forbidden: 0,
    expired: 0,
    controlRequests: 0,
  };
}
