import { ConfigError } from '../errors.js';

/** A redaction policy that cannot be used (not JSON, an unknown field, a selector or pattern that does not compile). */
export class RedactionPolicyError extends ConfigError {
  constructor(message: string) {
    super(`redaction policy: ${message}`, 'invalid_redaction_policy');
  }
}
