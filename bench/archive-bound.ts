/**
 * The fastest an archive run can be, given the requests it makes, the latency of each request and the concurrency
 * caps the pipeline and the transport use. Every request costs at least the latency L and holds one slot of its
 * cap for that long, so:
 *   T_api   = ceil(A / c_api) · L        A list + files requests share the transport's `replay` cap c_api
 *   T_store = ceil(S / c_sto) · L        S downloads share the transport's `storage` cap c_sto
 *   T_chain = ceil(R / C) · (f + ceil(F / w)) · L
 *                                        each of the C replay workers takes a replay, lists its files (f requests)
 *                                        and downloads its F files w = min(filesAhead + 1, c_sto) at a time
 *   bound   = L + max(T_api, T_store, T_chain)      (+ L: nothing starts before the first list page arrives)
 */

export interface BoundInput {
  latencyMs: number;
  replays: number;
  listRequests: number;
  filesRequests: number;
  storageRequests: number;
  /** Replays exported at once (PIPELINE_DEFAULTS.concurrency). */
  concurrency: number;
  /** Files of one replay downloading at once: the current one + PIPELINE_DEFAULTS.filesAhead. */
  filesInFlight: number;
  /** Transport caps (DEFAULT_CONCURRENCY). */
  apiCap: number;
  storageCap: number;
}

export interface Bound {
  ms: number;
  apiMs: number;
  storageMs: number;
  chainMs: number;
  /** The formula with the numbers put in. */
  explanation: string[];
}

export function archiveBound(i: BoundInput): Bound {
  const L = i.latencyMs;
  const api = i.listRequests + i.filesRequests;
  const apiMs = Math.ceil(api / i.apiCap) * L;
  const storageMs = Math.ceil(i.storageRequests / i.storageCap) * L;
  const filesPerReplay = i.storageRequests / i.replays;
  const filesReqPerReplay = i.filesRequests / i.replays;
  const w = Math.min(i.filesInFlight, i.storageCap);
  const perReplay = (Math.ceil(filesReqPerReplay) + Math.ceil(filesPerReplay / w)) * L;
  const chainMs = Math.ceil(i.replays / i.concurrency) * perReplay;
  const ms = L + Math.max(apiMs, storageMs, chainMs);
  return {
    ms,
    apiMs,
    storageMs,
    chainMs,
    explanation: [
      `every request waits L = ${L} ms and holds a slot of its cap meanwhile; the run made ${i.listRequests} list + ${i.filesRequests} files requests and ${i.storageRequests} downloads for ${i.replays} replays`,
      `T_api   = ceil((list + files) / replay cap) · L = ceil(${api} / ${i.apiCap}) · ${L} = ${apiMs} ms`,
      `T_store = ceil(downloads / storage cap) · L = ceil(${i.storageRequests} / ${i.storageCap}) · ${L} = ${storageMs} ms`,
      `T_chain = ceil(replays / concurrency) · (files requests per replay + ceil(files per replay / min(filesAhead + 1, storage cap))) · L`,
      `        = ceil(${i.replays} / ${i.concurrency}) · (${Math.ceil(filesReqPerReplay)} + ceil(${filesPerReplay} / ${w})) · ${L} = ${chainMs} ms`,
      `bound   = L (first list page) + max(T_api, T_store, T_chain) = ${L} + ${Math.max(apiMs, storageMs, chainMs)} = ${ms} ms`,
    ],
  };
}
