/**
 * The HTTP transport: one keep-alive undici Agent, auth, regions, per-family concurrency caps, retries with
 * full-jitter backoff honouring Retry-After, timeouts, AbortSignal, typed and redacted errors.
 */
import type { Dispatcher } from 'undici';
import { Agent, request as undiciRequest } from './undici-parts.js';
import type { Readable } from 'node:stream';
import { authorizationHeader, secretsOf, type AuthStyle } from './auth.js';
import { BodyTooLargeError, readAll, readExcerpt } from './body.js';
import {
  ApiError,
  AuthError,
  HttpClientError,
  NetworkError,
  RateLimitError,
  WaitLimitExceededError,
  StorageRedirectError,
  TimeoutError,
  UrlExpiredError,
  type RequestContext,
} from './errors.js';
import { ConfigError, InternalError } from '../errors.js';
import { Deadline } from './deadline.js';
import { FamilyLimiter, PAUSED_BY_429, type SlotOutcome } from './limiter.js';
import { emit, type Logger } from './logger.js';
import {
  DEFAULT_KEEP_ALIVE_MS,
  resolveTransportOptions,
  type ApiFamily,
  type ResolvedTransportOptions,
  type TransportOptions,
} from './options.js';
import { baseUrlFor, normaliseEndpoint, type HostKind, type Region } from './regions.js';
import { bodyExcerpt, redactedPath, redactText, urlKey } from './redact.js';
import { encodeComponent, sendableText } from './url-parts.js';
import {
  errorCode,
  isRetryableNetworkError,
  isRetryableStatus,
  parseRetryAfter,
  retryDelay,
  sleepLong,
} from './retry.js';
import { classifyLimit, type LimitReading } from '../util/limit-messages.js';
import { systemClock, type Clock } from '../util/clock.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];
export type QueryParams = Readonly<Record<string, QueryValue>>;

export interface RequestSpec {
  method?: HttpMethod;
  /** Which address placeholder (`{analytics_url}` → `analytics`, ...). */
  host: HostKind;
  /** Path below the host, starting with `/`. */
  path: string;
  /** Query parameters; arrays repeat the name; null/undefined are left out. Values are percent-encoded. */
  query?: QueryParams;
  auth: AuthStyle;
  family: ApiFamily;
  /** JSON request body. */
  json?: unknown;
  /** Form-encoded request body (with `api_key` auth the key goes here instead of the query). */
  form?: Readonly<Record<string, string>>;
  headers?: Readonly<Record<string, string>>;
  /**
   * `true` retries a non-idempotent method (POST opt-in); `false` never retries. Default: GET/HEAD retry.
   * A 429 is retried whatever the method (the request was not processed), unless this is `false`.
   */
  retry?: boolean;
  /** Cost of the request in its family's budgets (default 1; see DEFAULT_BUDGETS). */
  cost?: number;
  signal?: AbortSignal | undefined;
  /**
   * Query parameters passed through unchecked (`api --query`, fields of a GET), in order; a name given twice is sent
   * twice. A name the request sets itself (one of `query`, or `api_key`) is refused (ConfigError), never replaced.
   */
  extraQuery?: ReadonlyArray<readonly [string, string]> | undefined;
  /**
   * Body fields passed through unchecked (`api` fields of a call with a body), in order: added to the JSON object or
   * the form body (a value that is not a string travels as JSON text in a form; a form takes a name twice, a JSON
   * object does not); a request without a body sends them as a JSON object. A field the body has is refused.
   */
  extraFields?: ReadonlyArray<readonly [string, unknown]> | undefined;
  /** Headers added as given (`api -H`), over the transport's own; `host`, `content-length` and the like are refused. */
  extraHeaders?: Readonly<Record<string, string>> | undefined;
  /** A body sent as these bytes with this Content-Type (`api --input`), instead of `json` or `form`. */
  raw?: { readonly body: Buffer; readonly contentType: string };
  /**
   * Called with the response the request resolves with (`api --raw`, `-i`, a mutation's answer), before it is
   * returned. With it, a final error answer is read whole and kept on the ApiError (`answer`).
   */
  onResponse?: ((res: ApiResponse) => void) | undefined;
}

