/** Options every client method takes. */
export interface CallOptions {
  /** Aborts the call wherever it is (queued, in flight, waiting to retry). */
  signal?: AbortSignal;
}

/** Spreads a signal into a request spec only when one was given (exactOptionalPropertyTypes-friendly). */
export function withSignal(o: CallOptions | undefined): { signal?: AbortSignal } {
  return o?.signal ? { signal: o.signal } : {};
}
