/**
 * Size limits of decoding: the largest event, and the inflated bytes one replay may take. Both are checked while
 * inflating, so that memory and time stay bounded by the limits, never by what a hostile file inflates to.
 */

import { DecodeError, type DecodeErrorContext } from './errors.js';
import { ConfigError } from '../src/errors.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const DECODE_LIMITS = Object.freeze({
  /**
   * The largest event, and the largest array element of a file, in bytes (256 MiB). Real rrweb events are far
   * smaller (a full snapshot of a heavy page is a few MB); an event over this fails its replay with `EVENT_TOO_LARGE`.
   */
  maxEventBytes: 256 * MiB,
  /**
   * Inflated bytes one replay may take (8 GiB): every file's bytes after its gzip layer, plus, in version 2 files,
   * every packed event's inflated payload. Eight times the largest replays measured (1 GB exports); a replay over it
   * fails with `REPLAY_TOO_LARGE`. It bounds the time and disk a hostile replay can take, not memory (streamed).
   */
  maxReplayBytes: 8 * GiB,
});

/**
 * The highest `maxEventBytes` accepted (1 GiB): every event length, and every offset into an event, then stays far
 * below 2^31, so that none can wrap in the 32-bit tables that carry them (`EventRun.ends`, the WebAssembly module).
 */
export const MAX_EVENT_BYTES_CAP = GiB;

/** Throws a ConfigError naming the option when a limit is not a positive integer (or `maxEventBytes` is over its cap). */
export function checkDecodeLimits(limits: {
  maxEventBytes?: number | undefined;
  maxReplayBytes?: number | undefined;
}): void {
  const { maxEventBytes, maxReplayBytes } = limits;
  if (
    maxEventBytes !== undefined &&
    !(Number.isSafeInteger(maxEventBytes) && maxEventBytes >= 1 && maxEventBytes <= MAX_EVENT_BYTES_CAP)
  ) {
    throw new ConfigError(
      `maxEventBytes must be an integer from 1 to ${MAX_EVENT_BYTES_CAP} (1 GiB), got ${String(maxEventBytes)}`,
    );
  }
  if (maxReplayBytes !== undefined && !(Number.isSafeInteger(maxReplayBytes) && maxReplayBytes >= 1)) {
    throw new ConfigError(`maxReplayBytes must be a positive integer, got ${String(maxReplayBytes)}`);
  }
}

/**
 * The inflated bytes one replay may still take, shared by the decoders of its files (one after the other). A caller
 * that decodes a file again (a retried download) rewinds to where that file began, so its bytes count once.
 */
export class ReplayBudget {
  private spent = 0;

  constructor(readonly limit: number = DECODE_LIMITS.maxReplayBytes) {
    checkDecodeLimits({ maxReplayBytes: limit });
  }

  /** Bytes taken so far. */
  get used(): number {
    return this.spent;
  }

  /** Bytes left. */
  get left(): number {
    return this.limit - this.spent;
  }

  /** Takes `bytes` (the caller checked that they fit). */
  take(bytes: number): void {
    this.spent += bytes;
  }

  /** Goes back to `used` as it was at some earlier point (never forward). */
  rewind(used: number): void {
    if (used < this.spent) this.spent = Math.max(0, used);
  }
}

/** The limits one decoder applies: its event limit and the replay's budget. */
export class DecodeLimits {
  constructor(
    readonly maxEventBytes: number,
    readonly budget: ReplayBudget,
  ) {}

  /** From `DecodeOptions` (defaults from DECODE_LIMITS; a budget of its own when none is shared). */
  static of(opts: { maxEventBytes?: number | undefined; replayBudget?: ReplayBudget | undefined }): DecodeLimits {
    checkDecodeLimits(opts);
    return new DecodeLimits(opts.maxEventBytes ?? DECODE_LIMITS.maxEventBytes, opts.replayBudget ?? new ReplayBudget());
  }
}

type Where = Omit<DecodeErrorContext, 'cause'>;

/** `EVENT_TOO_LARGE` for the element at `where`. */
export function eventTooLarge(limit: number, where: Where): DecodeError {
  return new DecodeError(
    'EVENT_TOO_LARGE',
    `the event is larger than the event size limit of ${formatBytes(limit)}`,
    where,
  );
}

/** `REPLAY_TOO_LARGE`, seen at `where`. */
export function replayTooLarge(limit: number, where: Where): DecodeError {
  return new DecodeError(
    'REPLAY_TOO_LARGE',
    `the replay inflates to more than the replay size limit of ${formatBytes(limit)}`,
    where,
  );
}

/** Whether `err` is a size limit's error: deterministic, so decoding the same bytes again cannot help. */
export function isLimitError(err: unknown): boolean {
  return err instanceof DecodeError && (err.code === 'EVENT_TOO_LARGE' || err.code === 'REPLAY_TOO_LARGE');
}

/** `268435456 bytes (256 MiB)`; just the bytes when not a whole number of KiB, MiB or GiB. */
function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', GiB],
    ['MiB', MiB],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes} bytes (${bytes / size} ${unit})`;
  }
  return `${bytes} bytes`;
}
