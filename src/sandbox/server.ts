import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate } from 'node:timers/promises';
import { ApiLimits, type ApiArrival } from './api-limits.js';
import { Catalog } from './catalog.js';
import { ApiRequestError, type SandboxContext } from './context.js';
import { CONTROL_PREFIX, handleControl } from './control-routes.js';
import { describeReplays, type SandboxReplay } from './describe.js';
import { SandboxFamilies, type FamilyRoute, type HeldAttribution, type StoredFeedbackItem } from './families/index.js';
import { FaultState, type Faults } from './faults.js';
import { handleFiles } from './files-route.js';
import { hasBasicAuth, hasBearerAuth, sendApiError, splitTarget } from './http-util.js';
import { handleList } from './list-route.js';
import { resolveOptions, type SandboxOptions } from './options.js';
import { PageTokens } from './page-token.js';
import { RateLimits } from './rate-limits.js';
import { STORAGE_PREFIX, UrlSigner } from './presign.js';
import { emptyStats, type SandboxStats } from './stats.js';
import { handleStorage } from './storage-route.js';
import { limitMessage, REQUEST_RATE_LIMIT, SANDBOX_LIMITS } from './spec-limits.js';

export interface Sandbox {
  /** `http://127.0.0.1:PORT` — the API base URL and the host of the file URLs. */
  url: string;
  credentials: { apiKey: string; secretKey: string; managementKey: string };
  setFaults(f: Partial<Faults>): void;
  faults(): Faults;
  stats(): SandboxStats;
  /** Releases one held replay / hidden tail, or all of them without an id. */
  releaseHeld(replayId?: string): void;
  /** Every replay served, ascending by start time, with the path of its expected events. */
  replays(): SandboxReplay[];
  /** Feedback items stored for a source (ingested through the feedback family). */
  feedbackItems(sourceId: string): StoredFeedbackItem[];
  /** The properties a group holds (set through group identify), or undefined when it was never identified. */
  groupProperties(groupType: string, groupValue: string): Record<string, unknown> | undefined;
  /** Attribution events held (no matching user yet; each is dropped 72 hours after it arrived), oldest first. */
  heldAttributions(): HeldAttribution[];
  /** When each API request arrived, of which family, and what it was answered (the last 10,000). */
  apiArrivals(): ApiArrival[];
  /** The most API requests in flight at once, and how many were answered 429 by the concurrency limit. */
  apiCounters(): { peakInFlight: number; concurrencyLimited: number };
  /** Requests answered 429 by each documented limit (dashboard cost, user activity, taxonomy, mapping), by its name. */
  limitRefusals(): Record<string, number>;
  /** Changes the API host's concurrency limit from now on (0: none), e.g. to lift it in the middle of a test. */
  setApiConcurrency(max: number): void;
  close(): Promise<void>;
}

const LIST_PATH = '/api/1/session-replays';
const FILES_PATH = '/api/1/session-replays/files';

