/**
 * Typed errors of the transport and the clients built on it.
 *
 * None of them ever holds a secret, an Authorization header value or a presigned URL's query string:
 * paths are redacted (see redact.ts) and body excerpts are scrubbed before they get here.
 */
import { ReplayExportError, type ErrorCategory, type ErrorCode } from '../errors.js';
import { limitNamed, parseErrorBody } from './error-body.js';
import type { LimitKind } from '../util/limit-messages.js';
import type { Region } from './regions.js';

/** Where a request went, as far as it is safe to say. */
export interface RequestContext {
  method: string;
  /** Path with the query, sensitive parameter values replaced by `[REDACTED]`. */
  path: string;
  /** Host (and port) the request went to. */
  host: string;
  /** Configured region (`us`/`eu`); with an `endpoint` override it is still the configured region. */
  region: Region;
  /** Whether an `endpoint` override replaced the region's host. */
  endpointOverride?: boolean;
  /** Retries made before this outcome (0 when the first attempt decided it). */
  retries: number;
}

/**
 * Base class of the errors of src/http, src/replay and src/clients. Category `remote` unless a subclass says
 * otherwise (`AuthError`: `auth`, `ValidationError`: `usage`).
 */
export class HttpClientError extends ReplayExportError {
  constructor(
    message: string,
    code: ErrorCode,
    options?: { cause?: unknown; category?: ErrorCategory; status?: number | undefined },
  ) {
    super(message, { code, category: options?.category ?? 'remote', status: options?.status, cause: options?.cause });
  }
}

/**
 * Base class of the errors about one request (ApiError, NetworkError, TimeoutError): carries where the request
 * went, so that a caller can read the method, path, host, region and retries without parsing the message.
 */
class RequestError extends HttpClientError implements RequestContext {
  readonly method: string;
  readonly path: string;
  readonly host: string;
  readonly region: Region;
  readonly endpointOverride: boolean;
  readonly retries: number;
  constructor(
    message: string,
    code: ErrorCode,
    ctx: RequestContext,
    options?: { cause?: unknown; category?: ErrorCategory; status?: number | undefined },
  ) {
    super(message, code, options);
    this.method = ctx.method;
    this.path = ctx.path;
    this.host = ctx.host;
    this.region = ctx.region;
    this.endpointOverride = ctx.endpointOverride ?? false;
    this.retries = ctx.retries;
  }
}

function where(ctx: RequestContext): string {
  return `${ctx.method} ${ctx.path} on ${ctx.host} (region ${ctx.region}${ctx.endpointOverride ? ', endpoint override' : ''})`;
}

function retried(ctx: RequestContext): string {
  return ctx.retries > 0 ? ` after ${ctx.retries} ${ctx.retries === 1 ? 'retry' : 'retries'}` : '';
}

/** A whole answer as it came (kept on an ApiError when the caller asked to see answers: `api` prints it). */
export interface AnswerSeen {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** The server answered with a status that is not a success. */
export class ApiError extends RequestError {
  declare readonly status: number;
  /** At most 500 characters of the response body, redacted. */
  readonly bodyExcerpt: string;
  /** The whole answer, when the request's `onResponse` asked to see answers (up to the response size cap). */
  answer?: AnswerSeen;
  /** Messages read from a JSON error body (taxonomy `errors[].message`, dashboard `error`); empty when none. */
  readonly serverMessages: readonly string[];

