/**
 * The CLI's support layer (src/cli/): what bin/ takes from the library beyond its public entries, in small modules so
 * that a command loads only what it uses (`--version` loads this one alone). Not part of the package's `exports`:
 * these names may change with the CLI. This module: exit codes, the error base, the secret scrubber, the version.
 */
export { EXIT_CODES, exitCodeOf, InterruptedError } from '../errors.js';
export { redactText } from '../http/redact.js';
export type { Logger } from '../http/logger.js';
export { packageVersion } from '../util/package-root.js';
