import { ConfigError, ReplayExportError } from '../errors.js';

/** A redaction policy that cannot be used (not JSON, an unknown field, a selector or pattern that does not compile). */
export class RedactionPolicyError extends ConfigError {
  constructor(message: string) {
    super(`redaction policy: ${message}`, 'INVALID_REDACTION_POLICY');
  }
}

/** An event that could not be redacted (e.g. nested too deep to serialise again): its replay fails, others go on. */
export class RedactionError extends ReplayExportError {
  constructor(index: number, cause: unknown) {
    super(`event ${index} could not be redacted: ${cause instanceof Error ? cause.message : String(cause)}`, {
      code: 'REDACTION_FAILED',
      category: 'data',
      index,
      cause,
    });
  }
}
