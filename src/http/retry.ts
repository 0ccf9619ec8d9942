/**
 * Retry decisions: which outcomes retry, how long to wait (full-jitter exponential backoff), Retry-After.
 */
import type { RetryOptions } from './options.js';
import { sleep } from '../util/clock.js';

/** Status codes worth another attempt: 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** Error codes of transient connection failures. */
const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'UND_ERR_SOCKET', // "other side closed" / socket closed mid-response
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** The first error code found on an error or along its `cause` chain. */
export function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether a thrown error is a transient network failure (any code along the cause chain). */
export function isRetryableNetworkError(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Full jitter: a random wait in [0, min(maxDelayMs, baseDelayMs · 2^retryIndex)). `retryIndex` starts at 0. */
export function backoffDelay(
  retryIndex: number,
  opts: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>,
): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.min(retryIndex, 30));
  const r = opts.random();
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  return Math.floor(unit * ceiling);
}

/**
 * `Retry-After` as ms: delta-seconds or an HTTP date; undefined when absent or unreadable.
 * Negative or past values give 0; the result is capped at `capMs` when one is given.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  capMs: number | undefined,
  now = Date.now(),
): number | undefined {
  const ms = retryAfterMs(value, now);
  return ms === undefined || capMs === undefined ? ms : Math.min(ms, capMs);
}

function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const s = v.trim();
  if (s === '') return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(s)) {
    ms = Math.ceil(Number(s) * 1000);
  } else {
    const at = Date.parse(s);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  if (!Number.isFinite(ms)) return Number.MAX_SAFE_INTEGER;
  return Math.max(ms, 0);
}

/** The wait before the next attempt: the server's Retry-After when it sent one, else full-jitter backoff. */
export function retryDelay(retryIndex: number, retryAfterMs: number | undefined, opts: RetryOptions): number {
  return retryAfterMs !== undefined ? retryAfterMs : backoffDelay(retryIndex, opts);
}

/** The longest delay a Node timer keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** `sleep` for any length: a wait past a timer's range (a Retry-After of weeks, kept as given) is slept in parts. */
export async function sleepLong(ms: number, signal?: AbortSignal, wait = sleep): Promise<void> {
  for (let left = ms; ; left -= MAX_TIMER_MS) {
    await wait(Math.min(left, MAX_TIMER_MS), signal);
    if (left <= MAX_TIMER_MS) return;
  }
}
