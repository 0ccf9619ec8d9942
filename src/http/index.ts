export { Transport, buildUrl } from './transport.js';
export type { ApiResponse } from './transport.js';
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
export type { AnswerSeen } from './errors.js';
export { MissingCredentialsError } from './auth.js';
export { REGION_HOSTS, baseUrlFor, normaliseEndpoint } from './regions.js';
export type { Region } from './regions.js';
export { DEFAULT_ADAPTIVE, DEFAULT_CONCURRENCY, resolveTransportOptions } from './options.js';
export type { ApiFamily, TransportOptions } from './options.js';
export { backoffDelay, isRetryableNetworkError, isRetryableStatus, parseRetryAfter } from './retry.js';
export { bodyExcerpt, redactText, redactUrl, redactedPath, secretForms, urlKey } from './redact.js';
export type { LogEvent, Logger } from './logger.js';
export { FamilyLimiter } from './limiter.js';
export { AdaptiveLimit } from './adaptive-limit.js';
export type { AdaptiveSettings } from './adaptive-limit.js';
export { BudgetExceededError, SlidingBudget } from './budget.js';
