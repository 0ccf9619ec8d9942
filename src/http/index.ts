export { Transport, buildUrl } from './transport.js';
export type {
  ApiResponse,
  DownloadOptions,
  DownloadResponse,
  HttpMethod,
  QueryParams,
  QueryValue,
  RequestSpec,
} from './transport.js';
export {
  ApiError,
  AuthError,
  HttpClientError,
  NetworkError,
  RateLimitError,
  StorageRedirectError,
  TimeoutError,
  UrlExpiredError,
  ValidationError,
  WaitLimitExceededError,
} from './errors.js';
export type { AnswerSeen, RequestContext, TimeoutPhase } from './errors.js';
export { MissingCredentialsError, authorizationHeader } from './auth.js';
export type { AuthStyle, Credentials } from './auth.js';
export { HOST_KINDS, REGIONS, REGION_HOSTS, baseUrlFor, isRegion, normaliseEndpoint } from './regions.js';
export type { HostKind, Region } from './regions.js';
export {
  API_FAMILIES,
  DEFAULT_ADAPTIVE,
  DEFAULT_BUDGETS,
  DEFAULT_CONCURRENCY,
  DEFAULT_HOST_CONCURRENCY,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUTS,
  resolveTransportOptions,
} from './options.js';
export type {
  AdaptiveOptions,
  ApiFamily,
  FamilyBudget,
  RetryOptions,
  TimeoutOptions,
  TransportOptions,
} from './options.js';
export { backoffDelay, isRetryableNetworkError, isRetryableStatus, parseRetryAfter } from './retry.js';
export {
  REDACTED,
  SENSITIVE_PARAMS,
  bodyExcerpt,
  redactText,
  redactUrl,
  redactedPath,
  secretForms,
  urlKey,
} from './redact.js';
export type { LogEvent, LogLevel, Logger } from './logger.js';
export { FamilyLimiter } from './limiter.js';
export type { AcquireOptions, LimitConfig, Release, SlotOutcome } from './limiter.js';
export { AdaptiveLimit } from './adaptive-limit.js';
export type { AdaptiveSettings, SentTicket } from './adaptive-limit.js';
export { BudgetExceededError, SlidingBudget } from './budget.js';