  constructor(
    status: number,
    ctx: RequestContext,
    bodyExcerpt: string,
    message?: string,
    code: ErrorCode = 'API_ERROR',
    category: ErrorCategory = 'remote',
  ) {
    super(
      message ?? `HTTP ${status} from ${where(ctx)}${retried(ctx)}${bodyExcerpt ? `: ${bodyExcerpt}` : ''}`,
      code,
      ctx,
      { status, category },
    );
    this.bodyExcerpt = bodyExcerpt;
    this.serverMessages = parseErrorBody(bodyExcerpt).messages;
  }
}

/**
 * 401/403 from an API host. On this platform a project that lives in the other data centre answers
 * exactly like wrong credentials, so the message always names the region and host used.
 */
export class AuthError extends ApiError {
  constructor(status: number, ctx: RequestContext, bodyExcerpt: string) {
    super(
      status,
      ctx,
      bodyExcerpt,
      `Authentication failed: HTTP ${status} from ${where(ctx)}. ` +
        // With an endpoint override the region does not choose the host: only the keys (and the endpoint) matter.
        (ctx.endpointOverride
          ? `The credentials were rejected by ${ctx.host} (the endpoint given); check the keys for that endpoint.`
          : `The credentials were rejected by ${ctx.host} (region ${ctx.region}); a project in the other data centre ` +
            `answers exactly like bad credentials — check --region (us or eu) before checking the keys.`) +
        (bodyExcerpt ? ` Response: ${bodyExcerpt}` : ''),
      'AUTH_FAILED',
      'auth',
    );
  }
}

/** 429 still answered after the retry budget was spent. */
export class RateLimitError extends ApiError {
  /** The last Retry-After the server sent, in ms (after capping), when it sent one. */
  readonly retryAfterMs: number | undefined;
  /** The limit the body names (the server's words), when it names one. */
  readonly limit: string | undefined;
  /**
   * What the 429 asked for (src/util/limit-messages.ts): `concurrency` (fewer at once) or `rate` (nothing for a
   * while; also the reading of a 429 that names no limit).
   */
  readonly limitKind: LimitKind;
  constructor(
    ctx: RequestContext,
    bodyExcerpt: string,
    retryAfterMs: number | undefined,
    limitKind: LimitKind = 'rate',
  ) {
    super(
      429,
      ctx,
      bodyExcerpt,
      `Rate limited: HTTP 429 from ${where(ctx)}${retried(ctx)}${bodyExcerpt ? `: ${bodyExcerpt}` : ''}`,
      'RATE_LIMITED',
    );
    this.retryAfterMs = retryAfterMs;
    this.limit = limitNamed(this.serverMessages);
    this.limitKind = limitKind;
  }
}

/**
 * A wait the transport would have made (before a retry, or for a family's budget or pause) would take its waits past
 * `retry.maxWaitMs` (`--max-wait`), so the request stops here. Before a retry, `cause` is the error of the answer
 * that asked for the wait (a RateLimitError for a 429), whose status and server messages it carries.
 */
export class WaitLimitExceededError extends RequestError {
  declare readonly status: number | undefined;
  readonly serverMessages: readonly string[];
  /** The wait that was not made, the waits already made, and the bound, ms. */
  readonly waitMs: number;
  readonly waitedMs: number;
  readonly maxWaitMs: number;
  /** What the wait was for: `retry`, or the budget (or pause) that held the request back. */
  readonly waitFor: string;
  constructor(
    ctx: RequestContext,
    wait: { ms: number; for: string; cause?: Error },
    waitedMs: number,
    maxWaitMs: number,
  ) {
    const cause = wait.cause;
    const status = cause instanceof ApiError ? cause.status : undefined;
    super(
      `Stopped before waiting ${wait.ms} ms (${wait.for}) for ${where(ctx)}: the waits would pass the maximum of ${maxWaitMs} ms ` +
        `(${waitedMs} ms waited so far)${cause !== undefined ? `. Last answer: ${cause.message}` : ''}`,
      'MAX_WAIT_EXCEEDED',
      ctx,
      { cause, status },
    );
    this.serverMessages = cause instanceof ApiError ? cause.serverMessages : [];
    this.waitMs = wait.ms;
    this.waitedMs = waitedMs;
    this.maxWaitMs = maxWaitMs;
    this.waitFor = wait.for;
  }
}

/**
 * A presigned object-storage URL was refused (403): it expired (`Request has expired`) or was
 * otherwise denied. The caller should fetch a fresh URL (re-request the files page) and try again.
 */
export class UrlExpiredError extends ApiError {
  /** Decoded URL path of the object (never the query). */
  readonly key: string;
  /** Whether the body said so explicitly (`<Code>AccessDenied</Code>` / `Request has expired`). */
  readonly expired: boolean;
  constructor(ctx: RequestContext, key: string, bodyExcerpt: string, expired: boolean) {
    super(
      403,
      ctx,
      bodyExcerpt,
      `Presigned URL refused (HTTP 403${expired ? ', expired' : ''}) for object ${key} on ${ctx.host}; fetch a fresh URL`,
      'URL_EXPIRED',
    );
    this.key = key;
    this.expired = expired;
  }
}

/**
 * Object storage answered a presigned download with a redirect (3xx). A presigned URL names the object itself, so a
 * redirect is not followed (it could lead anywhere) and not retried (the same URL gets the same answer).
 */
export class StorageRedirectError extends ApiError {
  /** Decoded URL path of the object (never the query). */
  readonly key: string;
  constructor(status: number, ctx: RequestContext, key: string) {
    super(
      status,
      ctx,
      '',
      `Object storage answered HTTP ${status} (a redirect) for object ${key} on ${ctx.host}; presigned downloads are not redirected, so it is neither followed nor retried`,
      'STORAGE_REDIRECT',
    );
    this.key = key;
  }
}

/** The connection failed before a complete response (reset, refused, closed socket, DNS). */
export class NetworkError extends RequestError {
  /** System or undici error code (`ECONNRESET`, `UND_ERR_SOCKET`, ...). */
  readonly causeCode: string | undefined;
  constructor(ctx: RequestContext, causeCode: string | undefined, causeMessage: string, options?: { cause?: unknown }) {
    super(
      `Network error (${causeCode ?? 'unknown'}) on ${where(ctx)}${retried(ctx)}: ${causeMessage}`,
      'NETWORK_ERROR',
      ctx,
      options,
    );
    this.causeCode = causeCode;
  }
}

export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'deadline';

/**
 * No connection, no response headers or no body progress within the configured time (`connect`, `headers`,
 * `body`), or the whole response not complete within the request deadline (`deadline`).
 */
export class TimeoutError extends RequestError {
  /** Which timeout fired. */
  readonly phase: TimeoutPhase;
  readonly timeoutMs: number;
  /** For a download: the decoded path of the object (never the query). */
  readonly key: string | undefined;
  constructor(
    ctx: RequestContext,
    phase: TimeoutPhase,
    timeoutMs: number,
    options?: { cause?: unknown; key?: string | undefined },
  ) {
    const what = options?.key !== undefined ? ` for object ${options.key}` : '';
    super(
      phase === 'deadline'
        ? `Request deadline (${timeoutMs} ms) passed before the response${what} was complete on ${where(ctx)}${retried(ctx)}`
        : `Timed out waiting for ${phase} (${timeoutMs} ms)${what} on ${where(ctx)}${retried(ctx)}`,
      'TIMEOUT',
      ctx,
      options?.cause !== undefined ? { cause: options.cause } : undefined,
    );
    this.phase = phase;
    this.timeoutMs = timeoutMs;
    this.key = options?.key;
  }
}

/** A request was refused locally, before anything was sent, because the API would answer 400. */
export class ValidationError extends HttpClientError {
  /** The offending parameter, as named by the API (`replay_id`, `amplitude_id`, `page_size`, ...). */
  readonly field: string;
  constructor(field: string, message: string) {
    super(`Invalid ${field}: ${message}`, 'VALIDATION_ERROR', { category: 'usage' });
    this.field = field;
  }
}