export interface ApiResponse {
  status: number;
  /** The status line's reason phrase (`OK`), as the server sent it. */
  statusText: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Retries made before this response. */
  retries: number;
  text(): string;
  /** Parses the body; a body that is not JSON throws ApiError (`BAD_RESPONSE_JSON`). */
  json<T = unknown>(): T;
}

export interface DownloadOptions {
  signal?: AbortSignal;
  /** Family whose cap applies (default `storage`). */
  family?: ApiFamily;
}

export interface DownloadResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body bytes; consume it to the end or destroy it (its concurrency slot is held until then). */
  body: Readable & AsyncIterable<Uint8Array>;
  /** Decoded URL path of the object (safe to log). */
  key: string;
  retries: number;
}

/**
 * Builds `base + path + ?query` with every value percent-encoded (a `/` in a value travels as `%2F`). A value that
 * cannot be encoded (a lone UTF-16 surrogate) throws a ValidationError naming its parameter.
 */
export function buildUrl(base: string, path: string, query?: QueryParams): URL {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values as readonly (string | number | boolean)[]) {
      parts.push(`${encodeComponent(name, name)}=${encodeComponent(name, String(v))}`);
    }
  }
  const p = path.startsWith('/') ? path : `/${path}`;
  return new URL(`${base}${p}${parts.length ? `?${parts.join('&')}` : ''}`);
}

interface Slot {
  /** Takes ownership of the attempt's concurrency slot; the caller must call the returned release. */
  keep(): () => void;
}

type Attempt<T> = { done: true; value: T } | Failed;
/** An attempt that failed in a way that may be retried; a 429 says which kind of limit it met (`limit`). */
type Failed = {
  done: false;
  error: Error;
  retryAfterMs?: number | undefined;
  status?: number | undefined;
  code?: string | undefined;
  limit?: LimitReading | undefined;
};

/** The timeout each of undici's timeout codes is. */
const TIMEOUT_PHASES: ReadonlyMap<string | undefined, 'connect' | 'headers' | 'body'> = new Map([
  ['UND_ERR_CONNECT_TIMEOUT', 'connect'],
  ['UND_ERR_HEADERS_TIMEOUT', 'headers'],
  ['UND_ERR_BODY_TIMEOUT', 'body'],
]);

export class Transport {
  readonly options: ResolvedTransportOptions;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #limiter: FamilyLimiter;
  readonly #logger: Logger | undefined;
  readonly #secrets: string[];
  readonly #endpoint: string | undefined;
  readonly #clock: Clock;
  /** The waits made so far (retries, budgets, pauses), all requests together (`retry.maxWaitMs`). */
  #waitedMs = 0;
  #closed = false;

