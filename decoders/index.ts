/** Public surface of the decoders: replay file bytes (version 2 or 3, gzip or not) → events. */
export { decodeEventBatches, decodeEventBytes, decodeEvents, type DecodeOptions, type FileVersion } from './decode.js';
export { DecodeError, type DecodeErrorCode } from './errors.js';
export { isGzip } from './gzip.js';
export { checkDecodeLimits, DECODE_LIMITS, isLimitError, MAX_EVENT_BYTES_CAP, ReplayBudget } from './limits.js';
export { peekEventFields, peekEventTimestamp, peekEventTimestampIn, type PeekedFields } from './peek.js';
export {
  batchCount,
  batchEvents,
  dropEvents,
  isWellFormedRun,
  runEventStart,
  singleRun,
  type EventBatch,
  type EventRun,
} from './runs.js';