function deriveSecret(secretKey: string, purpose: string): Buffer {
  return createHmac('sha256', secretKey).update(`replay-export sandbox ${purpose}`).digest();
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

async function handleApi(
  ctx: SandboxContext,
  req: IncomingMessage,
  path: string,
  query: URLSearchParams,
  res: ServerResponse,
): Promise<void> {
  const { stats } = ctx;
  stats.apiRequests++;
  if (path === LIST_PATH) stats.listRequests++;
  else stats.filesRequests++;
  const latency = ctx.faults.latencyMs();
  if (latency > 0) await ctx.opts.clock.sleep(latency);
  if (req.method !== 'GET') {
    sendApiError(res, 405, 'method_not_allowed', 'only GET is allowed', { Allow: 'GET' });
    return;
  }
  if (!hasBasicAuth(req, ctx.opts.apiKey, ctx.opts.secretKey)) {
    unauthorized(
      ctx,
      res,
      'missing or invalid API credentials (HTTP Basic: API key, secret key)',
      'Basic realm="session-replay"',
    );
    return;
  }
  const fault = ctx.faults.nextApi();
  if (fault?.kind === 'rate-limit') {
    stats.rateLimited++;
    sendApiError(
      res,
      429,
      'rate_limited',
      `${REQUEST_RATE_LIMIT} limit exceeded (sandbox rateLimitEvery switch)`,
      { 'Retry-After': String(fault.retryAfterSeconds) },
      REQUEST_RATE_LIMIT,
    );
    return;
  }
  if (fault?.kind === 'server-error') {
    stats.serverErrors++;
    sendApiError(res, fault.status, 'server_error', `sandbox serverErrorEvery switch (${fault.status})`);
    return;
  }
  try {
    if (path === LIST_PATH) handleList(ctx, query, res);
    else handleFiles(ctx, query, res);
  } catch (err) {
    if (!(err instanceof ApiRequestError)) throw err;
    if (err.status === 400) stats.badRequests++;
    if (err.status === 404) stats.notFound++;
    sendApiError(res, err.status, err.code, err.message);
  }
}

function unauthorized(ctx: SandboxContext, res: ServerResponse, message: string, challenge?: string): void {
  ctx.stats.unauthorized++;
  sendApiError(res, 401, 'unauthorized', message, challenge ? { 'WWW-Authenticate': challenge } : {});
}

/** Checks the family's auth (Basic or Bearer; `api_key` is the family's to check), then lets it answer. */
async function handleFamily(
  ctx: SandboxContext,
  family: FamilyRoute,
  req: IncomingMessage,
  path: string,
  query: URLSearchParams,
  res: ServerResponse,
): Promise<void> {
  const auth = family.auth?.(path) ?? 'basic';
  if (auth === 'basic' && !hasBasicAuth(req, ctx.opts.apiKey, ctx.opts.secretKey)) {
    return unauthorized(
      ctx,
      res,
      'missing or invalid API credentials (HTTP Basic: API key, secret key)',
      'Basic realm="api"',
    );
  }
  if (auth === 'bearer' && !hasBearerAuth(req, ctx.opts.managementKey)) {
    return unauthorized(
      ctx,
      res,
      'missing or invalid management key (Authorization: Bearer <management API key>; Basic is not accepted here)',
      'Bearer realm="management"',
    );
  }
  try {
    await family.handle(req, res, path, query);
  } catch (err) {
    if (!(err instanceof ApiRequestError) || res.headersSent) throw err;
    if (err.status === 401) return unauthorized(ctx, res, err.message);
    if (err.status === 400) ctx.stats.badRequests++;
    if (err.status === 404) ctx.stats.notFound++;
    sendApiError(res, err.status, err.code, err.message, err.status === 405 && err.allow ? { Allow: err.allow } : {});
  }
}

/**
 * The families whose requests count against the analytics host's "5 concurrent requests across all REST endpoints":
 * those served from {analytics_url} (session replay, dashboard, taxonomy, get mappings). User activity and user
 * search have their own 10 (rate-limits.ts); management ({base_url}), feedback ({feedback_url}) and the ingestion
 * hosts are other hosts, whose limits the spec does not show.
 */
const ANALYTICS_HOST: ReadonlySet<string> = new Set(['replay', 'dashboard', 'taxonomy']);

/**
 * Logs an API request's arrival and, on the analytics host, holds one of its slots until the answer; false when the
 * host's concurrency limit refused it (answered here: 429 in the family's error shape).
 */
function admitted(
  ctx: SandboxContext,
  family: FamilyRoute | undefined,
  path: string,
  limits: ApiLimits,
  res: ServerResponse,
): boolean {
  const name =
    path === LIST_PATH || path === FILES_PATH
      ? 'replay'
      : (family?.clientFamily?.(path) ?? family?.family ?? 'unknown');
  if (limits.enter(name, path, res, ANALYTICS_HOST.has(name))) return true;
  ctx.stats.rateLimited++;
  const limit = SANDBOX_LIMITS.analyticsConcurrency;
  const message = limitMessage(limit, limits.max, 1, limits.max, 'request');
  if (family?.refuse) family.refuse(res, message, 1);
  else sendApiError(res, 429, 'too_many_requests', message, { 'Retry-After': '1' }, limit.name);
  return false;
}

async function route(
  ctx: SandboxContext,
  families: SandboxFamilies,
  limits: ApiLimits,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { path, query } = splitTarget(req.url ?? '/');
  const family = families.find(path, query);
  if (path.startsWith('/api/')) {
    if (!admitted(ctx, family, path, limits, res)) return;
    // A request is in flight from its arrival to its answer, and is answered no sooner than the next turn of the
    // event loop: requests that arrive together are in flight together, so the limits hold with no added latency.
    await setImmediate();
  }
  if (path.startsWith(CONTROL_PREFIX)) {
    await handleControl(ctx, req, path, res);
  } else if (path.startsWith(STORAGE_PREFIX)) {
    ctx.stats.storageRequests++;
    const latency = ctx.faults.latencyMs();
    if (latency > 0) await ctx.opts.clock.sleep(latency);
    await handleStorage(ctx, req, path, query, res);
  } else if (path === LIST_PATH || path === FILES_PATH) {
    await handleApi(ctx, req, path, query, res);
  } else if (family) {
    ctx.stats.apiRequests++;
    if (family.arrive?.(req, res, path, query)) return;
    const latency = ctx.faults.latencyMs();
    if (latency > 0) await ctx.opts.clock.sleep(latency);
    await handleFamily(ctx, family, req, path, query, res);
  } else {
    ctx.stats.notFound++;
    sendApiError(res, 404, 'not_found', 'no such endpoint');
  }
}

/** Starts the sandbox on host:port (default 127.0.0.1, an ephemeral port). */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const opts = resolveOptions(options);
  const catalog = new Catalog(opts);
  const faults = new FaultState(opts.faults);
  const stats = emptyStats();
  const rateLimits = new RateLimits(opts.limits, opts.timeScale, opts.now, () => void stats.rateLimited++);
  const limits = new ApiLimits(opts.apiConcurrency, opts.now);
  const server = createServer({ keepAliveTimeout: 5_000 });
  server.listen(opts.port, opts.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${urlHost(opts.host)}:${port}`;
  const families = new SandboxFamilies({ apiKey: opts.apiKey, url, now: opts.now, limits: rateLimits });
  const ctx: SandboxContext = {
    opts,
    catalog,
    faults,
    stats,
    tokens: new PageTokens(deriveSecret(opts.secretKey, 'page tokens')),
    signer: new UrlSigner(
      deriveSecret(opts.secretKey, 'url signing'),
      url,
      Math.max(1, Math.round(opts.urlTtlMs / 1000)),
    ),
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    route(ctx, families, limits, req, res).catch((err: unknown) => {
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      sendApiError(res, 500, 'sandbox_error', `sandbox failed: ${(err as Error).message ?? String(err)}`);
    });
  });
  let closing: Promise<void> | undefined;
  return {
    url,
    credentials: { apiKey: opts.apiKey, secretKey: opts.secretKey, managementKey: opts.managementKey },
    setFaults: (f) => faults.set(f),
    faults: () => faults.get(),
    stats: () => ({ ...stats }),
    releaseHeld: (replayId) => {
      catalog.release(replayId);
    },
    replays: () => describeReplays(catalog),
    feedbackItems: (sourceId) => families.feedback.items(sourceId),
    groupProperties: (groupType, groupValue) => families.groupIdentify.group(groupType, groupValue),
    heldAttributions: () => families.attribution.held(),
    apiArrivals: () => limits.arrivals(),
    apiCounters: () => limits.counters(),
    limitRefusals: () => rateLimits.refusals(),
    setApiConcurrency: (max) => limits.setMax(max),
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