  constructor(options: TransportOptions = {}) {
    this.options = resolveTransportOptions(options);
    this.#endpoint = this.options.endpoint ? normaliseEndpoint(this.options.endpoint) : undefined;
    this.#logger = options.logger;
    this.#secrets = secretsOf(this.options.credentials);
    this.#clock = options.clock ?? systemClock;
    this.#limiter = new FamilyLimiter({
      clock: this.#clock,
      concurrency: this.options.concurrency,
      adaptive: this.options.adaptive,
      hostConcurrency: this.options.hostConcurrency,
      budgets: this.options.budgets,
    });
    if (options.dispatcher) {
      this.#dispatcher = options.dispatcher;
      this.#ownsDispatcher = false;
    } else {
      this.#dispatcher = new Agent({
        keepAliveTimeout: DEFAULT_KEEP_ALIVE_MS,
        connect: { timeout: this.options.timeouts.connectMs },
        headersTimeout: this.options.timeouts.headersMs,
        bodyTimeout: this.options.timeouts.bodyMs,
      });
      this.#ownsDispatcher = true;
    }
  }

  get region(): Region {
    return this.options.region;
  }

  /**
   * The undici dispatcher the transport sends through (its own keep-alive Agent, or the caller's): the run's other
   * HTTP (captured assets) shares its connection pool instead of opening one of its own.
   */
  get dispatcher(): Dispatcher {
    return this.#dispatcher;
  }

  /** The clock the transport waits and measures on (`TransportOptions.clock`). */
  get clock(): Clock {
    return this.#clock;
  }

  /** The endpoint override, normalised, when one is set. */
  get endpoint(): string | undefined {
    return this.#endpoint;
  }

  /** Base URL used for a host kind (the endpoint override when set). */
  baseUrl(kind: HostKind): string {
    return baseUrlFor(kind, this.options.region, this.#endpoint);
  }

  /** Requests of a family allowed in flight now (its adaptive window, or its fixed cap). */
  limit(family: ApiFamily): number {
    return this.#limiter.limit(family);
  }

  /** Resolves once no request of `family` waits for a slot (FamilyLimiter.room). */
  room(family: ApiFamily, signal?: AbortSignal): Promise<void> {
    return this.#limiter.room(family, signal);
  }

  /** Requests of a family holding a slot / waiting for one. */
  active(family: ApiFamily): number {
    return this.#limiter.active(family);
  }

  /** Requests on their way now, every family: holding all their slots (sent, or their answer being read). */
  holding(): number {
    return this.#limiter.holding();
  }
  waiting(family: ApiFamily): number {
    return this.#limiter.waiting(family);
  }

  /** Redacts every configured secret and sensitive URL parameter from a string. */
  redact(text: string): string {
    return redactText(text, this.#secrets);
  }

  #ctx(url: URL, method: string, retries: number): RequestContext {
    return {
      method,
      path: redactedPath(url),
      host: url.host,
      region: this.options.region,
      endpointOverride: this.#endpoint !== undefined,
      retries,
    };
  }

  #networkError(err: unknown, ctx: RequestContext): HttpClientError {
    if (err instanceof HttpClientError) return err;
    const code = errorCode(err);
    const phase = TIMEOUT_PHASES.get(code);
    if (phase) return new TimeoutError(ctx, phase, this.options.timeouts[`${phase}Ms`]);
    const message = this.redact(err instanceof Error ? err.message : String(err));
    return new NetworkError(ctx, code, message);
  }

  #statusError(
    status: number,
    ctx: RequestContext,
    excerpt: string,
    auth: AuthStyle,
    retryAfterMs: number | undefined,
    limit: LimitReading | undefined,
  ): ApiError {
    if ((status === 401 || status === 403) && auth !== 'none') return new AuthError(status, ctx, excerpt);
    if (status === 429) return new RateLimitError(ctx, excerpt, retryAfterMs, limit?.kind);
    return new ApiError(status, ctx, excerpt);
  }

  /** The deadline of one attempt: its signal aborts with a TimeoutError (phase `deadline`) when time runs out. */
  #deadline(ctx: RequestContext, signal: AbortSignal | undefined, key?: string): Deadline {
    const ms = this.options.timeouts.deadlineMs;
    return new Deadline(ms, signal, () => new TimeoutError(ctx, 'deadline', ms, { key }), this.#clock);
  }

  /**
   * Sends one attempt with the shared dispatcher and timeouts, under its deadline. A network failure that may be
   * retried (and the deadline running out) comes back as a failed attempt; one that may not is thrown (typed), and
   * an abort of the caller's `signal` throws its reason.
   */
  async #send(
    url: URL,
    init: { method: string; headers: Record<string, string>; body?: string | Buffer },
    ctx: RequestContext,
    deadline: Deadline,
    signal: AbortSignal | undefined,
  ): Promise<Dispatcher.ResponseData | Failed> {
    try {
      return await undiciRequest(url, {
        ...init,
        signal: deadline.signal,
        dispatcher: this.#dispatcher,
        headersTimeout: this.options.timeouts.headersMs,
        bodyTimeout: this.options.timeouts.bodyMs,
      });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (deadline.expired) return { done: false, error: deadline.signal.reason as Error, code: 'deadline' };
      const e = this.#networkError(err, ctx);
      if (!isRetryableNetworkError(err)) throw e;
      return { done: false, error: e, code: errorCode(err) ?? '' };
    }
  }

  /**
   * A status that is not a success: thrown when it is final, returned as a failed attempt when it may be retried. A
   * 429 is read for the kind of limit it names: from its body, or the status line's reason when it has none.
   */
  #statusFailure(res: Dispatcher.ResponseData, ctx: RequestContext, excerpt: string, auth: AuthStyle): Failed {
    const status = res.statusCode;
    const retryAfterMs = parseRetryAfter(
      res.headers['retry-after'],
      this.options.retry.maxRetryAfterMs,
      this.#clock.now(),
    );
    const limit = status === 429 ? classifyLimit(excerpt, res.statusText) : undefined;
    const error = this.#statusError(status, ctx, excerpt, auth, retryAfterMs, limit);
    if (!isRetryableStatus(status)) throw error;
    return {
      done: false,
      error,
      status,
      retryAfterMs,
      limit,
    };
  }

  /**
   * What a 429 does to its family beyond cutting the window (every 429 does that): a rate 429 with Retry-After holds
   * back the whole family; a concurrency 429 only when it could not be answered by a cut (`uncuttable`: the request
   * went with the window at its smallest, or with a fixed cap), as then others hold the whole limit. Otherwise the
   * refused request alone waits its Retry-After.
   */
  #holdFamily(family: ApiFamily, outcome: Failed, uncuttable: boolean): void {
    if (outcome.status !== 429 || outcome.retryAfterMs === undefined) return;
    if (outcome.limit?.kind === 'concurrency' && !uncuttable) {
      this.#limiter.holdGrowthAfterCut(family, outcome.retryAfterMs);
      return;
    }
    this.#limiter.pause(family, outcome.retryAfterMs);
  }

  /**
   * Counts a wait about to be made against `retry.maxWaitMs`: one that would take the waits past it throws
   * WaitLimitExceededError instead. (A budget wait is counted as announced; the limiter may hold a request a little
   * longer when others take the room first.)
   */
  #spendWait(ctx: RequestContext, wait: { ms: number; for: string; cause?: Error }): void {
    const maxWaitMs = this.options.retry.maxWaitMs;
    if (maxWaitMs !== undefined && this.#waitedMs + wait.ms > maxWaitMs)
      throw new WaitLimitExceededError(ctx, wait, this.#waitedMs, maxWaitMs);
    this.#waitedMs += wait.ms;
  }

  async #waitSlot(family: ApiFamily, cost: number, signal: AbortSignal | undefined, ctx: RequestContext) {
    // A cost that can never fit is refused here, before any wait is announced.
    this.#limiter.check(family, cost);
    const held = this.#limiter.heldBy(family, cost);
    // A retry already waited out the pause its own 429 started (what is left of it is timer slack, not a wait).
    if (held !== undefined && !(ctx.retries > 0 && held.by === PAUSED_BY_429)) {
      this.#spendWait(ctx, { ms: held.ms, for: held.by });
      emit(this.#logger, {
        level: 'warn',
        msg: 'waiting for budget',
        what: `${family} ${held.by}, waiting ${waitText(held.ms)}`,
        family,
        budget: held.by,
        delayMs: held.ms,
        method: ctx.method,
        path: ctx.path,
        host: ctx.host,
      });
    }
    if (this.#limiter.active(family) >= this.#limiter.limit(family)) {
      emit(this.#logger, {
        level: 'debug',
        msg: 'waiting for a concurrency slot',
        family,
        limit: this.#limiter.limit(family),
        waiting: this.#limiter.waiting(family) + 1,
        method: ctx.method,
        path: ctx.path,
        host: ctx.host,
      });
    }
    return this.#limiter.acquire(family, { cost, host: ctx.host, signal });
  }

  /**
   * Runs attempts until one is done, the error is not retryable, or the budget is spent.
   * Slots are held only during an attempt, never while waiting to retry.
   */
  async #withRetries<T>(
    url: URL,
    method: string,
    family: ApiFamily,
    retry: { allowed: boolean; on429: boolean; cost: number },
    signal: AbortSignal | undefined,
    attempt: (ctx: RequestContext, slot: Slot) => Promise<Attempt<T>>,
  ): Promise<T> {
    if (this.#closed) throw new InternalError('transport is closed: a request was made after close()');
    const max = retry.allowed || retry.on429 ? this.options.retry.retries : 0;
    for (let i = 0; ; i++) {
      const ctx = this.#ctx(url, method, i);
      if (signal?.aborted) throw signal.reason;
      const release = await this.#waitSlot(family, retry.cost, signal, ctx);
      let kept = false;
      const slot: Slot = {
        keep: () => {
          kept = true;
          return release;
        },
      };
      let outcome: Attempt<T>;
      let uncuttable = true;
      const sentAt = this.#clock.now();
      try {
        outcome = await attempt(ctx, slot);
        uncuttable = release.report(slotOutcome(outcome.done ? 200 : outcome.status, this.#clock.now() - sentAt));
      } catch (err) {
        if (err instanceof ApiError) release.report(slotOutcome(err.status, this.#clock.now() - sentAt));
        if (signal?.aborted) throw signal.reason;
        throw err;
      } finally {
        if (!kept) release();
      }
      if (outcome.done) return outcome.value;
      this.#holdFamily(family, outcome, uncuttable);
      const mayRetry = retry.allowed || (retry.on429 && outcome.status === 429);
      if (i >= max || !mayRetry || signal?.aborted) {
        if (signal?.aborted) throw signal.reason;
        throw outcome.error;
      }
      const delayMs = retryDelay(i, outcome.retryAfterMs, this.options.retry);
      this.#spendWait(ctx, { ms: delayMs, for: 'retry', cause: outcome.error });
      emit(this.#logger, {
        level: 'warn',
        msg: 'retrying request',
        ...(outcome.limit
          ? {
              what: limitWhat(family, outcome.limit, delayMs, i + 1, max),
              limitKind: outcome.limit.kind,
              limit: outcome.limit.limit || undefined,
            }
          : {}),
        family,
        method,
        path: ctx.path,
        host: ctx.host,
        region: ctx.region,
        attempt: i + 1,
        maxRetries: max,
        delayMs,
        status: outcome.status,
        code: outcome.code,
        retryAfterMs: outcome.retryAfterMs,
      });
      await sleepLong(delayMs, signal, (ms, s) => this.#clock.sleep(ms, s));
    }
  }

  /** The URL, headers and body of a request: its own parts, the pass-through ones beside them, and its auth. */
  #assemble(spec: RequestSpec): { url: URL; headers: Record<string, string>; body?: string | Buffer } {
    const creds = this.options.credentials;
    const authorization = authorizationHeader(spec.auth, creds);
    const { form, json } = withFields(spec);
    const apiKeyInForm = spec.auth === 'api_key' && form !== undefined;
    const ownQuery: Record<string, QueryValue> = { ...(spec.query ?? {}) };
    if (spec.auth === 'api_key' && !apiKeyInForm) ownQuery.api_key = creds.apiKey!;
    // The key is the transport's wherever it travels: a pass-through `api_key` would go beside or over it.
    if (spec.auth === 'api_key' && spec.extraQuery?.some(([k]) => k === 'api_key')) clash('query parameter', 'api_key');
    const query = withQuery(ownQuery, spec.extraQuery ?? []);
    const url = buildUrl(this.baseUrl(spec.host), spec.path, query);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent,
      ...(spec.headers ?? {}),
    };
    if (authorization) headers.authorization = authorization;
    let body: string | Buffer | undefined;
    if (spec.raw !== undefined) {
      body = spec.raw.body;
      headers['content-type'] = spec.raw.contentType;
    } else if (json !== undefined) {
      body = JSON.stringify(json);
      headers['content-type'] = 'application/json';
    } else if (form) {
      // URLSearchParams would silently turn a lone surrogate into U+FFFD: refuse it instead, naming the field.
      for (const [name, value] of form) sendableText(name, value);
      const params = new URLSearchParams(form as [string, string][]);
      if (apiKeyInForm) params.append('api_key', creds.apiKey!);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    return { url, headers: withHeaders(headers, spec.extraHeaders), ...(body !== undefined ? { body } : {}) };
  }

  /**
   * Sends an API request and reads the whole body (bounded). Resolves only with 2xx; otherwise throws
   * AuthError (401/403), RateLimitError (429 after retries), ApiError, NetworkError or TimeoutError.
   * Aborting the signal rejects with the signal's reason, whether queued, in flight or waiting to retry.
   */
  async request(spec: RequestSpec): Promise<ApiResponse> {
    const method = (spec.method ?? 'GET').toUpperCase() as HttpMethod;
    const { url, headers, body } = this.#assemble(spec);
    const retry = {
      allowed: spec.retry ?? this.options.retry.methods.includes(method),
      // A 429 means the request was not processed: safe to send again, write or not (unless the call said no).
      on429: spec.retry !== false,
      cost: spec.cost ?? 1,
    };
    const signal = spec.signal;
    const maxBytes = this.options.maxResponseBytes;

    return this.#withRetries<ApiResponse>(url, method, spec.family, retry, signal, async (ctx) => {
      const deadline = this.#deadline(ctx, signal);
      try {
        const res = await this.#send(
          url,
          { method, headers, ...(body !== undefined ? { body } : {}) },
          ctx,
          deadline,
          signal,
        );
        if ('done' in res) return res; // a network failure to retry
        const status = res.statusCode;
        if (status >= 200 && status < 300) {
          let buf: Buffer;
          try {
            buf = await readAll(res.body, maxBytes);
          } catch (err) {
            if (signal?.aborted) throw signal.reason;
            if (err instanceof BodyTooLargeError) {
              throw new ApiError(
                status,
                ctx,
                '',
                `Response body of ${ctx.method} ${ctx.path} on ${ctx.host} exceeds ${maxBytes} bytes`,
                'RESPONSE_TOO_LARGE',
              );
            }
            return {
              done: false,
              error: this.#networkError(err, ctx),
              code: deadline.expired ? 'deadline' : (errorCode(err) ?? ''),
            };
          }
          const response = makeResponse(status, res.statusText ?? '', res.headers, buf, ctx);
          spec.onResponse?.(response);
          return { done: true, value: response };
        }
        const whole = spec.onResponse ? await readAll(res.body, maxBytes).catch(() => undefined) : undefined;
        const text = whole !== undefined ? whole.toString('utf8') : await readExcerpt(res.body);
        if (deadline.expired) return { done: false, error: deadline.signal.reason as Error, code: 'deadline' };
        try {
          return withAnswer(this.#statusFailure(res, ctx, bodyExcerpt(text, this.#secrets), spec.auth), res, whole);
        } catch (err) {
          throw withAnswer({ done: false, error: err as Error }, res, whole).error;
        }
      } finally {
        deadline.clear();
      }
    });
  }

  /**
   * Streams a presigned object-storage URL: no Authorization header (the URL is signed), no API key.
   * Connection errors before the body, 429 and 5xx retry here; once the body is returned, errors while
   * reading it are the caller's to handle. A 403 throws UrlExpiredError (fetch a fresh URL); a 3xx throws
   * StorageRedirectError at once (never followed, never retried).
   */
  async download(url: string, opts: DownloadOptions = {}): Promise<DownloadResponse> {
    const u = URL.canParse(url) ? new URL(url) : undefined;
    if (u === undefined || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
      throw new HttpClientError(
        `download URL must be an absolute http(s) URL (got ${u === undefined ? 'not a URL' : u.protocol})`,
        'BAD_DOWNLOAD_URL',
      );
    }
    const family = opts.family ?? 'storage';
    const signal = opts.signal;
    const key = urlKey(u);
    const headers = { 'user-agent': this.options.userAgent, accept: '*/*' };
    let retries = 0;
    return this.#withRetries<DownloadResponse>(
      u,
      'GET',
      family,
      { allowed: true, on429: true, cost: 1 },
      signal,
      async (ctx, slot) => {
        retries = ctx.retries;
        // The deadline runs on while the caller reads the body: a body at 1 byte/s ends with a TimeoutError from it.
        const deadline = this.#deadline(ctx, signal, key);
        let bodyHandedOut = false;
        try {
          const res = await this.#send(u, { method: 'GET', headers }, ctx, deadline, signal);
          if ('done' in res) return res; // a network failure to retry
          const status = res.statusCode;
          if (status >= 200 && status < 300) {
            const body = res.body as unknown as Readable & AsyncIterable<Uint8Array>;
            // Keep the family slot (and the deadline) until the body is consumed or destroyed, not just until headers.
            const release = slot.keep();
            let freed = false;
            const free = () => {
              if (!freed) {
                freed = true;
                deadline.clear();
                release();
              }
            };
            body.once('close', free);
            body.once('end', free);
            body.once('error', free);
            bodyHandedOut = true;
            return { done: true, value: { status, headers: res.headers, body, key, retries } };
          }
          const text = await readExcerpt(res.body);
          if (deadline.expired) return { done: false, error: deadline.signal.reason as Error, code: 'deadline' };
          if (status >= 300 && status < 400) throw new StorageRedirectError(status, ctx, key);
          const excerpt = bodyExcerpt(text, this.#secrets);
          if (status === 403) {
            const expired = /<Code>\s*AccessDenied\s*<\/Code>|Request has expired|ExpiredToken|expired/i.test(text);
            throw new UrlExpiredError(ctx, key, excerpt, expired);
          }
          // A presigned URL carries no credentials: a 401 is an ApiError, not an AuthError.
          return this.#statusFailure(res, ctx, excerpt, 'none');
        } finally {
          if (!bodyHandedOut) deadline.clear();
        }
      },
    );
  }

  /** Closes the keep-alive connections (only when the transport created its dispatcher). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }
}

/** A pass-through part that would replace one the request sets itself: refused, never sent silently over it. */
function clash(what: string, name: string): never {
  throw new ConfigError(
    `pass-through ${what} "${name}" would replace the request's own ${what} of that name; it is not sent (give the operation's parameter instead)`,
  );
}

/** The query with the pass-through parameters added after its own (a name twice is sent twice). */
function withQuery(own: Record<string, QueryValue>, extra: ReadonlyArray<readonly [string, string]>): QueryParams {
  const out: Record<string, QueryValue> = { ...own };
  const added = new Map<string, string[]>();
  for (const [name, value] of extra) {
    if (own[name] !== undefined && own[name] !== null) clash('query parameter', name);
    added.set(name, [...(added.get(name) ?? []), value]);
  }
  for (const [name, values] of added) out[name] = values;
  return out;
}

/**
 * The body of `spec` with its pass-through fields added: to its form (pairs, a name may come twice), or to its JSON
 * object; a request without a body gets a JSON object of them (whatever the method: the spec has GET and DELETE calls
 * with bodies). A field the body has, a name twice in a JSON object, a JSON array body or a raw body take none
 * (ConfigError).
 */
function withFields(spec: RequestSpec): { form: [string, string][] | undefined; json: unknown } {
  const fields = spec.extraFields ?? [];
  const form = spec.form === undefined ? undefined : Object.entries(spec.form);
  if (spec.json !== undefined && form)
    throw new ConfigError('a request has either a `json` or a `form` body, not both');
  if (fields.length === 0) return { form, json: spec.json };
  if (spec.raw !== undefined) throw new ConfigError('a request with a raw body takes no pass-through fields');
  if (form) {
    for (const [k, v] of fields) {
      if (spec.form![k] !== undefined || k === 'api_key') clash('body field', k);
      form.push([k, typeof v === 'string' ? v : JSON.stringify(v)]);
    }
    return { form, json: undefined };
  }
  const json = spec.json ?? {};
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new ConfigError(
      `${spec.method ?? 'GET'} ${spec.path} sends a JSON array: no place for the field(s) ${fields.map(([k]) => k).join(', ')}; pass them in the query instead`,
    );
  const out: Record<string, unknown> = { ...(json as Record<string, unknown>) };
  for (const [k, v] of fields) {
    if (Object.hasOwn(out, k)) clash('body field', k);
    out[k] = v;
  }
  return { form: undefined, json: out };
}

/** Headers a caller may not set: the transport writes them from the request itself. */
const OWN_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/** The transport's headers with the caller's (`api -H`) over them, by lower-case name. */
function withHeaders(
  headers: Record<string, string>,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  if (extra === undefined) return headers;
  const out = { ...headers };
  for (const [name, value] of Object.entries(extra)) {
    const key = name.toLowerCase();
    if (OWN_HEADERS.has(key))
      throw new ConfigError(`header ${name} is written from the request itself; it cannot be set`);
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(key))
      throw new ConfigError(`header name ${JSON.stringify(name)} is not a token`);
    if (/[\r\n\0]/.test(value)) throw new ConfigError(`header ${name}: a value cannot hold a line break`);
    out[key] = value;
  }
  return out;
}

/** A failed attempt with the whole answer kept on its error (or on the error thrown), when it was read whole. */
function withAnswer(attempt: Failed, res: Dispatcher.ResponseData, whole: Buffer | undefined): Failed {
  if (whole !== undefined && attempt.error instanceof ApiError)
    attempt.error.answer = {
      status: res.statusCode,
      statusText: res.statusText ?? '',
      headers: res.headers,
      body: whole,
    };
  return attempt;
}

/** A 429's retry in words, e.g. `429 replay concurrency limit (concurrent requests across all REST endpoints), waiting 1 s, attempt 2/5`. */
function limitWhat(family: ApiFamily, limit: LimitReading, delayMs: number, attempt: number, max: number): string {
  return `429 ${family} ${limit.kind} limit${limit.limit ? ` (${limit.limit})` : ''}, waiting ${waitText(delayMs)}, attempt ${attempt + 1}/${max + 1}`;
}

/** A wait in words: `1.5 s`, `250 ms`. */
function waitText(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toFixed(1)} s` : `${Math.ceil(ms)} ms`;
}

/** What an attempt tells the family's window: a status answered (429/503: too much), or nothing (no answer). */
function slotOutcome(status: number | undefined, latencyMs: number): SlotOutcome | undefined {
  if (status === undefined) return undefined;
  return status === 429 || status === 503 ? { overloaded: true } : { answered: true, latencyMs };
}

function makeResponse(
  status: number,
  statusText: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  ctx: RequestContext,
): ApiResponse {
  return {
    status,
    statusText,
    headers,
    body,
    retries: ctx.retries,
    text: () => body.toString('utf8'),
    json<T>(): T {
      try {
        return JSON.parse(body.toString('utf8')) as T;
      } catch {
        throw new ApiError(
          status,
          ctx,
          '',
          `Response of ${ctx.method} ${ctx.path} on ${ctx.host} is not valid JSON (${body.length} bytes)`,
          'BAD_RESPONSE_JSON',
        );
      }
    },
  };
}
