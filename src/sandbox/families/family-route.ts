import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * How a request of a family authenticates. `basic` (API key, secret key) and `bearer` (the management key) are checked
 * by the server before `handle`; `api_key` (a query or form parameter, so possibly inside the body) is checked by the
 * family itself, which throws `ApiRequestError` 401 when it is missing or wrong.
 */
type FamilyAuth = 'basic' | 'bearer' | 'api_key';

/** The keys a family checks itself (`api_key` auth). */
export interface FamilyKeys {
  readonly apiKey: string;
}

/** One API family served by the sandbox: which paths are its own, how they authenticate, and how it answers them. */
export interface FamilyRoute {
  readonly family: string;
  matches(path: string, query: URLSearchParams): boolean;
  /** The auth of a request to `path` (a family may mix styles: user mapping does). Default `basic`. */
  auth?(path: string): FamilyAuth;
  /** The client's family name of a request to `path`, for the arrival log (default `family`). */
  clientFamily?(path: string): string;
  /**
   * Called when the request arrives, before the sandbox's added latency: a family whose limits hold for the whole
   * request (taxonomy's concurrent cost) charges them here. True when it answered (refused) the request.
   */
  arrive?(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): boolean;
  /**
   * Answers a 429 of the host's concurrency limit in the family's own error shape (taxonomy's failure body); default:
   * the API's error object.
   */
  refuse?(res: ServerResponse, message: string, retryAfterSeconds: number): void;
  /** Answers the request; may throw `ApiRequestError` (sent by the server as the API's JSON error). */
  handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void>;
}
