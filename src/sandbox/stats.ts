/** Counters of what the sandbox answered, readable in-process (`stats()`) and at `GET /__sandbox/stats`. */
export type SandboxStats = ReturnType<typeof emptyStats>;

/** Every counter at 0. */
export function emptyStats() {
  return {
    /** Requests to /api/1/... (any outcome). */
    apiRequests: 0,
    listRequests: 0,
    filesRequests: 0,
    /** Requests to /__storage/... (any outcome). */
    storageRequests: 0,
    /** Storage downloads whose whole body was sent. */
    filesServed: 0,
    bytesServed: 0,
    unauthorized: 0,
    badRequests: 0,
    notFound: 0,
    rateLimited: 0,
    serverErrors: 0,
    resets: 0,
    /** Storage downloads answered with a redirect (`redirectEvery`). */
    redirects: 0,
    /** 403 answers of the storage route (expired or bad signature). */
    forbidden: 0,
    /** The part of `forbidden` that was "Request has expired". */
    expired: 0,
    controlRequests: 0,
  };
}
