/** Public surface of the decoders: replay file bytes (version 2 or 3, gzip or not) → events. */
export { decodeEventBytes, decodeEvents, type DecodeOptions, type FileVersion } from './decode.js';
export { DecodeError, type DecodeErrorCode } from './errors.js';
export { isGzip } from './gzip.js';
export { peekEventFields, peekEventTimestamp, type PeekedFields } from './peek.js';
