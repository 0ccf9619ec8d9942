/**
 * The CLI's support layer: a command's configuration as the library resolves it — the platform and the settings (the
 * CLI names its flags in their errors) — and the secrets its messages are scrubbed of.
 */
export { secretsOf } from '../http/auth.js';
export { requireProjectKeys, type PlatformOptions } from '../pipeline/platform.js';
export { resolveSettings } from '../pipeline/settings.js';
