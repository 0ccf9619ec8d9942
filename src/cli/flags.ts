/**
 * The CLI's support layer: what its flags are read with — sizes and durations in the flags' units, the defaults and
 * the environment variables' names, the checks the flags share with the library.
 */
export { MAX_EVENT_BYTES_CAP } from '../../decoders/limits.js';
export { defaultChecksums } from '../../sinks/s3-defaults.js';
export { ByteSizeError, formatByteSize, parseByteSize } from '../pipeline/byte-size.js';
export { DEFAULTS } from '../pipeline/defaults.js';
export { DurationError, formatDuration, parseDuration } from '../pipeline/duration.js';
export { ConfigError } from '../pipeline/errors.js';
export { ENV } from '../pipeline/settings.js';
export { SHARD_ENV } from '../pipeline/shard.js';
export { validatePlatformId } from '../replay/validation.js';
